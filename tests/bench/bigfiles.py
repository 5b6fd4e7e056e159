"""The big-uploads bench's Python half (tests/bench/bigfiles.mjs runs it in
the venv scripts/bench.sh makes): workbooks and documents written by the
reference's own writers, openpyxl 3.1.5 and python-docx 1.2.0, at a given
file size, and openpyxl's read-only pass over a workbook, timed.

  python bigfiles.py xlsx OUT.xlsx MEGABYTES
  python bigfiles.py docx OUT.docx MEGABYTES
  python bigfiles.py read-xlsx FILE.xlsx      -> prints {"seconds": s, "rows": n}
"""
import json
import os
import random
import sys
import time

WORDS = (
    "invoice order shipment region north south east west central product widget gadget "
    "sprocket bolt panel cable adapter sensor module account customer supplier quarter "
    "pending shipped returned paid overdue discount total net gross tax freight note "
    "ledger entry review approved rejected batch warehouse transfer credit debit"
).split()


def sentence(rng, words):
    return " ".join(rng.choice(WORDS) for _ in range(words)).capitalize() + "."


def rows(rng):
    """A sales ledger's rows: id, date, region, product, quantity, price, note."""
    i = 0
    while True:
        i += 1
        yield [
            i,
            f"2026-{1 + i % 12:02d}-{1 + i % 28:02d}",
            rng.choice(WORDS[4:9]),
            f"{rng.choice(WORDS[9:17])}-{i % 500}",
            rng.randint(1, 500),
            round(rng.random() * 1000, 2),
            sentence(rng, rng.randint(3, 12)),
        ]


def write_xlsx(path, count):
    from openpyxl import Workbook

    rng = random.Random(1)
    wb = Workbook(write_only=True)
    ws = wb.create_sheet("Ledger")
    ws.append(["id", "date", "region", "product", "quantity", "price", "note"])
    for n, row in enumerate(rows(rng)):
        if n >= count:
            break
        ws.append(row)
    wb.save(path)


def write_docx(path, count):
    """python-docx's paragraphs (its `add_paragraph`/`add_heading` elements and
    `add_run`), each placed before the section properties directly: the
    library's own `add_paragraph` searches the body for them on every call,
    which makes a 100 MB document take hours."""
    import copy

    import docx
    from docx.text.paragraph import Paragraph

    rng = random.Random(2)
    d = docx.Document()
    heading = d.add_heading("", level=2)._p
    body_p = d.add_paragraph()._p
    sect = d.element.body.sectPr
    for p in (heading, body_p):
        p.getparent().remove(p)

    def place(template, text):
        p = copy.deepcopy(template)
        if sect is not None:
            sect.addprevious(p)
        else:
            d.element.body.append(p)
        Paragraph(p, d._body).add_run(text)

    for i in range(count):
        if i % 200 == 0:
            place(heading, sentence(rng, 4))
        place(body_p, " ".join(sentence(rng, rng.randint(8, 30)) for _ in range(6)))
    d.save(path)


def sized(write, path, megabytes, probe):
    """Writes `probe` units, then scales the count to reach about `megabytes`."""
    write(path, probe)
    per_unit = os.path.getsize(path) / probe
    count = max(probe, int(megabytes * 1024 * 1024 / per_unit))
    write(path, count)
    return count


def read_xlsx(path):
    from openpyxl import load_workbook

    start = time.perf_counter()
    wb = load_workbook(path, read_only=True)
    n = 0
    for ws in wb.worksheets:
        for _ in ws.iter_rows(values_only=True):
            n += 1
    wb.close()
    return {"seconds": time.perf_counter() - start, "rows": n}


def main():
    kind, path = sys.argv[1], sys.argv[2]
    if kind == "xlsx":
        print(json.dumps({"rows": sized(write_xlsx, path, float(sys.argv[3]), 20000)}))
    elif kind == "docx":
        print(json.dumps({"paragraphs": sized(write_docx, path, float(sys.argv[3]), 2000)}))
    elif kind == "read-xlsx":
        print(json.dumps(read_xlsx(path)))
    else:
        sys.exit(f"bigfiles.py: unknown kind {kind}")


if __name__ == "__main__":
    main()
