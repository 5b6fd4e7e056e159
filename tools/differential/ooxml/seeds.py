import os, sys
import zipfile, io
W='xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"'
CT='<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/><Override PartName="/ppt/presentation.xml" ContentType="application/vnd.openxmlformats-officedocument.presentationml.presentation.main+xml"/><Override PartName="/ppt/slides/slide1.xml" ContentType="application/vnd.openxmlformats-officedocument.presentationml.slide+xml"/></Types>'
def rels(t): return '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="%s"/></Relationships>' % t
def docx(body, method=zipfile.ZIP_DEFLATED, pre=''):
    b=io.BytesIO()
    with zipfile.ZipFile(b,'w',method) as z:
        z.writestr('[Content_Types].xml',CT); z.writestr('_rels/.rels',rels('word/document.xml'))
        z.writestr('word/document.xml', pre+'<w:document %s><w:body>%s</w:body></w:document>'%(W,body))
    return b.getvalue()
P='xmlns:p="http://schemas.openxmlformats.org/presentationml/2006/main" xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"'
def pptx(tree, method=zipfile.ZIP_DEFLATED):
    b=io.BytesIO()
    with zipfile.ZipFile(b,'w',method) as z:
        z.writestr('[Content_Types].xml',CT); z.writestr('_rels/.rels',rels('ppt/presentation.xml'))
        z.writestr('ppt/presentation.xml','<p:presentation %s><p:sldIdLst><p:sldId id="256" r:id="rId2"/></p:sldIdLst></p:presentation>'%P)
        z.writestr('ppt/_rels/presentation.xml.rels','<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId2" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/slide" Target="slides/slide1.xml"/></Relationships>')
        z.writestr('ppt/slides/slide1.xml','<p:sld %s><p:cSld><p:spTree>%s</p:spTree></p:cSld></p:sld>'%(P,tree))
    return b.getvalue()
tc=lambda pr,t:'<w:tc><w:tcPr>%s</w:tcPr><w:p><w:r><w:t>%s</w:t></w:r></w:p></w:tc>'%(pr,t)
seeds={
 'docx': {
  'runs': docx('<w:p><w:r><w:t xml:space="preserve"> a </w:t><w:tab/><w:br/><w:cr/><w:noBreakHyphen/><w:ptab/></w:r><w:hyperlink><w:r><w:t>h</w:t></w:r></w:hyperlink><w:ins><w:r><w:t>i</w:t></w:r></w:ins></w:p><w:sdt><w:sdtContent><w:p/></w:sdtContent></w:sdt>'),
  'merged': docx('<w:tbl><w:tr>%s%s</w:tr><w:tr><w:trPr><w:gridBefore w:val="1"/></w:trPr>%s</w:tr><w:tr>%s%s</w:tr></w:tbl>'%(tc('<w:gridSpan w:val="2"/>','w'),tc('<w:vMerge w:val="restart"/>','t'),tc('','x'),tc('','y'),tc('<w:vMerge/>',''))),
  'dtd': docx('<w:p><w:r><w:t>a&e;b</w:t></w:r></w:p>', pre='<?xml version="1.0"?><!DOCTYPE w:document [<!ENTITY e "x">]>'),
  'lzma': docx('<w:p><w:r><w:t>lzma</w:t></w:r></w:p>', zipfile.ZIP_LZMA),
 },
 'pptx': {
  'shapes': pptx('<p:sp><p:nvSpPr><p:cNvPr id="2" name="t"/><p:cNvSpPr/><p:nvPr><p:ph type="title"/></p:nvPr></p:nvSpPr><p:spPr/><p:txBody><a:bodyPr/><a:p><a:r><a:t>T</a:t></a:r><a:br/><a:fld id="{1}" type="slidenum"><a:t>1</a:t></a:fld></a:p></p:txBody></p:sp><p:grpSp><p:sp><p:txBody><a:p><a:r><a:t>g</a:t></a:r></a:p></p:txBody></p:sp></p:grpSp>'),
  'table': pptx('<p:graphicFrame><a:graphic><a:graphicData uri="http://schemas.openxmlformats.org/drawingml/2006/table"><a:tbl><a:tr><a:tc><a:txBody><a:p><a:r><a:t> a </a:t></a:r></a:p></a:txBody></a:tc><a:tc/></a:tr></a:tbl></a:graphicData></a:graphic></p:graphicFrame>'),
  'contentpart': pptx('<p:contentPart r:id="rId9"/>'),
  'lzma': pptx('<p:sp><p:txBody><a:p><a:r><a:t>z</a:t></a:r></a:p></p:txBody></p:sp>', zipfile.ZIP_LZMA),
 }}
if __name__ == '__main__':
  for fmt, d in seeds.items():
    for name, data in d.items():
        open(os.path.join(sys.argv[1], f'document_{fmt}', f'ooxml-{name}'),'wb').write(data)
