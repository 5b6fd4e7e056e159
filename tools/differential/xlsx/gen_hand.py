import zipfile, os, sys, itertools, random
out = sys.argv[1]; os.makedirs(out, exist_ok=True)
NS = 'http://schemas.openxmlformats.org/spreadsheetml/2006/main'
RNS = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships'
CT_WB = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml'
def content_types(extra='', wb_type=CT_WB, sst=True, styles=True):
    s = '<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/>'
    s += f'<Override PartName="/xl/workbook.xml" ContentType="{wb_type}"/><Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/>'
    if sst: s += '<Override PartName="/xl/sharedStrings.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sharedStrings+xml"/>'
    if styles: s += '<Override PartName="/xl/styles.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.styles+xml"/>'
    return s + extra + '</Types>'
def workbook(sheets='<sheet name="Sheet" sheetId="1" r:id="rId1"/>', pr=''):
    return f'<?xml version="1.0"?><workbook xmlns="{NS}" xmlns:r="{RNS}">{pr}<sheets>{sheets}</sheets></workbook>'
def wb_rels(extra=''):
    return f'<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="{RNS}/worksheet" Target="worksheets/sheet1.xml"/>{extra}</Relationships>'
SST = f'<sst xmlns="{NS}"><si><t>zero</t></si><si><t>one</t></si><si><r><rPr><b/><sz val="11"/><color rgb="FFFF0000"/><rFont val="Calibri"/><family val="2"/><scheme val="minor"/></rPr><t>rich</t></r><r><t xml:space="preserve"> runs</t></r></si><si><t>ph</t><rPh sb="0" eb="1"><t>ふ</t></rPh><phoneticPr fontId="1" type="noConversion"/></si><si><t>_x005F_x000D_ esc</t></si><si><t/></si></sst>'
STYLES = f'<styleSheet xmlns="{NS}"><numFmts count="5"><numFmt numFmtId="164" formatCode="yyyy-mm-dd"/><numFmt numFmtId="165" formatCode="[h]:mm:ss"/><numFmt numFmtId="166" formatCode="&quot;day&quot; 0"/><numFmt numFmtId="14" formatCode="0.00"/><numFmt numFmtId="167" formatCode="h:mm"/></numFmts><fonts count="1"><font><sz val="11"/><name val="Calibri"/></font></fonts><fills count="2"><fill><patternFill patternType="none"/></fill><fill><patternFill patternType="gray125"/></fill></fills><borders count="1"><border><left/><right/><top/><bottom/><diagonal/></border></borders><cellStyleXfs count="1"><xf numFmtId="0" fontId="0" fillId="0" borderId="0"/></cellStyleXfs><cellXfs count="9"><xf numFmtId="0" fontId="0" fillId="0" borderId="0" xfId="0"/><xf numFmtId="14"/><xf numFmtId="164"/><xf numFmtId="165"/><xf numFmtId="166"/><xf numFmtId="21"/><xf numFmtId="46"/><xf numFmtId="30"/><xf numFmtId="167"/></cellXfs><cellStyles count="1"><cellStyle name="Normal" xfId="0" builtinId="0"/></cellStyles></styleSheet>'
def sheet(data, head='', tail=''):
    return f'<?xml version="1.0" encoding="UTF-8" standalone="yes"?><worksheet xmlns="{NS}" xmlns:r="{RNS}">{head}<sheetData>{data}</sheetData>{tail}</worksheet>'
