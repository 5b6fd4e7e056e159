"""XML cases with lxml's (python-docx's parser settings) tree dump, for the reader's differential test."""
import json, random, sys
from lxml import etree

P = etree.XMLParser(remove_blank_text=True, resolve_entities=False)

def dump(data):
    try:
        root = etree.fromstring(data, P)
    except Exception:
        return None
    out = []
    def walk(e):
        if isinstance(e.tag, str):
            q = etree.QName(e)
            line = "S{%s}%s" % (q.namespace or "", q.localname)
            for k, v in e.attrib.items():
                kq = etree.QName(k)
                line += " {%s}%s=%s" % (kq.namespace or "", kq.localname, v)
            out.append(line)
            if e.text is not None:
                out.append("T" + e.text)
            for c in e:
                walk(c)
                if c.tail is not None:
                    out.append("T" + c.tail)
            out.append("E")
        else:
            out.append("N")
    walk(root)
    return out

BASE = [
    '<w:document xmlns:w="http://w"><w:body><w:p><w:r><w:t>Hello</w:t></w:r></w:p></w:body></w:document>',
    '<a>  <b> x </b>  <c/>  </a>', '<a>\n  <b/>\n</a>', '<a>x<b/>  <c/>  y  <d/>  </a>',
    '<t> \t </t>', '<t>\t<b/></t>', '<t> &#32; <b/></t>', '<t>&#32;  <b/></t>', '<t>  &amp;  <b/></t>',
    '<t>  \r\n  <b/></t>', '<t>  \r  </t>', '<t>\r\n</t>', '<t> é <b/></t>', '<t>é  <b/> </t>',
    '<t><!--c-->  </t>', '<t><!--c-->  <b/></t>', '<t><?p x?>  </t>', '<t><![CDATA[]]>  <b/></t>',
    '<t xml:space="preserve"><b/>  </t>', '<t xml:space="default">a<b/>  <c/></t>', '<t xml:space="foo">  <b/></t>',
    '<r xml:space="preserve"><t>  <b/></t></r>', '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<a/>',
    '<?xml version="1.0"?><!-- c --><a/><!-- d --><?pi?>', '<!DOCTYPE a><a/>', '<!DOCTYPE a SYSTEM "x.dtd"><a>&u;</a>',
    '<!DOCTYPE a PUBLIC "p" "x.dtd" [<!ELEMENT a ANY>]><a>&u;</a>', '<!DOCTYPE a [<!ATTLIST a b CDATA "d">]><a/>',
    '<!DOCTYPE a [<!ENTITY e "x<b/>y">]><a>1&e;2</a>', '<!DOCTYPE a [<!ENTITY e "x&#60;b/>y">]><a>1&e;2</a>',
    '<!DOCTYPE a [<!ENTITY e SYSTEM "f">]><a>&e;</a>', '<!DOCTYPE a [<!ENTITY e SYSTEM "f">]><a b="&e;"/>',
    '<!DOCTYPE a [<!ENTITY % p "x"> %p;]><a>&u;</a>', '<a b="&lt;&#x41;&#65;"/>', '<a b=" x\ty\r\nz "/>',
    '<a xmlns="u"><b xmlns=""/></a>', '<p:a xmlns:p="u"><p:b xmlns:p="v"/><p:c/></p:a>', '<a xml:lang="en"/>',
    '<xml:a/>', '<a xmlns:xml="http://www.w3.org/XML/1998/namespace"/>', '<a xmlns:xmlns="u"/>',
    '<a xmlns:p="http://www.w3.org/XML/1998/namespace"/>', '<a xmlns="http://www.w3.org/2000/xmlns/"/>',
    '<a><b></a>', '<a></b>', '<a>', '<a/><b/>', 'x<a/>', '<a/>  \n', '<a>&#xD800;</a>', '<a>&#x10FFFF;</a>', '<a>&#xFFFE;</a>',
    '<a>&#x;</a>', '<a>&#12a;</a>', '<a>&amp</a>', '<a>& b</a>', '<a b=c/>', "<a b='1' c=\"2\"/>", '<a  b = "1" />', '<a b="1"/ >',
    '<a>]]</a>', '<a>]></a>', '<a><!----></a>', '<a><!-- - --></a>', '<a><!-- --->', '<a><!---></a>', '<a><?target?></a>',
    '<a><?target  data ?></a>', '<a><?targetdata?></a>', '<a><?xml-stylesheet x?></a>', '<a><?Xml x?></a>',
    '<a><![CDATA[<x>]]]></a>', '<a><![CDATA[x]]>y<![CDATA[z]]></a>', '<!-- c --> <?xml version="1.0"?><a/>',
    '<?xml version="1.0" ?><a/>', '<?xml version="1.0"encoding="UTF-8"?><a/>', '<?xml version="1.0" encoding="utf-8" ?><a/>',
    '<?xml version="1.1"?><a/>', '<?xml version="1.x"?><a/>', '<?xml version="10.0"?><a/>', '<?xml version="1.0" standalone="no"?><a/>',
    '<?xml version="1.0" standalone="yes" encoding="UTF-8"?><a/>', "<?xml version='1.0'?><a/>", '<?xml?><a/>', '<?xml encoding="UTF-8"?><a/>',
    '<a:b xmlns:a="u" a:c="1" c="2"/>', '<a b:c="1"/>', '<_a.b-c/>', '<a1/>', '<-a/>', '<a\u00b7b/>', '<\u4e2d/>', '<a:/>', '<:a/>',
    '<a>\u0085\u2028</a>', '<a>\x7f</a>', '<a>\x0c</a>', '<a b="\x01"/>', '<a><!--\x01--></a>',
    '<!DOCTYPE a [<!ENTITY e "v">]><a>&e;&e;</a>', '<!DOCTYPE a [<!ENTITY e "v"><!ENTITY e "w">]><a b="&e;"/>',
    '<!DOCTYPE a [<!ENTITY e "&f;">]><a>&e;</a>', '<!DOCTYPE a [<!ENTITY e "&f;"><!ENTITY f "x">]><a>&e;</a>',
    '<!DOCTYPE a [<!ENTITY e "<b>">]><a b="&e;"/>', '<!DOCTYPE a [<!ENTITY e "a&#10;b">]><a b="&e;">&e;</a>',
    '<!DOCTYPE a [ <!-- c --> <?pi x?> ]><a/>', '<!DOCTYPE a [<!FOO>]><a/>', '<!DOCTYPE a []><a/>', '<!DOCTYPE a><!DOCTYPE a><a/>',
    '<a/><!DOCTYPE a>', '<!DOCTYPE a [<!ENTITY e:x "v">]><a/>', '<!DOCTYPE a [<!ENTITY e "%p;">]><a/>',
    '<t>  <!--c-->x</t>', '<t>  &#32;</t>', '<t>\n<b/>\n<c/>\n</t>', '<t>a\r\nb</t>', '<t>\r\n  <b/></t>', '<t> \r\n\r\n </t>',
    '<t>\t\r\n\t</t>', '<t>x\r</t>', '<t>\r</t>', '<t> \r <b/></t>', '<t>' + ' ' * 400 + '<b/></t>', '<t>é' + ' ' * 400 + '<b/></t>',
]

