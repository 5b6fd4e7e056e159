#!/usr/bin/env python3
"""The PDF benchmark: PyPDF2 3.0.1's own extraction, timed in one
Python process (PdfReader + extract_text() of every page, as the backend runs
it), beside `ctxguard extract FILE` (a fresh process per file, so its start-up
is counted against it), on the public PDF cases and on a generated 300-page
report. Medians of REPEATS runs of each whole set. Run by scripts/bench-pdf.sh.
"""
import base64, io, json, os, statistics, subprocess, sys, tempfile, time, zlib

root, ctxguard, repeats = sys.argv[1], sys.argv[2], int(sys.argv[3])
from PyPDF2 import PdfReader  # the reference environment's PyPDF2 3.0.1


def public_cases(work):
    paths = []
    for line in open(os.path.join(root, "tests/conformance/documents.jsonl"), encoding="utf-8"):
        case = json.loads(line)
        if "-pdf-" in case["id"] and "pypdf" in (case.get("source") or ""):
            path = os.path.join(work, case["id"] + ".pdf")
            open(path, "wb").write(base64.b64decode(case["data_base64"]))
            paths.append(path)
    return paths


def report(path, pages=300, lines=45):
    """A 300-page report: a heading, numbered paragraphs and a table row per
    page, Helvetica and Times, Flate-compressed content, one page tree."""
    objs = []
    def add(body):
        objs.append(body)
        return len(objs)
    cat = add(None); tree = add(None)
    f1 = add(b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>")
    f2 = add(b"<< /Type /Font /Subtype /Type1 /BaseFont /Times-Roman /Encoding /WinAnsiEncoding >>")
    kids = []
    words = ("context governance budget attachment preview token window summary model relay "
             "quarterly revenue forecast region analysis growth margin customer").split()
    for p in range(pages):
        ops = [b"BT /F1 16 Tf 72 760 Td (Quarterly report, section %d) Tj ET" % (p + 1)]
        ops.append(b"BT /F2 10 Tf 14 TL 72 730 Td")
        for i in range(lines):
            text = " ".join(words[(p * 7 + i * 3 + k) % len(words)] for k in range(11))
            ops.append(b"(%d.%d %s) Tj T*" % (p + 1, i + 1, text.encode()))
        ops.append(b"ET")
        ops.append(b"BT /F1 9 Tf 72 60 Td [(Total) -2000 (%d) -2000 (units)] TJ ET" % (p * 113))
        data = zlib.compress(b"\n".join(ops))
        content = add(b"<< /Length %d /Filter /FlateDecode >>\nstream\n" % len(data) + data + b"\nendstream")
        kids.append(add(b"<< /Type /Page /Parent %d 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 %d 0 R /F2 %d 0 R >> >> /Contents %d 0 R >>" % (tree, f1, f2, content)))
    objs[cat - 1] = b"<< /Type /Catalog /Pages %d 0 R >>" % tree
    objs[tree - 1] = b"<< /Type /Pages /Count %d /Kids [%s] >>" % (len(kids), b" ".join(b"%d 0 R" % k for k in kids))
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for i, body in enumerate(objs):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % (i + 1) + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objs) + 1)
    for o in offsets:
        out += b"%010d 00000 n \n" % o
    out += b"trailer\n<< /Size %d /Root %d 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objs) + 1, cat, xref)
    open(path, "wb").write(out)
    return [path]


def pypdf2(paths):
    for path in paths:
        data = open(path, "rb").read()
        try:
            reader = PdfReader(io.BytesIO(data))
            if reader.is_encrypted:
                continue
            for page in reader.pages:
                page.extract_text()
        except Exception:
            pass


def ours(paths):
    for path in paths:
        subprocess.run([ctxguard, "extract", path], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def median_ms(fn, paths):
    fn(paths)  # warm-up
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        fn(paths)
        times.append((time.perf_counter() - t) * 1000)
    return statistics.median(times)


with tempfile.TemporaryDirectory() as work:
    sets = [("public PDF cases (%d files)" % len(public_cases(work)), public_cases(work)),
            ("generated 300-page report", report(os.path.join(work, "report-300.pdf")))]
    size = os.path.getsize(sets[1][1][0])
    print("| input | PyPDF2 3.0.1 (ms) | ctxguard extract (ms) | speed-up |")
    print("| --- | ---: | ---: | ---: |")
    for name, paths in sets:
        ref = median_ms(pypdf2, paths)
        mine = median_ms(ours, paths)
        print("| %s | %.1f | %.1f | %.1fx |" % (name, ref, mine, ref / mine))
    print()
    print("(report: %d bytes; medians of %d runs; ctxguard timed per process, start-up included)" % (size, repeats))
