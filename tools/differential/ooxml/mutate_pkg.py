"""Package-level mutations of generated files: python mutate_pkg.py OUTDIR N SEED FILES..."""
import os, random, re, sys, zipfile, io

def members(path):
    z = zipfile.ZipFile(path)
    return [(i.filename, z.read(i.filename)) for i in z.infolist()]

def write(items, method=zipfile.ZIP_DEFLATED):
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", method) as z:
        for name, data in items:
            z.writestr(name, data)
    return buf.getvalue()

def xml_members(items):
    return [i for i, (n, d) in enumerate(items) if n.endswith(".xml") or n.endswith(".rels")]

def mutate(items, rnd):
    items = list(items)
    op = rnd.randrange(22)
    xs = xml_members(items)
    i = rnd.choice(xs) if xs else 0
    name, data = items[i]
    method = zipfile.ZIP_DEFLATED
    if op == 0:
        del items[rnd.randrange(len(items))]
    elif op == 1:
        b = bytearray(data); k = rnd.randrange(len(b) + 1); b[k:k] = rnd.choice([b"<", b"&", b"]]>", b"\x01", b"<!--c-->", b"&#32;", b" ", b"&amp;"]); items[i] = (name, bytes(b))
    elif op == 2:
        items[i] = (name, data[: rnd.randrange(len(data) + 1)])
    elif op == 3:
        items[i] = (name, b"\xef\xbb\xbf" + data)
    elif op == 4:
        txt = data.decode("utf-8").replace('encoding="UTF-8"', 'encoding="UTF-16"')
        items[i] = (name, b"\xff\xfe" + txt.encode("utf-16-le"))
    elif op == 5:
        items[i] = (name, data.replace(b"http://schemas.openxmlformats.org/wordprocessingml/2006/main", b"http://purl.oclc.org/ooxml/wordprocessingml/main").replace(b"http://schemas.openxmlformats.org/presentationml/2006/main", b"http://purl.oclc.org/ooxml/presentationml/main"))
    elif op == 6:
        items = [(n.upper() if rnd.random() < 0.3 else n, d) for n, d in items]
    elif op == 7:
        items = [(n, d.replace(b'TargetMode="External"', b'TargetMode="external"').replace(b'Id="rId2"', b'Id="rId1"')) for n, d in items]
    elif op == 8:
        items = [(n, re.sub(rb'Target="[^"]*"', b'Target="NULL"', d, count=1) if n.endswith(".rels") and rnd.random() < 0.5 else d) for n, d in items]
    elif op == 9:
        items = [(n, d.replace(b"document.main+xml", b"template.main+xml").replace(b"presentation.main+xml", b"slideshow.main+xml")) for n, d in items]
    elif op == 10:
        method = zipfile.ZIP_STORED
    elif op == 11:
        method = zipfile.ZIP_LZMA
    elif op == 12:
        m = re.search(rb"<\?xml[^>]*\?>", data)
        decl = m.group(0) if m else b""
        rest = data[len(decl):]
        items[i] = (name, decl + b'<!DOCTYPE r [<!ENTITY e "ent">]>' + rest.replace(b"<w:t>", b"<w:t>&e;", 1).replace(b"<a:t>", b"<a:t>x&e;", 1))
    elif op == 13:
        items = [(n, d.replace(b"<w:tc>", b"<w:tc><w:tcPr><w:vMerge/></w:tcPr>", 1)) for n, d in items]
    elif op == 14:
        items = [(n, d.replace(b'<p:sldId ', b'<!--c--><p:sldId ', 1)) for n, d in items]
    elif op == 15:
        items = [(n, d.replace(b'</p:spTree>', b'<p:contentPart r:id="rId1"/></p:spTree>', 1)) for n, d in items]
    elif op == 16:
        items = [(n, d.replace(b'<p:ph type="title"', b'<p:ph type="ttl"', 1).replace(b'<p:ph type="body"', b'<p:ph type="vertBody"', 1)) for n, d in items]
    elif op == 17:
        items = [(n, d) for n, d in items if not n.endswith(("styles.xml", "settings.xml", "theme1.xml", "fontTable.xml", "core.xml", "presProps.xml"))]
    elif op == 18:
        items = [(n, d.replace(b"<a:t>", b"<a:t xml:space=\"preserve\">  ", 1).replace(b"<w:t>", b"<w:t>  <w:x/>", 1)) for n, d in items]
    elif op == 19:
        items = [(n, d.replace(b'<w:gridSpan w:val="2"/>', b'<w:gridSpan w:val=" +0_2 "/>').replace(b"<w:tcPr>", b'<w:tcPr><w:gridSpan w:val="x"/>', 1 if rnd.random() < 0.5 else 0)) for n, d in items]
    elif op == 20:
        items = items + [items[rnd.randrange(len(items))]]
    else:
        b = bytearray(data)
        for _ in range(rnd.randint(1, 4)):
            if b:
                b[rnd.randrange(len(b))] = rnd.randrange(32, 127)
        items[i] = (name, bytes(b))
    return write(items, method)

def main():
    out, n, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    files = sys.argv[4:]
    rnd = random.Random(seed)
    for k in range(n):
        src = rnd.choice(files)
        items = members(src)
        for _ in range(rnd.randint(1, 2)):
            try:
                data = mutate(items, rnd)
            except Exception as e:
                continue
            items = members(io.BytesIO(data))
        ext = os.path.splitext(src)[1]
        open(os.path.join(out, f"m{seed}_{k}{ext}"), "wb").write(data)

main()
