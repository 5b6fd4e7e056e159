# mutate.py SRC_DIR OUT_DIR N SEED: random XML-level mutations of xlsx parts
import zipfile, random, os, sys, re, io
src, out, n, seed = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
os.makedirs(out, exist_ok=True)
R = random.Random(seed)
files = sorted(os.path.join(src, f) for f in os.listdir(src) if f.endswith('.xlsx'))
ATTR_VALUES = ['', '0', '-1', '1.5', 'x', '99999', 'A1', 'A0', 'ZZZ9', '1e3', ' 2 ', 'true', 'none', '$A$1', 'XFD1048576', 'shared', 'array', 'str', 'inlineStr', 'e', 'b', 'd', 'n', 's', 'dataTable', 'hidden', '2024-01-01', 'PT1H']
TEXT_VALUES = ['', '0', '1', '-5', '1.25', '1e400', 'abc', '45000', '0.5', '2024-01-01T00:00:00', '#N/A', ' 3 ', '12345678901234567890', 'A1+1', 'SUM(A1:B2)', '(', '"x', 'Sheet2!A1:A3', '1_0', '٣']
def mutate_xml(x):
    ops = R.randint(1, 3)
    for _ in range(ops):
        k = R.randrange(6)
        attrs = list(re.finditer(r'(\s)([A-Za-z:]+)="([^"]*)"', x))
        texts = list(re.finditer(r'>([^<]+)<', x))
        elems = list(re.finditer(r'<([A-Za-z:]+)(\s[^<>]*)?/>', x))
        if k == 0 and attrs:
            m = R.choice(attrs)
            x = x[:m.start(3)] + R.choice(ATTR_VALUES) + x[m.end(3):]
        elif k == 1 and attrs:
            m = R.choice(attrs)
            x = x[:m.start()] + x[m.end():]
        elif k == 2 and texts:
            m = R.choice(texts)
            x = x[:m.start(1)] + R.choice(TEXT_VALUES) + x[m.end(1):]
        elif k == 3 and elems:
            m = R.choice(elems)
            x = x[:m.start()] + x[m.end():]
        elif k == 4:
            tags = list(re.finditer(r'<([a-z][A-Za-z]*)( |>)', x))
            if tags:
                m = R.choice(tags)
                name = R.choice(['t', 's', 'r', 'f', 'v', 'ref', 'si', 'r1', 'foo', 'ca', 'dt2D'])
                x = x[:m.end(1)] + f' {name}="{R.choice(ATTR_VALUES)}"' + x[m.end(1):]
        elif k == 5:
            cells = list(re.finditer(r'<c [^>]*>', x))
            if cells:
                m = R.choice(cells)
                ins = R.choice(['<f>A1*2</f>', '<f t="shared" si="0" ref="A1:A9">A1+1</f>', '<f t="shared" si="0"/>', '<f t="array" ref="A1:A2">B1</f>', '<is><t>ins</t></is>'])
                x = x[:m.end()] + ins + x[m.end():]
    return x
for i in range(n):
    f = R.choice(files)
    zin = zipfile.ZipFile(f)
    names = zin.namelist()
    targets = [nm for nm in names if nm.endswith('.xml') and R.random() < 0.5 and ('sheet' in nm or 'styles' in nm or 'sharedStrings' in nm or 'workbook' in nm)]
    if not targets:
        targets = [nm for nm in names if 'worksheets/sheet' in nm][:1]
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, 'w', zipfile.ZIP_DEFLATED) as z:
        for nm in names:
            data = zin.read(nm)
            if nm in targets:
                try:
                    data = mutate_xml(data.decode('utf-8')).encode('utf-8')
                except UnicodeDecodeError:
                    pass
            z.writestr(nm, data)
    open(os.path.join(out, f'mut_{seed}_{i}.xlsx'), 'wb').write(buf.getvalue())
