import zipfile, io, os, sys
exec(open(os.path.join(os.path.dirname(os.path.abspath(__file__)), 'zip_variants.py')).read().split("d0=[")[0].split("OUT=")[0])
exec("DOC=" + open(os.path.join(os.path.dirname(os.path.abspath(__file__)), 'zip_variants.py')).read().split("DOC=")[1].split("\nd0=")[0])
OUT=sys.argv[1]
def pk(items):
    b=io.BytesIO()
    with zipfile.ZipFile(b,'w',zipfile.ZIP_DEFLATED) as z:
        for n,d in items: z.writestr(n,d)
    return b.getvalue()
RT='http://schemas.openxmlformats.org/officeDocument/2006/relationships/'
def R(*rels): return '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'+''.join(rels)+'</Relationships>'
def rel(i,t,target,mode=None,**kw):
    a=''
    if i is not None: a+=f' Id="{i}"'
    if t is not None: a+=f' Type="{RT}{t}"'
    if target is not None: a+=f' Target="{target}"'
    if mode is not None: a+=f' TargetMode="{mode}"'
    return f'<Relationship{a}/>'
CTX='<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/>%s</Types>'
def ov(p,c): return f'<Override PartName="{p}" ContentType="{c}"/>' if c is not None else f'<Override PartName="{p}"/>'
MAIN='application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml'
STY='application/vnd.openxmlformats-officedocument.wordprocessingml.styles+xml'
PMAIN='application/vnd.openxmlformats-officedocument.presentationml.presentation.main+xml'
SL='application/vnd.openxmlformats-officedocument.presentationml.slide+xml'
LAY='application/vnd.openxmlformats-officedocument.presentationml.slideLayout+xml'
v={}
def d(name, ct, rels, extra=(), doc=DOC, docname='word/document.xml'):
    v[name+'.docx']=pk([('[Content_Types].xml',CTX%ct),('_rels/.rels',rels),(docname,doc)]+list(extra))
ctm=ov('/word/document.xml',MAIN)
d('ok',ctm,R(rel('rId1','officeDocument','word/document.xml')))
d('two_main',ctm,R(rel('rId1','officeDocument','word/document.xml'),rel('rId2','officeDocument','word/document.xml')))
d('same_id_last_other',ctm,R(rel('rId1','officeDocument','word/document.xml'),rel('rId1','styles','word/document.xml')))
d('same_id_last_main',ctm,R(rel('rId1','styles','word/document.xml'),rel('rId1','officeDocument','word/document.xml')))
d('main_external',ctm,R(rel('rId1','officeDocument','word/document.xml','External')))
d('main_external_lower',ctm,R(rel('rId1','officeDocument','word/document.xml','external')))
for k,tg in enumerate(['./word/document.xml','/word/document.xml','word//document.xml','word/../word/document.xml','%77ord/document.xml','WORD/document.xml','word/document.xml#x','../word/document.xml']):
    d(f'target{k}',ctm,R(rel('rId1','officeDocument',tg)))