def book(name, sheet_xml, ct=None, wb=None, rels=None, sst=SST, styles=STYLES, extra=()):
    with zipfile.ZipFile(os.path.join(out, name + '.xlsx'), 'w', zipfile.ZIP_DEFLATED) as z:
        z.writestr('[Content_Types].xml', ct if ct is not None else content_types(sst=sst is not None, styles=styles is not None))
        z.writestr('_rels/.rels', f'<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="{RNS}/officeDocument" Target="xl/workbook.xml"/></Relationships>')
        z.writestr('xl/workbook.xml', wb if wb is not None else workbook())
        if rels is not False: z.writestr('xl/_rels/workbook.xml.rels', rels or wb_rels())
        if sheet_xml is not None: z.writestr('xl/worksheets/sheet1.xml', sheet_xml)
        if sst is not None: z.writestr('xl/sharedStrings.xml', sst)
        if styles is not None: z.writestr('xl/styles.xml', styles)
        for n, d in extra: z.writestr(n, d)
def c(r, v, t=None, s=None, f=None, extra=''):
    a = f' r="{r}"' if r else ''
    if t: a += f' t="{t}"'
    if s is not None: a += f' s="{s}"'
    inner = (f if f is not None else '') + (f'<v>{v}</v>' if v is not None else '') + extra
    return f'<c{a}>{inner}</c>'
