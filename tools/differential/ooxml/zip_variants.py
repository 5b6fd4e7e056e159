import zipfile, io, struct, os, sys

exec(open(os.path.join(os.path.dirname(os.path.abspath(__file__)), 'seeds.py')).read().split('tc=lambda')[0])
OUT=sys.argv[1]
def pk(items, method=zipfile.ZIP_DEFLATED, **kw):
    b=io.BytesIO()
    with zipfile.ZipFile(b,'w',method) as z:
        for it in items:
            n,d=it[0],it[1]
            m=it[2] if len(it)>2 else method
            zi=zipfile.ZipInfo(n); zi.compress_type=m
            z.writestr(zi,d)
    return b.getvalue()
DOC='<w:document %s><w:body><w:p><w:r><w:t>hello</w:t></w:r></w:p></w:body></w:document>'%W
BAD='<w:document %s><w:body><w:p>'%W
SLD='<p:sld %s><p:cSld><p:spTree><p:sp><p:txBody><a:p><a:r><a:t>s</a:t></a:r></a:p></p:txBody></p:sp></p:spTree></p:cSld></p:sld>'%P
PRS='<p:presentation %s><p:sldIdLst><p:sldId id="256" r:id="rId2"/></p:sldIdLst></p:presentation>'%P
PRELS='<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId2" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/slide" Target="slides/slide1.xml"/></Relationships>'
d0=[('[Content_Types].xml',CT),('_rels/.rels',rels('word/document.xml'))]
p0=[('[Content_Types].xml',CT),('_rels/.rels',rels('ppt/presentation.xml')),('ppt/presentation.xml',PRS),('ppt/_rels/presentation.xml.rels',PRELS)]
v={}
v['dup_bad_first.docx']=pk(d0+[('word/document.xml',BAD),('word/document.xml',DOC)])
v['dup_good_first.docx']=pk(d0+[('word/document.xml',DOC),('word/document.xml',BAD)])
v['dup_bad_first.pptx']=pk(p0+[('ppt/slides/slide1.xml',SLD.replace('<a:t>s','<a:t>x<')),('ppt/slides/slide1.xml',SLD)])
v['dup_good_first.pptx']=pk(p0+[('ppt/slides/slide1.xml',SLD),('ppt/slides/slide1.xml',SLD.replace('<a:t>s','<a:t>x<'))])
v['leading_slash.docx']=pk(d0+[('/word/document.xml',DOC)])
v['leading_slash.pptx']=pk(p0[:2]+[('/ppt/presentation.xml',PRS)]+p0[3:]+[('ppt/slides/slide1.xml',SLD)])
v['backslash.docx']=pk(d0+[('word\\document.xml',DOC)])
good_d=pk(d0+[('word/document.xml',DOC)]); good_p=pk(p0+[('ppt/slides/slide1.xml',SLD)])
v['prefixed.docx']=b'MZ'+b'\0'*500+good_d
v['prefixed.pptx']=b'#!/bin/sh\n'+good_p
v['trailing.docx']=good_d+b'garbage'*10
v['stored.pptx']=pk(p0+[('ppt/slides/slide1.xml',SLD)],zipfile.ZIP_STORED)
v['bzip2.docx']=pk(d0+[('word/document.xml',DOC)],zipfile.ZIP_BZIP2)
v['bzip2_unread.docx']=pk(d0+[('word/document.xml',DOC),('word/media/x.bin',b'abc',zipfile.ZIP_BZIP2)])
v['bzip2_unread.pptx']=pk(p0+[('ppt/slides/slide1.xml',SLD),('ppt/media/x.bin',b'abc',zipfile.ZIP_BZIP2)])
v['dirs.docx']=pk([('word/',b'')]+d0+[('word/document.xml',DOC)])
v['empty.docx']=pk([]); v['empty.pptx']=pk([])
# corrupt CRC of an unreferenced member
def corrupt_crc(data, name):
    data=bytearray(data); i=data.find(b'PK\x01\x02')
    while i>=0:
        nlen=struct.unpack('<H',data[i+28:i+30])[0]
        if data[i+46:i+46+nlen]==name.encode(): data[i+16]^=0xFF
        i=data.find(b'PK\x01\x02',i+4)
    return bytes(data)
v['badcrc_unread.docx']=corrupt_crc(pk(d0+[('word/document.xml',DOC),('junk.bin',b'x'*100)]),'junk.bin')
v['badcrc_unread.pptx']=corrupt_crc(pk(p0+[('ppt/slides/slide1.xml',SLD),('junk.bin',b'x'*100)]),'junk.bin')
v['badxml_unread.docx']=pk(d0+[('word/document.xml',DOC),('word/styles.xml',b'<broken')])
v['badxml_unread.pptx']=pk(p0+[('ppt/slides/slide1.xml',SLD),('ppt/slides/slide2.xml',b'<broken')])
# encrypted flag
def encflag(data):
    data=bytearray(data)
    for sig,off in ((b'PK\x01\x02',8),(b'PK\x03\x04',6)):
        i=data.find(sig)
        while i>=0:
            data[i+off]|=1; i=data.find(sig,i+4)
    return bytes(data)
v['encrypted.docx']=encflag(good_d)
b=io.BytesIO()
with zipfile.ZipFile(b,'w',zipfile.ZIP_DEFLATED) as z:
    for n,d in d0+[('word/document.xml',DOC)]:
        with z.open(n,'w',force_zip64=True) as f: f.write(d.encode() if isinstance(d,str) else d)
v['zip64.docx']=b.getvalue()
v['comment.docx']=good_d[:-2]+struct.pack('<H',5)+b'hello'
for k,d in v.items(): open(os.path.join(OUT,k),'wb').write(d)