d('ct_case',ov('/WORD/Document.XML',MAIN),R(rel('rId1','officeDocument','word/document.xml')))
d('ct_default',f'<Default Extension="XmL" ContentType="{MAIN}"/>',R(rel('rId1','officeDocument','word/document.xml')))
d('ct_no_type',ov('/word/document.xml',None),R(rel('rId1','officeDocument','word/document.xml')))
d('ct_no_partname',ctm+'<Override ContentType="x"/>',R(rel('rId1','officeDocument','word/document.xml')))
d('ct_no_ext',ctm+'<Default ContentType="x"/>',R(rel('rId1','officeDocument','word/document.xml')))
d('ct_none_for_part','<Override PartName="/word/document.xml" ContentType="%s"/>'%MAIN,R(rel('rId1','officeDocument','word/document.xml'),rel('rId2','x','word/thing.bin')),[('word/thing.bin',b'x')])
d('rel_no_target',ctm,R(rel('rId1','officeDocument','word/document.xml'),rel('rId2','x',None)))
d('rel_ext_no_target',ctm,R(rel('rId1','officeDocument','word/document.xml'),rel('rId2','x',None,'External')))
d('rel_no_id',ctm,R(rel(None,'officeDocument','word/document.xml')))
d('rel_no_type',ctm,R(rel('rId1','officeDocument','word/document.xml'),rel('rId2',None,'word/document.xml')))
d('missing_target',ctm,R(rel('rId1','officeDocument','word/document.xml'),rel('rId2','x','word/none.xml')))
d('broken_styles',ctm+ov('/word/styles.xml',STY),R(rel('rId1','officeDocument','word/document.xml')),[('word/_rels/document.xml.rels',R(rel('rId1','styles','styles.xml'))),('word/styles.xml','<broken')])
d('broken_styles_as_image',ctm+ov('/word/styles.xml',STY),R(rel('rId1','officeDocument','word/document.xml')),[('word/_rels/document.xml.rels',R(rel('rId1','image','styles.xml'))),('word/styles.xml','<broken')])
d('broken_unreached',ctm,R(rel('rId1','officeDocument','word/document.xml')),[('word/styles.xml','<broken'),('word/_rels/styles.xml.rels','<broken')])
d('broken_ct_root',ctm.replace('',''),R(rel('rId1','officeDocument','word/document.xml')))
v['broken_ct_root.docx']=pk([('[Content_Types].xml','<Types xmlns="urn:x"/>'),('_rels/.rels',R(rel('rId1','officeDocument','word/document.xml'))),('word/document.xml',DOC)])
d('rels_root',ctm,'<Relationships/>')
d('doc_image_first',ctm,R(rel('rId0','image','word/document.xml'),rel('rId1','officeDocument','word/document.xml')))
d('self_loop',ctm,R(rel('rId1','officeDocument','word/document.xml')),[('word/_rels/document.xml.rels',R(rel('rId1','x','document.xml'),rel('rId2','x','../[Content_Types].xml')))])
d('no_body',ctm,R(rel('rId1','officeDocument','word/document.xml')),doc='<w:document %s/>'%W)
d('body_not_first',ctm,R(rel('rId1','officeDocument','word/document.xml')),doc='<w:document %s><w:background/><w:body><w:p><w:r><w:t>x</w:t></w:r></w:p></w:body><w:body><w:p><w:r><w:t>y</w:t></w:r></w:p></w:body></w:document>'%W)
d('wrong_root',ctm,R(rel('rId1','officeDocument','word/document.xml')),doc='<w:body %s/>'%W)
d('strict_ns',ctm,R(rel('rId1','officeDocument','word/document.xml')),doc=DOC.replace('http://schemas.openxmlformats.org/wordprocessingml/2006/main','http://purl.oclc.org/ooxml/wordprocessingml/main'))
d('docm',ov('/word/document.xml','application/vnd.ms-word.document.macroEnabled.main+xml'),R(rel('rId1','officeDocument','word/document.xml')))
# pptx
PRELS=lambda *r: ('ppt/_rels/presentation.xml.rels', R(*r))
def p(name, sld_list, prels, ct=None, extra=(), main_ct=PMAIN, prs=None):
    ct = ct if ct is not None else ov('/ppt/presentation.xml',main_ct)+ov('/ppt/slides/slide1.xml',SL)+ov('/ppt/slides/slide2.xml',SL)+ov('/ppt/slideLayouts/slideLayout1.xml',LAY)
    prs = prs or '<p:presentation %s>%s</p:presentation>'%(P, sld_list)
    v[name+'.pptx']=pk([('[Content_Types].xml',CTX%ct),('_rels/.rels',R(rel('rId1','officeDocument','ppt/presentation.xml'))),('ppt/presentation.xml',prs),prels,('ppt/slides/slide1.xml',SLD),('ppt/slides/slide2.xml',SLD.replace('>s<','>two<')),('ppt/slideLayouts/slideLayout1.xml',SLD.replace('p:sld ','p:sldLayout ').replace('</p:sld>','</p:sldLayout>'))]+list(extra))