cells = {
 # numbers
 'num_variants': ''.join(f'<row r="{i+1}">{c(f"A{i+1}", v)}</row>' for i, v in enumerate(['1', '1.0', '1e5', '1E-3', ' 7 ', '1_000', '-0', '0012', '3.14', '1e400', '-1e400', '12345678901234567890123', '2.5e-308', '4.9e-324', '0.1', '100.0', '1e16', '1e15']) ),
 'num_bad_inf': '<row r="1">' + c('A1', 'inf') + '</row>',
 'num_bad_text': '<row r="1">' + c('A1', 'abc') + '</row>',
 'num_empty_v': '<row r="1">' + c('A1', '') + c('B1', 'x', 'str') + '</row>',
 'num_huge_digits': '<row r="1">' + c('A1', '9' * 4301) + '</row>',
 'num_ok_digits': '<row r="1">' + c('A1', '9' * 400) + '</row>',
 # types
 'types': '<row r="1">' + c('A1', 'txt', 'str') + c('B1', '#DIV/0!', 'e') + c('C1', '1', 'b') + c('D1', '0', 'b') + c('E1', '2', 'b') + c('F1', 'whatever', 'zz') + c('G1', '2', 's') + c('H1', '-1', 's') + '</row>',
 'bool_bad': '<row r="1">' + c('A1', 'true', 'b') + '</row>',
 'sst_out_of_range': '<row r="1">' + c('A1', '99', 's') + '</row>',
 'sst_negative_big': '<row r="1">' + c('A1', '-7', 's') + '</row>',
 'iso_dates': '<row r="1">' + ''.join(c(f'{L}1', v, 'd') for L, v in zip('ABCDEFGHIJ', ['2024-01-02T03:04:05', '2024-01-02', '10:11:12', '2024-01-02T03:04:05.123Z', 'PT1H2M3S', 'PT1.5S', '2024-02-29T00:00', '10:11', '2024-01-02 junk', 'PT90M'])) + '</row>',
 'iso_bad': '<row r="1">' + c('A1', 'nonsense', 'd') + '</row>',
 'iso_bad_month': '<row r="1">' + c('A1', '2024-13-01', 'd') + '</row>',
 'inline': '<row r="1">' + c('A1', None, 'inlineStr', extra='<is><t>inline</t></is>') + c('B1', 'ignored', 'inlineStr', extra='<is><r><t>a</t></r><r><rPr><i/></rPr><t>b</t></r></is>') + c('C1', None, 'inlineStr') + c('D1', None, 'inlineStr', extra='<is><t>x</t><t>last</t></is>') + '</row>',
 'inline_bad_attr': '<row r="1">' + c('A1', None, 'inlineStr', extra='<is foo="1"><t>x</t></is>') + '</row>',
 # dates by style
 'date_styles': '<row r="1">' + ''.join(c(f'{L}1', v, s=s) for L, (v, s) in zip('ABCDEFGHIJKLMN', [('45000', 1), ('45000.5', 2), ('1.25', 3), ('45000', 4), ('0.5', 5), ('2.75', 6), ('45000', 7), ('0', 8), ('60', 2), ('59.999', 2), ('-1', 2), ('3000000', 2), ('1e20', 3), ('-0.5', 3)])) + '</row>',
 'date_style_variants': '<row r="1">' + c('A1', '45000', s='') + c('B1', '45000', s=' 2 ') + c('C1', '45000', s='99') + c('D1', '45000', s='-1') + '</row>',
 'date_style_bad': '<row r="1">' + c('A1', '45000', s='x') + '</row>',
 # coordinates
 'no_refs': '<row>' + c(None, '1') + c(None, '2') + '</row><row>' + c(None, '3') + c('E2', '4') + c(None, '5') + '</row>',
 'rows_out_of_order': '<row r="5">' + c('A5', '5') + '</row><row r="3">' + c('A3', '3') + '</row><row r="5">' + c('A5', '55') + '</row><row r="7">' + c('A7', '7') + '</row><row>' + c(None, '8') + '</row>',
 'cells_out_of_order': '<row r="1">' + c('C1', '3') + c('A1', '1') + c('E1', 'e', 'str') + c('B1', '2') + '</row><row r="2">' + c('B2', '1') + c('B2', '2') + c('D2', None) + '</row><row r="3">' + c('B3', 'x', 'str') + c('B3', None) + c('C3', 'y', 'str') + '</row>',
 'cell_row_mismatch': '<row r="1">' + c('A4', '1') + c('B9', '2') + '</row><row r="2">' + c('A2', '3') + '</row>',
 'row_float_r': '<row r="2.0">' + c(None, '1') + '</row><row r="1e1">' + c(None, '2') + '</row>',
 'row_bad_r': '<row r="x">' + c(None, '1') + '</row>',
 'row_zero_negative': '<row r="0">' + c(None, '1') + '</row><row r="-3">' + c(None, '2') + '</row><row>' + c(None, '3') + '</row>',
 'coord_weird': '<row r="1">' + c('a1', '1') + c('XFD1', '2') + c('A0', '3') + c('A1_0', '4') + '</row>',
 'coord_bad': '<row r="1">' + c('$A$1', '1') + '</row>',
 'coord_zzz': '<row r="1">' + c('ZZZ1', '1') + '</row>',
 'corner': '<row r="1048576">' + c('XFD1048576', 'corner', 'str') + '</row>',
 'big_gap': '<row r="1">' + c('A1', '1') + '</row><row r="1000000">' + c('A1000000', '2') + '</row>',
 'empty_rows': ''.join(f'<row r="{i}" s="1" customFormat="1"/>' for i in range(1, 500)) + '<row r="500">' + c('A500', '1') + '</row>',
 'styled_empty_cells': '<row r="1">' + c('A1', None, s=1) + c('B1', None, s=2) + '</row><row r="2">' + c('C2', '7') + '</row>',
 # formulas
 'formulas': '<row r="1">' + c('A1', '3', f='<f>1+2</f>') + c('B1', 'hi', 'str', f='<f>"h"&amp;"i"</f>') + c('C1', None, f='<f>NOW()</f>') + c('D1', '1', 'b', f='<f>TRUE</f>') + c('E1', '#N/A', 'e', f='<f>NA()</f>') + c('F1', '', 'str', f='<f>""</f>') + c('G1', '45000', s=2, f='<f>TODAY()</f>') + c('H1', '1', f='<f/>') + '</row>',
 'shared_formulas': '<row r="1">' + c('A1', '1') + c('B1', '2', f='<f t="shared" ref="B1:B4" si="0">A1*2+$A$1+SUM(A1:A2)+Sheet2!A1+A:A+1:1</f>') + '</row>' + ''.join(f'<row r="{i}">' + c(f'A{i}', str(i)) + c(f'B{i}', str(i*2), f='<f t="shared" si="0"/>') + '</row>' for i in range(2, 5)) + '<row r="5">' + c('C5', '0', f='<f t="shared" si="0"/>') + '</row>',
 'shared_before_master': '<row r="1">' + c('A1', '1', f='<f t="shared" si="3"/>') + c('B1', '2', f='<f t="shared" si="3" ref="B1:C1">A1+1</f>') + c('C1', '3', f='<f t="shared" si="3"/>') + '</row>',
 'shared_out_of_range': '<row r="2">' + c('B2', '1', f='<f t="shared" si="0" ref="B2:B3">A1</f>') + '</row><row r="3">' + c('A1', '1', f='<f t="shared" si="0"/>') + '</row>',
 'shared_whitespace': '<row r="1">' + c('A1', '1', f='<f t="shared" si="0" ref="A1:A2">SUM( B1 ,  C1 )  +  1</f>') + '</row><row r="2">' + c('A2', '1', f='<f t="shared" si="0"/>') + '</row>',
 'shared_no_r': '<row r="1">' + c('A1', '1', f='<f t="shared" si="0" ref="A1:A2">B1</f>') + '</row><row r="2">' + c(None, '1', f='<f t="shared" si="0"/>') + '</row>',
 'shared_bad_tokens': '<row r="1">' + c('A1', '1', f='<f t="shared" si="0" ref="A1:A2">SUM(B1</f>') + '</row><row r="2">' + c('A2', '1', f='<f t="shared" si="0"/>') + '</row>',
 'shared_unclosed': '<row r="1">' + c('A1', '1', f='<f t="shared" si="0" ref="A1:A2">B1)</f>') + '</row>',
 'array_formulas': '<row r="1">' + c('A1', '2', f='<f t="array" ref="A1:A2">B1:B2*2</f>') + c('B1', '3', f='<f t="array">1</f>') + '</row>',
 'data_table': '<row r="1">' + c('A1', '7', f='<f t="dataTable" ref="A1:A3" dt2D="1" dtr="true" r1="B1" r2="C1" del1="TRUE" del2="0" ca="1"/>') + c('B1', '1', f='<f t="dataTable" ref="B1"/>') + '</row>',
 'data_table_no_ref': '<row r="1">' + c('A1', '7', f='<f t="dataTable"/>') + '</row>',
 'cached_bad_number': '<row r="1">' + c('A1', 'abc', f='<f>1</f>') + '</row>',
 'cached_bad_sst': '<row r="1">' + c('A1', '99', 's', f='<f>1</f>') + '</row>',
 'cached_inline': '<row r="1">' + c('A1', None, 'inlineStr', f='<f>"x"</f>', extra='<is><t>cached inline</t></is>') + '</row>',
 'literal_equals': '<row r="1">' + c('A1', '0', 's') + c('B1', '=A1', 'str') + '</row>',
 'formula_collision': '<row r="1">' + c('A1', '1', f='<f>2</f>') + '</row><row r="2">' + c('A1', '5') + c('B2', '9') + '</row>',
 # text encodings
 'text_specials': '<row r="1">' + c('A1', 'a&amp;b&lt;c&gt;&#10;d&#13;e&#x9;f', 'str') + c('B1', 'x\r\ny', 'str') + c('C1', '<![CDATA[<cd>]]>', 'str') + c('D1', '  spaced  ', 'str') + c('E1', '\u00a0nbsp\u3000', 'str') + '</row>',
 'comment_in_value': '<row r="1">' + c('A1', '1<!-- c -->2') + c('B1', 'a<?pi x?>b', 'str') + '</row>',
 'control_char_ref': '<row r="1">' + c('A1', 'a&#1;b', 'str') + '</row>',
 'nested_v': '<row r="1">' + '<c r="A1"><v>1<x/>2</v></c>' + '<c r="B1" t="str"><v>first</v><v>second</v></c>' + '</row>',
 'other_children': '<row r="1"><c r="A1"><v>1</v></c><extLst/><c><v>2</v></c></row>',
}
heads = {
 'dim_ok': '<dimension ref="A1:Z99"/>',
 'dim_bad': '<dimension ref="nonsense"/>',
 'dim_empty': '<dimension ref=""/>',
 'dim_noref': '<dimension/>',
 'dim_extra_attr': '<dimension ref="A1" foo="1"/>',
 'cols_ok': '<cols><col min="1" max="3" width="10"/></cols>',
 'cols_bad_min': '<cols><col min="0" max="3"/></cols>',
 'cols_no_min': '<cols><col max="3"/></cols>',
 'sheetpr': '<sheetPr><tabColor rgb="FF00FF00"/></sheetPr><sheetViews><sheetView workbookViewId="0"/></sheetViews><sheetFormatPr defaultRowHeight="15"/>',
}
tails = {
 'ext_ok': '<extLst><ext uri="{78C0D931-6437-407d-A8EE-F0AAD7539E65}" xmlns:x14="urn:x14"><x14:foo/></ext></extLst>',
 'ext_no_uri': '<extLst><ext/></extLst>',
 'merge': '<mergeCells count="1"><mergeCell ref="A1:B2"/></mergeCells><pageMargins left="0.7" right="0.7" top="0.75" bottom="0.75" header="0.3" footer="0.3"/>',
}
base = '<row r="1">' + c('A1', '0', 's') + c('B1', '42') + '</row>'
for k, v in cells.items(): book('cells_' + k, sheet(v))
for k, v in heads.items(): book('head_' + k, sheet(base, head=v))
for k, v in tails.items(): book('tail_' + k, sheet(base, tail=v))
# namespaces and encodings
book('ns_prefixed', f'<x:worksheet xmlns:x="{NS}"><x:sheetData><x:row r="1"><x:c r="A1" t="s"><x:v>1</x:v></x:c></x:row></x:sheetData></x:worksheet>')
book('ns_strict', '<worksheet xmlns="http://purl.oclc.org/ooxml/spreadsheetml/main"><sheetData><row r="1"><c r="A1"><v>1</v></c></row></sheetData></worksheet>')
book('ns_none', '<worksheet><sheetData><row r="1"><c r="A1"><v>1</v></c></row></sheetData></worksheet>')
book('ns_mixed_cells', f'<worksheet xmlns="{NS}" xmlns:o="urn:o"><sheetData><row r="1"><o:c r="A1"><v>1</v></o:c><c r="B1"><o:v>2</o:v></c><c r="C1"><v>3</v></c></row></sheetData></worksheet>')
book('enc_utf16', sheet(base).replace('encoding="UTF-8"', 'encoding="UTF-16"').encode('utf-16'))
book('enc_bom', b'\xef\xbb\xbf' + sheet(base).encode())
book('enc_latin1', sheet('<row r="1">' + c('A1', 'caf\u00e9', 'str') + '</row>').replace('UTF-8', 'ISO-8859-1').encode('latin-1'))
book('xml_malformed', sheet(base)[:-20])
book('xml_mismatch', sheet(base).replace('</sheetData>', '</sheetDat>'))
book('xml_entity_decl', '<?xml version="1.0"?><!DOCTYPE worksheet [<!ENTITY e "boom">]>' + sheet(base).split('?>', 1)[1])
book('xml_doctype_plain', '<?xml version="1.0"?><!DOCTYPE worksheet>' + sheet(base).split('?>', 1)[1])
book('xml_undefined_entity', sheet('<row r="1">' + c('A1', '&nbsp;', 'str') + '</row>'))
book('xml_junk_after', sheet(base) + '<extra/>')
book('xml_trailing_ws', sheet(base) + '\n\n  ')
book('xml_dup_attr', sheet('<row r="1" r="2">' + c('A1', '1') + '</row>'))
# shared strings variants
book('sst_missing_part', sheet(base), sst=None, ct=content_types(sst=True))
book('sst_absent_ok', sheet('<row r="1">' + c('A1', '1') + '</row>'), sst=None)
book('sst_bad_attr', sheet(base), sst=f'<sst xmlns="{NS}"><si foo="1"><t>x</t></si></sst>')
book('sst_t_attr', sheet(base), sst=f'<sst xmlns="{NS}"><si t="attr text"/></sst>')
book('sst_rph_bad', sheet(base), sst=f'<sst xmlns="{NS}"><si><t>x</t><rPh><t>y</t></rPh></si></sst>')
book('sst_phonetic_bad', sheet(base), sst=f'<sst xmlns="{NS}"><si><t>x</t><phoneticPr fontId="1" type="odd"/></si></sst>')
book('sst_runfont_bad', sheet(base), sst=f'<sst xmlns="{NS}"><si><r><rPr><sz val="big"/></rPr><t>x</t></r></si></sst>')
book('sst_runfont_name', sheet(base), sst=f'<sst xmlns="{NS}"><si><r><rPr><name val="Arial"/></rPr><t>x</t></r></si></sst>')
book('sst_nested_si', sheet('<row r="1">' + c('A1', '0', 's') + c('B1', '1', 's') + '</row>'), sst=f'<sst xmlns="{NS}"><si><t>outer</t><si><t>inner</t></si></si></sst>')
book('sst_other_ns_children', sheet(base), sst=f'<sst xmlns="{NS}" xmlns:o="urn:o"><si><o:t>foreign t</o:t></si></sst>')
# styles variants
S = STYLES
book('sty_missing', sheet(cells['date_styles']), styles=None)
book('sty_empty_fill', sheet(cells['date_styles']), styles=S.replace('<fill><patternFill patternType="none"/></fill>', '<fill/>'))
book('sty_no_formatcode', sheet(cells['date_styles']), styles=S.replace('<numFmt numFmtId="167" formatCode="h:mm"/>', '<numFmt numFmtId="167"/>'))
book('sty_no_numfmtid', sheet(cells['date_styles']), styles=S.replace('<numFmt numFmtId="167" formatCode="h:mm"/>', '<numFmt formatCode="h:mm"/>'))
book('sty_bad_xf', sheet(cells['date_styles']), styles=S.replace('<xf numFmtId="46"/>', '<xf numFmtId="4x6"/>'))
book('sty_bad_color', sheet(base), styles=S.replace('<sz val="11"/>', '<sz val="11"/><color rgb="XYZ"/>'))
book('sty_bad_pattern', sheet(base), styles=S.replace('patternType="gray125"', 'patternType="stripes"'))
book('sty_bad_align', sheet(base), styles=S.replace('<xf numFmtId="14"/>', '<xf numFmtId="14"><alignment horizontal="middle"/></xf>'))
book('sty_rotation', sheet(base), styles=S.replace('<xf numFmtId="14"/>', '<xf numFmtId="14"><alignment textRotation="90"/></xf>'))
book('sty_bad_rotation', sheet(base), styles=S.replace('<xf numFmtId="14"/>', '<xf numFmtId="14"><alignment textRotation="200"/></xf>'))
book('sty_unknown_xf_attr', sheet(base), styles=S.replace('<xf numFmtId="14"/>', '<xf numFmtId="14" bogus="1"/>'))
book('sty_huge_font_id', sheet(base), styles=S.replace('<xf numFmtId="14"/>', '<xf numFmtId="14" fontId="99999999999"/>'))
book('sty_named_missing_xf', sheet(base), styles=S.replace('<cellStyle name="Normal" xfId="0"', '<cellStyle name="Normal" xfId="4"'))
book('sty_named_missing_font', sheet(base), styles=S.replace('<cellStyleXfs count="1"><xf numFmtId="0" fontId="0"', '<cellStyleXfs count="1"><xf numFmtId="0" fontId="3"'))
book('sty_no_cellxfs', sheet(cells['date_styles']), styles=f'<styleSheet xmlns="{NS}"><fonts><font/></fonts></styleSheet>')
book('sty_comment_in_fills', sheet(base), styles=S.replace('<fills count="2">', '<fills count="2"><!-- c -->'))
book('sty_comment_in_fonts', sheet(cells['date_styles']), styles=S.replace('<fonts count="1">', '<fonts count="1"><!-- c -->'))
book('sty_gradient', sheet(base), styles=S.replace('<fill><patternFill patternType="gray125"/></fill>', '<fill><gradientFill degree="90"><stop position="0"><color theme="0"/></stop><stop position="1"><color theme="4"/></stop></gradientFill></fill>'))
book('sty_gradient_dup', sheet(base), styles=S.replace('<fill><patternFill patternType="gray125"/></fill>', '<fill><gradientFill degree="90"><stop position="0"><color theme="0"/></stop><stop position="0"><color theme="4"/></stop></gradientFill></fill>'))
book('sty_malformed_xml', sheet(base), styles=S[:-5])
book('sty_dxf', sheet(base), styles=S.replace('</styleSheet>', '<dxfs count="1"><dxf><font><b/><color rgb="FF9C0006"/></font><fill><patternFill><bgColor rgb="FFFFC7CE"/></patternFill></fill></dxf></dxfs><tableStyles count="0" defaultTableStyle="TableStyleMedium2"/></styleSheet>'))
book('sty_font_u', sheet(base), styles=S.replace('<sz val="11"/>', '<sz val="11"/><u/><vertAlign val="superscript"/>'))
book('sty_builtin_override', sheet('<row r="1">' + c('A1', '45000', s=1) + '</row>'), styles=S)
book('sty_named_none_name', sheet(base), styles=S.replace('<cellStyle name="Normal" xfId="0" builtinId="0"/>', '<cellStyle xfId="0" builtinId="0"/>'))
# workbook variants
book('wb_1904', sheet(cells['date_styles']), wb=workbook(pr='<workbookPr date1904="1"/>'))
book('wb_1904_false_word', sheet(cells['date_styles']), wb=workbook(pr='<workbookPr date1904="FALSE"/>'))
book('wb_1904_false', sheet(cells['date_styles']), wb=workbook(pr='<workbookPr date1904="false"/>'))
book('wb_bad_sheetid', sheet(base), wb=workbook('<sheet name="S" sheetId="x" r:id="rId1"/>'))
book('wb_no_name', sheet(base), wb=workbook('<sheet sheetId="1" r:id="rId1"/>'))
book('wb_bad_state', sheet(base), wb=workbook('<sheet name="S" sheetId="1" state="weird" r:id="rId1"/>'))
book('wb_hidden', sheet(base), wb=workbook('<sheet name="Hidden one" sheetId="1" state="hidden" r:id="rId1"/>'))
book('wb_no_rid', sheet(base), wb=workbook('<sheet name="S" sheetId="1"/>'))
book('wb_plain_id', sheet(base), wb=workbook('<sheet name="Plain id" sheetId="1" id="rId1"/>'))
book('wb_missing_rel', sheet(base), wb=workbook('<sheet name="S" sheetId="1" r:id="rId9"/>'))
book('wb_missing_part', None)
book('wb_rels_missing', sheet(base), rels=False)
book('wb_rels_bad_attr', sheet(base), rels=wb_rels().replace('Id="rId1"', 'Id="rId1" Foo="x"'))
book('wb_two_sheets_same_part', sheet(base), wb=workbook('<sheet name="One" sheetId="1" r:id="rId1"/><sheet name="Two\nlines" sheetId="2" r:id="rId1"/>'))
book('wb_name_long', sheet(base), wb=workbook('<sheet name="' + 'N' * 60 + '" sheetId="1" r:id="rId1"/>'))
book('wb_name_blank', sheet(base), wb=workbook('<sheet name="  " sheetId="1" r:id="rId1"/>'))
book('wb_comment_in_sheets', sheet(base), wb=workbook('<!-- c --><sheet name="S" sheetId="1" r:id="rId1"/>'))
book('wb_unknown_attr', sheet(base), wb=workbook().replace('<workbook ', '<workbook foo="1" '))
book('wb_defined_names', sheet(base), wb=workbook(pr='').replace('</sheets>', '</sheets><definedNames><definedName name="_xlnm.Print_Titles" localSheetId="0">Sheet!$1:$1</definedName><definedName name="x" localSheetId="5">Sheet!$A$1</definedName><definedName name="g">Sheet!$A$1</definedName></definedNames>'))
book('wb_defined_bad_titles', sheet(base), wb=workbook(pr='').replace('</sheets>', '</sheets><definedNames><definedName name="_xlnm.Print_Titles" localSheetId="0">garbage</definedName></definedNames>'))
book('wb_calcpr', sheet(base), wb=workbook(pr='<fileVersion appName="xl"/><workbookPr defaultThemeVersion="124226"/><bookViews><workbookView xWindow="0" yWindow="0" activeTab="0"/></bookViews>').replace('</sheets>', '</sheets><calcPr calcId="191029"/>'))
book('ct_xlsm', sheet(base), ct=content_types(wb_type='application/vnd.ms-excel.sheet.macroEnabled.main+xml'))
book('ct_default_wb', sheet(base), ct=content_types(wb_type='application/xml').replace('<Default Extension="xml" ContentType="application/xml"/>', '<Default Extension="xml" ContentType="' + CT_WB + '"/>'))
book('ct_no_wb', sheet(base), ct=content_types(wb_type='application/xml'))
book('ct_bad_attr', sheet(base), ct=content_types().replace('<Default Extension="rels"', '<Default Foo="1" Extension="rels"'))
book('ct_missing_attr', sheet(base), ct=content_types().replace('<Default Extension="rels" ', '<Default '))
book('ct_malformed', sheet(base), ct=content_types()[:-3])
# extra parts
book('props_bad_xml', sheet(base), extra=[('docProps/core.xml', '<cp:coreProperties')])
book('chartsheet_no_rels', sheet(base), wb=workbook('<sheet name="S" sheetId="1" r:id="rId1"/><sheet name="Chart" sheetId="2" r:id="rId2"/>'), rels=wb_rels(f'<Relationship Id="rId2" Type="{RNS}/chartsheet" Target="chartsheets/sheet1.xml"/>'), extra=[('xl/chartsheets/sheet1.xml', f'<chartsheet xmlns="{NS}"/>')])
book('sheet_rels_bad', sheet(base), extra=[('xl/worksheets/_rels/sheet1.xml.rels', '<Relationships')])
book('sheet_rels_ok', sheet(base), extra=[('xl/worksheets/_rels/sheet1.xml.rels', f'<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="{RNS}/hyperlink" Target="http://x" TargetMode="External"/></Relationships>')])
book('rel_target_abs', sheet(base), rels=wb_rels().replace('Target="worksheets/sheet1.xml"', 'Target="/xl/worksheets/sheet1.xml"'))
book('rel_target_dotdot', sheet(base), rels=wb_rels().replace('Target="worksheets/sheet1.xml"', 'Target="../xl/./worksheets/sheet1.xml"'))
# not xlsx
open(os.path.join(out, 'fake_pdf.xlsx'), 'wb').write(b'%PDF-1.4\n%...\n')
open(os.path.join(out, 'empty.xlsx'), 'wb').write(b'')
with zipfile.ZipFile(os.path.join(out, 'docx_as_xlsx.xlsx'), 'w') as z:
    z.writestr('[Content_Types].xml', '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>')
    z.writestr('word/document.xml', '<w:document xmlns:w="urn:w"/>')
