import io, os, random, sys
import docx, pptx
from pptx.util import Inches
out, n, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
rnd = random.Random(seed)
W = ["alpha", "会议", "テスト", "🚀", "report", "\u3000", "x" * 50, "naïve"]
for i in range(n):
    d = docx.Document()
    for k in range(rnd.randint(20, 400)):
        if rnd.random() < 0.1:
            t = d.add_table(rows=rnd.randint(1, 4), cols=rnd.randint(1, 3))
            for row in t.rows:
                for c in row.cells:
                    c.text = " ".join(rnd.choice(W) for _ in range(rnd.randint(0, 8)))
        else:
            d.add_paragraph(" ".join(rnd.choice(W) for _ in range(rnd.randint(0, 40))))
    lim = rnd.choice([50, 100, 200, 500, 1000, 2000, 5000, 20000, 100000])
    b = io.BytesIO(); d.save(b); open(os.path.join(out, f"L{seed}_{i}@{lim}.docx"), "wb").write(b.getvalue())
    prs = pptx.Presentation()
    for k in range(rnd.randint(5, 60)):
        s = prs.slides.add_slide(prs.slide_layouts[rnd.choice([1, 5, 6])])
        for _ in range(rnd.randint(0, 3)):
            s.shapes.add_textbox(Inches(1), Inches(1), Inches(1), Inches(1)).text = " ".join(rnd.choice(W) for _ in range(rnd.randint(0, 30)))
    lim = rnd.choice([50, 100, 200, 500, 1000, 2000, 5000, 20000])
    b = io.BytesIO(); prs.save(b); open(os.path.join(out, f"M{seed}_{i}@{lim}.pptx"), "wb").write(b.getvalue())