S='<p:sldIdLst>%s</p:sldIdLst>'
sid=lambda r: f'<p:sldId id="256" r:id="{r}"/>'
std=PRELS(rel('rId2','slide','slides/slide1.xml'),rel('rId3','slide','slides/slide2.xml'),rel('rId4','slideLayout','slideLayouts/slideLayout1.xml'),rel('rId5','hyperlink','http://x','External'),rel('rId6','slide','slides/none.xml'))
p('ok',S%(sid('rId2')+sid('rId3')),std)
p('twice',S%(sid('rId3')+sid('rId3')+sid('rId2')),std)
p('no_list','',std)
p('empty_list',S%'',std)
p('rid_missing',S%('<p:sldId id="256"/>'),std)
p('rid_unknown',S%sid('rId9'),std)
p('rid_layout',S%sid('rId4'),std)
p('rid_external',S%sid('rId5'),std)
p('rid_absent_part',S%sid('rId6'),std)
p('extlst',S%(sid('rId2')+'<p:extLst/>'),std)
p('comment',S%(sid('rId2')+'<!--c-->'),std)
p('master_in_list',S%(sid('rId2')+'<p:sldMasterId id="1" r:id="rId3"/>'),std)
p('master_in_list_bad',S%(sid('rId2')+'<p:sldMasterId id="1" r:id="rId9"/>'),std)
p('macro',S%sid('rId2'),std,main_ct='application/vnd.ms-powerpoint.presentation.macroEnabled.main+xml')
p('slideshow',S%sid('rId2'),std,main_ct='application/vnd.openxmlformats-officedocument.presentationml.slideshow.main+xml')
p('template',S%sid('rId2'),std,main_ct='application/vnd.openxmlformats-officedocument.presentationml.template.main+xml')
p('mode_lower',S%sid('rId2'),PRELS(rel('rId2','slide','slides/slide1.xml','internal')))
p('mode_lower_missing',S%sid('rId2'),PRELS(rel('rId2','slide','slides/slide1.xml'),rel('rId7','x','nothere.xml','internal')))
p('rel_no_id',S%sid('rId2'),PRELS(rel('rId2','slide','slides/slide1.xml'),rel(None,'x','slides/slide2.xml')))
p('rel_no_id_absent',S%sid('rId2'),PRELS(rel('rId2','slide','slides/slide1.xml'),rel(None,'x','slides/none.xml')))
p('rel_no_target_ext',S%sid('rId2'),PRELS(rel('rId2','slide','slides/slide1.xml'),rel('rId8','x',None,'External')))
p('dup_rid',S%sid('rId2'),PRELS(rel('rId2','slide','slides/slide1.xml'),rel('rId2','slide','slides/slide2.xml')))
p('ct_missing_unreached',S%sid('rId2'),std,extra=[('ppt/media/x.bin',b'x')])
p('ct_missing_reached',S%sid('rId2'),PRELS(rel('rId2','slide','slides/slide1.xml'),rel('rId3','x','media/x.bin')),extra=[('ppt/media/x.bin',b'x')])
p('broken_rels_absent',S%sid('rId2'),std,extra=[('ppt/slides/_rels/none.xml.rels','<broken')])
p('broken_rels_unreached',S%sid('rId2'),std,extra=[('ppt/slides/_rels/zzz.xml.rels','<broken')])
p('broken_layout',S%sid('rId2'),std,extra=[])
p('bad_root',S%sid('rId2'),std,prs='<p:presentationX %s/>'%P)
p('slide_root_layout',S%sid('rId2'),std)
p('no_csld',S%sid('rId2'),std)
for k,dat in v.items(): open(os.path.join(OUT,k),'wb').write(dat)
print(len(v))
