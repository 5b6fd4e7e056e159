"""Grammar-built document.xml / slide XML inside real packages: python gen_struct.py OUTDIR N SEED"""
import io, os, random, sys, zipfile
import docx, pptx
W = 'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"'
TXT = ["a", " b ", "  ", "", "\t", "会议", "x y", "\u3000", "&amp;", "&#32;", "&#x20;&#x20;", "<![CDATA[ c ]]>", "<!--k-->", "<?p q?>", " <!--k--> ", "&lt;&gt;", "é", "\r\n", " \r\n ", "\n", "&#10;", "🚀"]
VALS = ["2", "1", "0", "-1", " 3 ", "+2", "1_0", "٢", "x", "", "4000"]

def t(rnd):
    attrs = rnd.choice(["", "", ' xml:space="preserve"', ' xml:space="default"'])
    inner = "".join(rnd.choice(TXT) for _ in range(rnd.randint(0, 3)))
    if rnd.random() < 0.1:
        inner += "<w:x/>" + rnd.choice(TXT)
    return f"<w:t{attrs}>{inner}</w:t>" if rnd.random() < 0.9 else f"<w:t{attrs}/>"

def run(rnd):
    parts = []
    for _ in range(rnd.randint(0, 4)):
        parts.append(rnd.choice([t(rnd), t(rnd), "<w:tab/>", "<w:br/>", '<w:br w:type="page"/>', '<w:br w:type="textWrapping"/>', '<w:br w:type="x"/>', "<w:cr/>", "<w:noBreakHyphen/>", "<w:softHyphen/>", '<w:sym w:char="F04A"/>', "<w:ptab/>", "<w:rPr><w:b/></w:rPr>", "<w:lastRenderedPageBreak/>", "<w:delText>d</w:delText>", "<w:instrText>i</w:instrText>", "<w:drawing/>", " ", "<!--c-->"]))
    return "<w:r>" + "".join(parts) + "</w:r>"

def para(rnd, depth=0):
    parts = []
    for _ in range(rnd.randint(0, 4)):
        k = rnd.random()
        if k < 0.5:
            parts.append(run(rnd))
        elif k < 0.6:
            parts.append("<w:hyperlink>" + "".join(run(rnd) for _ in range(rnd.randint(0, 2))) + t(rnd).replace("w:t", "w:t") + "</w:hyperlink>")
        elif k < 0.7:
            parts.append(rnd.choice(["<w:ins>", "<w:smartTag>", "<w:fldSimple>", "<w:customXml>", "<w:sdt><w:sdtContent>"]) + run(rnd) + "</w:x>")
        elif k < 0.75:
            parts.append("<w:pPr><w:pStyle w:val=\"Heading1\"/></w:pPr>")
        else:
            parts.append(rnd.choice(["<w:bookmarkStart/>", "<w:proofErr/>", "<!--c-->", "<?pi?>", " ", "<w:t>direct</w:t>"]))
    body = "".join(parts)
    # fix closing tags of wrappers
    for o, c in (("<w:ins>", "</w:ins>"), ("<w:smartTag>", "</w:smartTag>"), ("<w:fldSimple>", "</w:fldSimple>"), ("<w:customXml>", "</w:customXml>"), ("<w:sdt><w:sdtContent>", "</w:sdtContent></w:sdt>")):
        while o in body and "</w:x>" in body:
            i = body.index(o); j = body.index("</w:x>", i)
            body = body[:i] + o + body[i + len(o):j] + c + body[j + 6:]
            break
    body = body.replace("</w:x>", "")
    return "<w:p>" + body + "</w:p>"

def tc(rnd, depth):
    pr = []
    if rnd.random() < 0.4:
        pr.append(f'<w:gridSpan w:val="{rnd.choice(VALS)}"/>' if rnd.random() < 0.9 else "<w:gridSpan/>")
    if rnd.random() < 0.4:
        pr.append(rnd.choice(["<w:vMerge/>", '<w:vMerge w:val="restart"/>', '<w:vMerge w:val="continue"/>', '<w:vMerge w:val="other"/>']))
    rnd.shuffle(pr)
    content = "".join(para(rnd) for _ in range(rnd.randint(0, 2)))
    if depth < 2 and rnd.random() < 0.1:
        content += table(rnd, depth + 1) + "<w:p/>"
    return "<w:tc>" + (f"<w:tcPr>{''.join(pr)}</w:tcPr>" if pr or rnd.random() < 0.3 else "") + content + "</w:tc>"

def table(rnd, depth=0):
    rows = []
    for _ in range(rnd.randint(0, 5)):
        trpr = f'<w:trPr><w:gridBefore w:val="{rnd.choice(VALS)}"/></w:trPr>' if rnd.random() < 0.2 else ""
        cells = "".join(tc(rnd, depth) for _ in range(rnd.randint(0, 4)))
        if rnd.random() < 0.1:
            cells = "<w:sdt><w:sdtContent>" + cells + "</w:sdtContent></w:sdt>"
        rows.append(f"<w:tr>{trpr}{cells}</w:tr>")
    return "<w:tbl><w:tblPr/><w:tblGrid/>" + "".join(rows) + "</w:tbl>"

