#!/usr/bin/env python3
"""Differential check of ctxguard's PDF reader against PyPDF2 3.0.1: writes N
random PDFs (standard, TrueType-with-widths, Type0/Identity-H with ToUnicode
and Differences fonts; Td TD Tm T* ' " TJ Tz Tw TL cm q Q Do; rotations,
right-to-left text, escapes, broken operands), extracts each with PyPDF2 as
the backend does and with `ctxguard extract`, and reports every difference.

  $(tools/differential/reference-python.sh) tools/differential/pdf-oracle.py target/release/ctxguard [N] [SEED]
"""
import io, random, subprocess, sys, tempfile, os, zlib
from PyPDF2 import PdfReader

ctxguard = sys.argv[1]
n = int(sys.argv[2]) if len(sys.argv) > 2 else 200
rng = random.Random(int(sys.argv[3]) if len(sys.argv) > 3 else 1)


def pdf(objs):
    out = bytearray(b"%PDF-1.4\n")
    offs = []
    for i, b in enumerate(objs):
        offs.append(len(out))
        out += b"%d 0 obj\n" % (i + 1) + b + b"\nendobj\n"
    x = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objs) + 1)
    for o in offs:
        out += b"%010d 00000 n \n" % o
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objs) + 1, x)
    return bytes(out)


def stream(d, data, flate):
    if flate:
        data = zlib.compress(data)
        d += b" /Filter /FlateDecode"
    return b"<< %s /Length %d >>\nstream\n" % (d, len(data)) + data + b"\nendstream"


def fonts():
    cmap = (b"/CIDInit /ProcSet findresource begin 12 dict begin begincmap\n"
            b"1 begincodespacerange <0000> <FFFF> endcodespacerange\n"
            b"3 beginbfchar <0003> <0020> <0005> <05D0> <0006> <05D1> endbfchar\n"
            b"1 beginbfrange <0010> <0040> <0041> endbfrange\nendcmap end end")
    return [
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Times-Roman /Encoding /WinAnsiEncoding >>",
        b"<< /Type /Font /Subtype /TrueType /BaseFont /Arial /FirstChar 32 /LastChar 126 /Widths [%s] /Encoding << /Type /Encoding /BaseEncoding /WinAnsiEncoding /Differences [65 /B /C /eacute 70 /g123 /space] >> >>"
        % b" ".join(b"%d" % rng.choice([0, 250, 500, 722]) for _ in range(95)),
        ("Type0", cmap),
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Symbol >>",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Courier /Encoding /MacRomanEncoding >>",
    ]


def string(font_kind):
    if font_kind == 3:
        codes = [rng.choice([3, 5, 6] + list(range(0x10, 0x41)) + [0x99]) for _ in range(rng.randint(0, 8))]
        return b"<" + b"".join(b"%04X" % c for c in codes) + b">"
    if rng.random() < 0.2:
        return b"<" + bytes(rng.randrange(256) for _ in range(rng.randint(0, 6))).hex().encode() + b">"
    s = "".join(rng.choice("abc XYZ 12() \\\\n é") for _ in range(rng.randint(0, 10)))
    s = s.replace("(", "\\(").replace(")", "\\)")
    return b"(" + s.encode("latin-1") + b")"


def content(nfonts, form):
    ops = []
    kind = 0
    for _ in range(rng.randint(1, 40)):
        r = rng.random()
        num = lambda: rng.choice(["0", "1", "-1", "12", "-14.5", "300", "0.5", "-800", "72"])
        if r < 0.08:
            ops.append("BT")
        elif r < 0.14:
            ops.append("ET")
        elif r < 0.22:
            kind = rng.randrange(nfonts)
            ops.append("/F%d %s Tf" % (kind, rng.choice(["12", "9", "0", "-10", "24"])))
        elif r < 0.32:
            ops.append("%s %s Td" % (num(), num()))
        elif r < 0.36:
            ops.append("%s %s TD" % (num(), num()))
        elif r < 0.42:
            a = rng.choice(["1 0 0 1", "0 1 -1 0", "-1 0 0 -1", "0 -1 1 0", "2 0 0 2", "1 0.2 0 1"])
            ops.append("%s %s %s Tm" % (a, num(), num()))
        elif r < 0.46:
            ops.append("T*")
        elif r < 0.6:
            ops.append(string(kind).decode("latin-1") + " Tj")
        elif r < 0.72:
            parts = [rng.choice([string(kind).decode("latin-1"), num(), "-250", "-120"]) for _ in range(rng.randint(0, 6))]
            ops.append("[" + " ".join(parts) + "] TJ")
        elif r < 0.75:
            ops.append(string(kind).decode("latin-1") + " '")
        elif r < 0.78:
            ops.append("1 2 " + string(kind).decode("latin-1") + ' "')
        elif r < 0.82:
            ops.append("%s TL" % num())
        elif r < 0.86:
            ops.append(rng.choice(["q", "Q"]))
        elif r < 0.9:
            ops.append("1 0 0 1 %s %s cm" % (num(), num()))
        elif r < 0.93:
            ops.append("%s Tz %s Tw" % (num(), num()))
        elif r < 0.96 and form:
            ops.append("/X0 Do")
        else:
            ops.append(rng.choice(["0 0 m 10 10 l S", "% comment", "/P <</MCID 0>> BDC EMC", "1 0 0 RG"]))
    return "\n".join(ops).encode("latin-1")


