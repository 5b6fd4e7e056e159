"""Random .pptx files with python-pptx plus injected PresentationML: python gen_pptx.py OUTDIR N SEED."""
import io, os, random, sys
from pptx import Presentation
from pptx.util import Inches, Pt
from pptx.chart.data import CategoryChartData
from pptx.enum.chart import XL_CHART_TYPE
from pptx.enum.shapes import MSO_SHAPE, MSO_CONNECTOR
from pptx.oxml import parse_xml
from pptx.oxml.ns import nsdecls, qn

WORDS = ["alpha", "beta", "report", "会议", "記錄", "テスト", "한국어", "مرحبا", "Привет", "naïve", "🚀", "👨‍👩‍👧", "İstanbul", "\u00a0", "\u3000", "\u200b", "\ufeff", "x\u0085y", "\u2028"]
SPACES = [" ", "  ", "\t", "\u3000", "\u00a0", "\v", ""]
IMG = os.path.join(os.path.dirname(__file__), "tiny.png")

def words(rnd, n=None):
    n = n if n is not None else rnd.randint(1, 10)
    return " ".join(rnd.choice(WORDS) for _ in range(n))

def raw_shape(rnd):
    P = nsdecls("p", "a", "r")
    return parse_xml(rnd.choice([
        f'<p:sp {P}><p:nvSpPr><p:cNvPr id="90" name="x"/><p:cNvSpPr/><p:nvPr/></p:nvSpPr><p:spPr/><p:txBody><a:bodyPr/><a:p><a:r><a:t>fld </a:t></a:r><a:fld id="{{1}}" type="slidenum"><a:t>3</a:t></a:fld><a:fld id="{{2}}" type="x"/><a:br/><a:r><a:t>after</a:t></a:r></a:p></p:txBody></p:sp>',
        f'<p:sp {P}><p:nvSpPr><p:cNvPr id="91" name="x"/><p:cNvSpPr/><p:nvPr/></p:nvSpPr><p:spPr/></p:sp>',
        f'<p:sp {P}><p:nvSpPr><p:cNvPr id="92" name="x"/><p:cNvSpPr/><p:nvPr><p:ph type="body" idx="5"/></p:nvPr></p:nvSpPr><p:spPr/><p:txBody><a:bodyPr/><a:p><a:r><a:t>  ph body  </a:t></a:r></a:p><a:p/><a:p><a:r><a:t>\u3000</a:t></a:r></a:p></p:txBody></p:sp>',
        f'<mc:AlternateContent xmlns:mc="http://schemas.openxmlformats.org/markup-compatibility/2006" {P}><mc:Choice Requires="p14"><p:sp><p:nvSpPr><p:cNvPr id="93" name="x"/><p:cNvSpPr/><p:nvPr/></p:nvSpPr><p:spPr/><p:txBody><a:bodyPr/><a:p><a:r><a:t>alt</a:t></a:r></a:p></p:txBody></p:sp></mc:Choice></mc:AlternateContent>',
        f'<p:sp {P}><p:nvSpPr><p:cNvPr id="94" name="x"/><p:cNvSpPr/><p:nvPr/></p:nvSpPr><p:spPr/><p:txBody><a:bodyPr/><a:p><a:r><a:t>x<!--c-->y</a:t></a:r><a:r><a:t/></a:r><a:r><a:rPr/><a:t>&#x41;&amp;</a:t></a:r></a:p></p:txBody></p:sp>',
        f'<p:cxnSp {P}><p:nvCxnSpPr><p:cNvPr id="95" name="c"/><p:cNvCxnSpPr/><p:nvPr/></p:nvCxnSpPr><p:spPr/></p:cxnSp>',
        f'<p:sp {P}><p:nvSpPr><p:cNvPr id="96" name="x"/><p:cNvSpPr/><p:nvPr><p:ph type="pic"/></p:nvPr></p:nvSpPr><p:spPr/><p:txBody><a:bodyPr/><a:p><a:r><a:t>pic ph</a:t></a:r></a:p></p:txBody></p:sp>',
        f'<p:sp {P}><p:nvSpPr><p:cNvPr id="97" name="x"/><p:cNvSpPr/><p:nvPr/></p:nvSpPr><p:spPr/><p:txBody><a:bodyPr/><a:p><a:r><a:t>one</a:t></a:r></a:p></p:txBody><p:txBody><a:bodyPr/><a:p><a:r><a:t>second body</a:t></a:r></a:p></p:txBody></p:sp>',
    ]))

def build(rnd):
    prs = Presentation()
    for _ in range(rnd.randint(0, 8)):
        layout = prs.slide_layouts[rnd.randrange(len(prs.slide_layouts))]
        s = prs.slides.add_slide(layout)
        for ph in s.placeholders:
            if rnd.random() < 0.7 and ph.has_text_frame:
                ph.text = rnd.choice(SPACES) + words(rnd) + rnd.choice(SPACES)
        for _ in range(rnd.randint(0, 5)):
            r = rnd.random()
            if r < 0.3:
                tb = s.shapes.add_textbox(Inches(1), Inches(1), Inches(2), Inches(1))
                tf = tb.text_frame
                tf.text = words(rnd) + rnd.choice(SPACES) + words(rnd, 2)
                for _ in range(rnd.randint(0, 3)):
                    tf.add_paragraph().text = rnd.choice(SPACES) + words(rnd, rnd.randint(0, 3))
            elif r < 0.45:
                rows, cols = rnd.randint(1, 4), rnd.randint(1, 4)
                t = s.shapes.add_table(rows, cols, Inches(1), Inches(1), Inches(4), Inches(2)).table
                for row in t.rows:
                    for c in row.cells:
                        if rnd.random() < 0.7:
                            c.text = rnd.choice(SPACES) + words(rnd, rnd.randint(0, 3))
                if rnd.random() < 0.4 and rows > 1 and cols > 1:
                    t.cell(0, 0).merge(t.cell(1, 1))
            elif r < 0.55:
                sh = s.shapes.add_shape(MSO_SHAPE.ROUNDED_RECTANGLE, Inches(1), Inches(1), Inches(1), Inches(1))
                if rnd.random() < 0.7:
                    sh.text = words(rnd, 3)
            elif r < 0.65:
                g = s.shapes.add_group_shape()
                g.shapes.add_textbox(Inches(1), Inches(1), Inches(1), Inches(1)).text = "grouped " + words(rnd, 2)
            elif r < 0.72:
                s.shapes.add_picture(IMG, Inches(1), Inches(1))
            elif r < 0.78:
                cd = CategoryChartData(); cd.categories = ["a", "b"]; cd.add_series("S", (1, 2))
                s.shapes.add_chart(XL_CHART_TYPE.COLUMN_CLUSTERED, Inches(1), Inches(1), Inches(3), Inches(2), cd)
            elif r < 0.82:
                s.shapes.add_connector(MSO_CONNECTOR.STRAIGHT, Inches(1), Inches(1), Inches(2), Inches(2))
            elif r < 0.88:
                s.notes_slide.notes_text_frame.text = "notes " + words(rnd, 2)
            else:
                s.shapes._spTree.append(raw_shape(rnd))
    buf = io.BytesIO(); prs.save(buf); return buf.getvalue()

def main():
    out, n, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    rnd = random.Random(seed)
    for i in range(n):
        data = build(rnd)
        lim = rnd.choice(["", "", "", "@300", "@1000", "@3000", "@60"])
        open(os.path.join(out, f"p{seed}_{i}{lim}.pptx"), "wb").write(data)

main()
