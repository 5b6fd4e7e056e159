"""Random .docx files with python-docx plus injected WordprocessingML: python gen_docx.py OUTDIR N SEED."""
import copy, io, os, random, sys, zipfile
import docx
from docx.oxml import parse_xml
from docx.oxml.ns import nsdecls, qn
from docx.shared import Inches
from docx.enum.text import WD_BREAK

WORDS = ["alpha", "beta", "report", "会议", "記錄", "テスト", "한국어", "مرحبا", "שלום", "Привет", "naïve", "🚀", "👨‍👩‍👧", "İstanbul", "ß", "Ω≈ç", "1️⃣", "\u00a0", "\u3000", "\u200b", "\ufeff", "x\u0085y", "\u2028"]
SPACES = [" ", "  ", "\t", "\u3000", "\u00a0", "\u2003", "\u200b", ""]

def words(rnd, n=None):
    n = n if n is not None else rnd.randint(1, 12)
    return " ".join(rnd.choice(WORDS) for _ in range(n))

def raw_para(rnd):
    W = nsdecls("w", "r")
    t = words(rnd, 3)
    choices = [
        f'<w:p {W}><w:r><w:t xml:space="preserve"> {t} </w:t></w:r></w:p>',
        f'<w:p {W}><w:hyperlink r:id="rId99"><w:r><w:t>{t}</w:t></w:r></w:hyperlink><w:r><w:t> after</w:t></w:r></w:p>',
        f'<w:p {W}><w:r><w:t>Page </w:t></w:r><w:fldSimple w:instr="PAGE"><w:r><w:t>1</w:t></w:r></w:fldSimple><w:r><w:t> end</w:t></w:r></w:p>',
        f'<w:p {W}><w:r><w:fldChar w:fldCharType="begin"/></w:r><w:r><w:instrText xml:space="preserve"> DATE </w:instrText></w:r><w:r><w:fldChar w:fldCharType="separate"/></w:r><w:r><w:t>2024-01-01</w:t></w:r><w:r><w:fldChar w:fldCharType="end"/></w:r></w:p>',
        f'<w:p {W}><w:r><w:t>Tracked: </w:t></w:r><w:ins w:id="1" w:author="a"><w:r><w:t>ins</w:t></w:r></w:ins><w:del w:id="2" w:author="a"><w:r><w:delText>del</w:delText></w:r></w:del><w:r><w:t> kept</w:t></w:r></w:p>',
        f'<w:p {W}><w:sdt><w:sdtContent><w:r><w:t>inline sdt</w:t></w:r></w:sdtContent></w:sdt><w:r><w:t>out</w:t></w:r></w:p>',
        f'<w:p {W}><w:smartTag w:uri="u" w:element="e"><w:r><w:t>smart</w:t></w:r></w:smartTag><w:r><w:t> tag</w:t></w:r></w:p>',
        f'<w:p {W}><w:r><w:t>Symbol:</w:t><w:sym w:font="Wingdings" w:char="F04A"/><w:t>end</w:t></w:r></w:p>',
        f'<w:p {W}><w:r><w:t>non</w:t><w:noBreakHyphen/><w:t>breaking</w:t><w:softHyphen/><w:t>soft</w:t><w:ptab w:relativeTo="margin" w:alignment="right" w:leader="none"/><w:t>ptab</w:t><w:cr/><w:t>cr</w:t></w:r></w:p>',
        f'<w:p {W}><w:r><w:t>a</w:t><w:br w:type="page"/><w:t>b</w:t><w:br w:type="column"/><w:t>c</w:t><w:br w:type="textWrapping"/><w:t>d</w:t><w:br w:type="bogus"/><w:t>e</w:t></w:r></w:p>',
        f'<w:p {W}><w:customXml w:element="x"><w:r><w:t>custom</w:t></w:r></w:customXml><w:r><w:t>visible</w:t></w:r></w:p>',
        f'<w:p {W}><w:r><w:t>{t}<!-- c -->hidden</w:t></w:r></w:p>',
        f'<w:p {W}><w:r><w:t><![CDATA[cdata <x> & y]]></w:t></w:r></w:p>',
        f'<w:p {W}><w:r><w:t>&#x41;&amp;&lt;&#128512;</w:t></w:r></w:p>',
        f'<w:p {W}><w:r><w:t>  </w:t></w:r><w:r><w:t>{t}</w:t></w:r></w:p>',
        f'<w:p {W}><w:r><w:t>two</w:t><w:t>texts</w:t><w:tab/><w:lastRenderedPageBreak/><w:t>x</w:t></w:r></w:p>',
        f'<w:p {W}><w:r><w:rPr><w:vanish/></w:rPr><w:t>hidden but read</w:t></w:r></w:p>',
        f'<w:p {W}><w:bookmarkStart w:id="0" w:name="b"/><w:r><w:t>bm</w:t></w:r><w:bookmarkEnd w:id="0"/><w:commentRangeStart w:id="0"/><w:r><w:t>commented</w:t></w:r><w:commentRangeEnd w:id="0"/></w:p>',
        f'<w:p {W}><w:r><w:t>Before box </w:t></w:r><w:r><mc:AlternateContent xmlns:mc="http://schemas.openxmlformats.org/markup-compatibility/2006"><mc:Choice Requires="wps"><w:drawing/></mc:Choice><mc:Fallback><w:pict><w:p><w:r><w:t>in box</w:t></w:r></w:p></w:pict></mc:Fallback></mc:AlternateContent></w:r><w:r><w:t> after box</w:t></w:r></w:p>',
        f'<w:p {W}><w:r><w:t>\n  spaced  \n</w:t></w:r></w:p>',
        f'<w:p {W}><w:pPr><w:sectPr/></w:pPr><w:r><w:t>section end</w:t></w:r></w:p>',
        f'<w:p {W}><w:r><w:footnoteReference w:id="1"/><w:t>fn</w:t></w:r></w:p>',
        f'<w:p {W}><w:r><w:t>\u0009tab\u0009</w:t></w:r></w:p>',
    ]
    return parse_xml(rnd.choice(choices))