def case():
    fs = fonts()
    objs = [b"<< /Type /Catalog /Pages 2 0 R >>", None]
    font_refs = []
    for i, f in enumerate(fs):
        if isinstance(f, tuple):
            cm = len(objs) + 1
            objs.append(stream(b"", f[1], rng.random() < 0.5))
            desc = len(objs) + 1
            objs.append(b"<< /Type /Font /Subtype /CIDFontType2 /BaseFont /Foo /DW 1000 /W [3 [%d] 16 64 600] >>" % rng.choice([0, 250, 333]))
            objs.append(b"<< /Type /Font /Subtype /Type0 /BaseFont /Foo /Encoding /Identity-H /DescendantFonts [%d 0 R] /ToUnicode %d 0 R >>" % (desc, cm))
        else:
            objs.append(f)
        font_refs.append(len(objs))
    fontdict = b"<< " + b" ".join(b"/F%d %d 0 R" % (i, r) for i, r in enumerate(font_refs)) + b" >>"
    form = len(objs) + 1
    objs.append(stream(b"/Type /XObject /Subtype /Form /BBox [0 0 100 100] /Resources << /Font %s >>" % fontdict,
                       content(len(fs), False), rng.random() < 0.5))
    kids = []
    for _ in range(rng.randint(1, 3)):
        c = len(objs) + 1
        objs.append(stream(b"", content(len(fs), True), rng.random() < 0.5))
        kids.append(len(objs) + 1)
        objs.append(b"<< /Type /Page /Parent 2 0 R /Resources << /Font %s /XObject << /X0 %d 0 R >> >> /Contents %d 0 R >>" % (fontdict, form, c))
    objs[1] = b"<< /Type /Pages /Kids [%s] /Count %d >>" % (b" ".join(b"%d 0 R" % k for k in kids), len(kids))
    return pdf(objs)


def reference(data):
    try:
        reader = PdfReader(io.BytesIO(data))
        pages = [t for t in (p.extract_text() for p in reader.pages) if t]
    except Exception as e:
        return None
    return "\n\n".join("--- Page %d ---\n%s" % (i + 1, t) for i, t in enumerate(pages))


diffs = 0
# Each differing PDF is kept for a closer look: $OUT, default /tmp/ctxguard-diff/pdf.
keep_dir = os.environ.get("OUT", "/tmp/ctxguard-diff/pdf")
os.makedirs(keep_dir, exist_ok=True)
with tempfile.TemporaryDirectory() as work:
    for i in range(n):
        data = case()
        path = os.path.join(work, "c%d.pdf" % i)
        open(path, "wb").write(data)
        ref = reference(data)
        r = subprocess.run([ctxguard, "extract", "--max-text-length", "100000000", path], capture_output=True)
        mine = r.stdout.decode("utf-8", "replace") if r.returncode == 0 else None
        if mine is not None and mine.endswith("\n") and ref is not None and not ref.endswith("\n"):
            mine = mine[:-1]
        if (ref is None) != (mine is None) or (ref is not None and ref != mine):
            diffs += 1
            keep = os.path.join(keep_dir, "diff%d.pdf" % i)
            open(keep, "wb").write(data)
            print("DIFF", keep, repr(ref)[:300], "|||", repr(mine)[:300], r.stderr.decode()[:200])
print("%d of %d differ" % (diffs, n))