def document(rnd):
    blocks = []
    for _ in range(rnd.randint(0, 15)):
        k = rnd.random()
        blocks.append(para(rnd) if k < 0.55 else table(rnd) if k < 0.85 else rnd.choice(["<w:sdt><w:sdtContent>" + para(rnd) + "</w:sdtContent></w:sdt>", "<w:sectPr/>", "<!--c-->", "<w:customXml>" + table(rnd) + "</w:customXml>", " \n "]))
    return f'<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<w:document {W}><w:body>{"".join(blocks)}</w:body></w:document>'

P = 'xmlns:p="http://schemas.openxmlformats.org/presentationml/2006/main" xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"'
ATXT = [s.replace("w:", "a:") for s in TXT]

def apara(rnd):
    parts = []
    for _ in range(rnd.randint(0, 4)):
        inner = "".join(rnd.choice(ATXT) for _ in range(rnd.randint(0, 3)))
        parts.append(rnd.choice([f"<a:r><a:rPr/><a:t>{inner}</a:t></a:r>", f"<a:r><a:t>{inner}</a:t></a:r>", "<a:br/>", f"<a:fld><a:t>{inner}</a:t></a:fld>", "<a:fld/>", "<a:pPr/>", "<a:endParaRPr/>", "<!--c-->", f"<a:r><a:t>{inner}</a:t><a:t>second</a:t></a:r>"]))
    return "<a:p>" + "".join(parts) + "</a:p>"

def sp(rnd):
    ph = ""
    if rnd.random() < 0.4:
        ph = '<p:ph type="%s"/>' % rnd.choice(["title", "body", "ctrTitle", "subTitle", "obj", "pic", "tbl", "chart", "dt", "sldNum", "ftr", "hdr"]) if rnd.random() < 0.95 else '<p:ph type="vertTitle"/>'
    nv = f'<p:nvSpPr><p:cNvPr id="2" name="s"/><p:cNvSpPr/><p:nvPr>{ph}</p:nvPr></p:nvSpPr>' if rnd.random() < 0.9 else ""
    body = "<p:txBody><a:bodyPr/>" + "".join(apara(rnd) for _ in range(rnd.randint(0, 3))) + "</p:txBody>" if rnd.random() < 0.85 else ""
    return f"<p:sp>{nv}<p:spPr/>{body}</p:sp>"

def frame(rnd):
    rows = "".join("<a:tr>" + "".join(f"<a:tc>{'<a:txBody><a:bodyPr/>' + apara(rnd) + apara(rnd) + '</a:txBody>' if rnd.random() < 0.8 else ''}<a:tcPr/></a:tc>" for _ in range(rnd.randint(0, 3))) + "</a:tr>" for _ in range(rnd.randint(0, 3)))
    uri = rnd.choice(["http://schemas.openxmlformats.org/drawingml/2006/table"] * 4 + ["http://schemas.openxmlformats.org/drawingml/2006/chart"])
    return f'<p:graphicFrame><p:nvGraphicFramePr><p:cNvPr id="3" name="f"/><p:cNvGraphicFramePr/><p:nvPr/></p:nvGraphicFramePr><p:xfrm/><a:graphic><a:graphicData uri="{uri}"><a:tbl><a:tblGrid/>{rows}</a:tbl></a:graphicData></a:graphic></p:graphicFrame>'

def slide(rnd):
    shapes = []
    for _ in range(rnd.randint(0, 6)):
        k = rnd.random()
        shapes.append(sp(rnd) if k < 0.6 else frame(rnd) if k < 0.8 else rnd.choice(["<p:grpSp>" + sp(rnd) + "</p:grpSp>", "<p:cxnSp/>", "<p:pic><p:nvPicPr/></p:pic>", "<!--c-->", "<p:extLst/>"]))
    return f'<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<p:sld {P}><p:cSld><p:spTree><p:nvGrpSpPr/><p:grpSpPr/>{"".join(shapes)}</p:spTree></p:cSld></p:sld>'

def repack(data, replace):
    zin = zipfile.ZipFile(io.BytesIO(data)); buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        for i in zin.infolist():
            z.writestr(i.filename, replace.get(i.filename, zin.read(i.filename)))
    return buf.getvalue()

def main():
    out, n, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    rnd = random.Random(seed)
    b = io.BytesIO(); docx.Document().save(b); dtemplate = b.getvalue()
    prs = pptx.Presentation()
    for _ in range(3):
        prs.slides.add_slide(prs.slide_layouts[6])
    b = io.BytesIO(); prs.save(b); ptemplate = b.getvalue()
    for i in range(n):
        lim = rnd.choice(["", "", "@100", "@500"])
        open(os.path.join(out, f"s{seed}_{i}{lim}.docx"), "wb").write(repack(dtemplate, {"word/document.xml": document(rnd)}))
        open(os.path.join(out, f"t{seed}_{i}{lim}.pptx"), "wb").write(repack(ptemplate, {f"ppt/slides/slide{k}.xml": slide(rnd) for k in (1, 2, 3)}))

main()