def raw_block(rnd):
    W = nsdecls("w")
    return parse_xml(rnd.choice([
        f'<w:sdt {W}><w:sdtContent><w:p><w:r><w:t>block sdt</w:t></w:r></w:p></w:sdtContent></w:sdt>',
        f'<w:customXml {W} w:element="x"><w:p><w:r><w:t>block custom</w:t></w:r></w:p></w:customXml>',
        f'<w:tbl {W}><w:tblPr/><w:tblGrid><w:gridCol/><w:gridCol/></w:tblGrid><w:tr><w:trPr><w:gridBefore w:val="1"/></w:trPr><w:tc><w:p><w:r><w:t>late</w:t></w:r></w:p></w:tc></w:tr><w:tr><w:tc><w:p><w:r><w:t>a</w:t></w:r></w:p></w:tc><w:tc><w:tcPr><w:vMerge/></w:tcPr><w:p/></w:tc></w:tr></w:tbl>',
        f'<w:tbl {W}><w:tblPr/><w:tblGrid><w:gridCol/></w:tblGrid><w:tr><w:tc><w:tcPr><w:vMerge w:val="restart"/></w:tcPr><w:p><w:r><w:t>top</w:t></w:r></w:p></w:tc></w:tr><w:tr><w:tc><w:tcPr><w:vMerge/></w:tcPr><w:p/></w:tc></w:tr><w:tr><w:tc><w:tcPr><w:vMerge w:val="continue"/></w:tcPr><w:p/></w:tc></w:tr></w:tbl>',
        f'<w:tbl {W}><w:tblPr/><w:tblGrid/><w:tr><w:tc><w:tcPr><w:gridSpan w:val="3"/></w:tcPr><w:p><w:r><w:t>span3</w:t></w:r></w:p></w:tc><w:tc><w:tcPr><w:gridSpan w:val="0"/></w:tcPr><w:p><w:r><w:t>zero</w:t></w:r></w:p></w:tc><w:tc><w:tcPr><w:gridSpan w:val="-1"/></w:tcPr><w:p><w:r><w:t>neg</w:t></w:r></w:p></w:tc></w:tr></w:tbl>',
        f'<w:tbl {W}><w:tblPr/><w:tblGrid/><w:tr><w:tc><w:tcPr><w:gridSpan w:val="2"/></w:tcPr><w:p><w:r><w:t>w</w:t></w:r></w:p></w:tc></w:tr><w:tr><w:tc><w:p/></w:tc><w:tc><w:tcPr><w:vMerge/></w:tcPr><w:p/></w:tc></w:tr></w:tbl>',
        f'<w:tbl {W}><w:tblPr/><w:tblGrid/><w:tr><w:tc><w:p><w:r><w:t>x</w:t></w:r></w:p></w:tc></w:tr><w:tr><w:tc><w:tcPr><w:vMerge/></w:tcPr><w:p/></w:tc></w:tr></w:tbl>',
        f'<w:p {W}/>',
        f'<w:bookmarkStart {W} w:id="5" w:name="x"/>',
    ]))