def mutate(s, rnd):
    b = bytearray(s.encode('utf-8'))
    for _ in range(rnd.randint(1, 3)):
        op = rnd.random()
        i = rnd.randrange(len(b) + 1)
        if op < 0.3 and b:
            del b[min(i, len(b) - 1)]
        elif op < 0.6:
            b[i:i] = rnd.choice([b' ', b'\n', b'\r\n', b'<', b'>', b'&', b';', b'"', b'=', b'/', b':', b'x', b'&amp;', b'&#32;', b'<!--c-->', b'<b/>', b']]>', b'\t', b'\xc3\xa9'])
        elif b:
            j = min(i, len(b) - 1)
            b[j] = rnd.randrange(32, 127)
    return bytes(b)

def main():
    rnd = random.Random(int(sys.argv[1]) if len(sys.argv) > 1 else 1)
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 3000
    cases = [c.encode('utf-8') for c in BASE]
    cases.append('<?xml version="1.0" encoding="UTF-16"?><a>é</a>'.encode('utf-16'))
    cases.append('<?xml version="1.0" encoding="ISO-8859-1"?><a b="\xe9">\xe9</a>'.encode('latin-1'))
    cases.append('\ufeff<a>x</a>'.encode('utf-8'))
    cases.append('<a>é</a>'.encode('utf-16-be'))
    cases.append('<?xml version="1.0"?><a>é</a>'.encode('utf-16-le'))
    while len(cases) < n:
        cases.append(mutate(rnd.choice(BASE), rnd))
    for c in cases:
        print(json.dumps({"xml_hex": c.hex(), "dump": dump(c)}))

main()
