"""Byte-level XML mutations of a package's XML members: python mutate_xml.py OUTDIR N SEED FILES..."""
import io, os, random, sys, zipfile
INS = [b" ", b"\n", b"\r\n", b"\r", b"\t", b"<", b">", b"&", b";", b'"', b"'", b"=", b"/", b":", b"x", b"&amp;", b"&#32;", b"&#x3000;", b"<!--c-->",
       b"<?pi x?>", b"<![CDATA[ z ]]>", b"]]>", b"\xc3\xa9", b"\xe3\x80\x80", b"\x01", b"\xff", b"&e;", b"<w:t>", b"</w:t>", b"<a:t>", b"</a:t>",
       b'xml:space="preserve"', b" xmlns:q=\"urn:q\"", b"<q:x xmlns:q=\"urn:q\"/>", b"<w:br/>", b"<w:tab/>", b"<a:br/>", b"  <b/>  "]

def mutate(data, rnd):
    b = bytearray(data)
    for _ in range(rnd.randint(1, 3)):
        op = rnd.random()
        i = rnd.randrange(len(b) + 1)
        if op < 0.25 and b:
            del b[min(i, len(b) - 1): min(i, len(b) - 1) + rnd.randint(1, 4)]
        elif op < 0.8:
            b[i:i] = rnd.choice(INS)
        elif b:
            b[min(i, len(b) - 1)] = rnd.randrange(32, 127)
    return bytes(b)

def main():
    out, n, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    files = sys.argv[4:]
    rnd = random.Random(seed)
    for k in range(n):
        src = rnd.choice(files)
        z = zipfile.ZipFile(src)
        items = [(i.filename, z.read(i.filename)) for i in z.infolist()]
        mains = [j for j, (nm, _) in enumerate(items) if nm in ("word/document.xml", "ppt/presentation.xml") or nm.startswith("ppt/slides/slide") or nm.endswith(".rels") or nm == "[Content_Types].xml"]
        if not mains:
            continue
        weights = [6 if items[j][0] in ("word/document.xml",) or items[j][0].startswith("ppt/slides/slide") else 1 for j in mains]
        j = rnd.choices(mains, weights)[0]
        items[j] = (items[j][0], mutate(items[j][1], rnd))
        buf = io.BytesIO()
        with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zw:
            for nm, d in items:
                zw.writestr(nm, d)
        open(os.path.join(out, f"x{seed}_{k}{os.path.splitext(src)[1]}"), "wb").write(buf.getvalue())

main()