def build(rnd):
    d = docx.Document()
    body = d.element.body
    for _ in range(rnd.randint(0, 25)):
        r = rnd.random()
        if r < 0.35:
            p = d.add_paragraph(rnd.choice(SPACES) + words(rnd) + rnd.choice(SPACES))
            if rnd.random() < 0.3:
                run = p.add_run(words(rnd, 2))
                run.add_break(rnd.choice([WD_BREAK.LINE, WD_BREAK.PAGE, WD_BREAK.COLUMN]))
                run.add_text("\t" + words(rnd, 2))
        elif r < 0.45:
            d.add_heading(words(rnd, 3), level=rnd.randint(0, 4))
        elif r < 0.6:
            rows, cols = rnd.randint(1, 5), rnd.randint(1, 4)
            t = d.add_table(rows=rows, cols=cols)
            for row in t.rows:
                for c in row.cells:
                    if rnd.random() < 0.7:
                        c.text = rnd.choice(SPACES) + words(rnd, rnd.randint(0, 3)) + rnd.choice(SPACES)
                    if rnd.random() < 0.15:
                        c.add_paragraph(words(rnd, 2))
            for _ in range(rnd.randint(0, 2)):
                try:
                    a = t.cell(rnd.randrange(rows), rnd.randrange(cols)); b = t.cell(rnd.randrange(rows), rnd.randrange(cols))
                    a.merge(b)
                except Exception:
                    pass
            if rnd.random() < 0.2:
                t.cell(0, 0).add_table(rows=2, cols=2).cell(0, 0).text = "nested"
        elif r < 0.85:
            body.append(raw_para(rnd))
        elif r < 0.95:
            body.append(raw_block(rnd))
        else:
            d.add_section()
            d.sections[-1].header.paragraphs[0].text = "header " + words(rnd, 2)
    if rnd.random() < 0.2:
        try:
            d.add_comment(d.paragraphs[0].runs, text="a comment") if d.paragraphs and d.paragraphs[0].runs else None
        except Exception:
            pass
    # sectPr must stay last
    sect = body.find(qn("w:sectPr"))
    if sect is not None:
        body.remove(sect); body.append(sect)
    buf = io.BytesIO(); d.save(buf); return buf.getvalue()

def main():
    out, n, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    rnd = random.Random(seed)
    for i in range(n):
        data = build(rnd)
        lim = rnd.choice(["", "", "", "@200", "@1000", "@3000", "@50"])
        open(os.path.join(out, f"g{seed}_{i}{lim}.docx"), "wb").write(data)

main()
