import random, datetime, sys, os
import xlsxwriter
out = sys.argv[1]; n = int(sys.argv[2]); seed = int(sys.argv[3]) if len(sys.argv) > 3 else 1
os.makedirs(out, exist_ok=True)
R = random.Random(seed)
WORDS = ["alpha", "数据", "ひらがな", "a | b", "R7: fake", "\"q\"", "back\\slash", "tab\there", "l1\nl2", " ", "", "🇨🇳 flag", "_x000D_ escaped", "x005F_x", "=not formula", "x"*200]
FMTS = ["yyyy-mm-dd", "hh:mm:ss", "[h]:mm", "d mmm yyyy h:mm", "0.00", "0%", "mm:ss.0", "@", "General", "[$-F800]dddd, mmmm dd, yyyy", "yyyy\\-mm\\-dd", "\"Date: \"yyyy", "[mm]:ss", "#,##0.00;[Red]-#,##0.00"]
for i in range(n):
    opts = {}
    if R.random() < 0.2: opts["date_1904"] = True
    if R.random() < 0.2: opts["constant_memory"] = True
    if R.random() < 0.1: opts["nan_inf_to_errors"] = True
    if R.random() < 0.1: opts["strings_to_numbers"] = True
    path = os.path.join(out, f"xw_{seed}_{i}.xlsx")
    wb = xlsxwriter.Workbook(path, opts)
    formats = [wb.add_format({"num_format": f}) for f in FMTS]
    bold = wb.add_format({"bold": True, "font_color": "red"})
    nsheets = R.randint(1, 3)
    for s in range(nsheets):
        ws = wb.add_worksheet(R.choice(["Data", "集計", "Sheet with spaces", "Ω"]) + str(s))
        if R.random() < 0.15 and s: ws.hide()
        rows = R.randint(0, 15)
        for r in range(rows):
            for c in range(R.randint(1, 8)):
                if R.random() < 0.4: continue
                k = R.randrange(14)
                try:
                    if k < 4: ws.write_string(r, c, R.choice(WORDS))
                    elif k < 6: ws.write_number(r, c, R.choice([1, -2.5, 0.1, 1e-7, 123456789.123, 10**15, 2**53, 1e20, 0, 3.0, R.random()*1e5]), R.choice(formats) if R.random() < 0.4 else None)
                    elif k == 6: ws.write_boolean(r, c, R.random() < 0.5)
                    elif k == 7: ws.write_datetime(r, c, datetime.datetime(R.randint(1900, 2099), R.randint(1,12), R.randint(1,28), R.randint(0,23), R.randint(0,59), R.randint(0,59), R.choice([0, 0, 500000])), R.choice(formats))
                    elif k == 8: ws.write_formula(r, c, R.choice(["=A1*2", "=SUM(A1:B2)", "=\"x\"&\"y\"", "=1/0", "=TRUE", "=NA()"]), None, R.choice([0, 17, "hi", True, "", None, 2.5, "#N/A"]) if R.random() < 0.7 else 0)
                    elif k == 9: ws.write_rich_string(r, c, "plain ", bold, "bold", " tail")
                    elif k == 10: ws.write_blank(r, c, None, bold)
                    elif k == 11: ws.write_url(r, c, "https://example.com/" + str(r), string="link " + str(c))
                    elif k == 12: ws.write_datetime(r, c, datetime.timedelta(hours=R.randint(0, 100), minutes=R.randint(0, 59)), wb.add_format({"num_format": "[h]:mm:ss"}))
                    else: ws.write_number(r, c, R.choice([float("nan"), float("inf"), -float("inf")]) if opts.get("nan_inf_to_errors") else 5)
                except Exception:
                    pass
        if not opts.get("constant_memory"):
            if R.random() < 0.2: ws.write_array_formula(0, 10, 2, 10, "{=A1:A3*2}", None, R.choice([4, 0]))
            if R.random() < 0.15: ws.merge_range(20, 0, 22, 2, "merged", bold)
            if R.random() < 0.1: ws.write_string(1048575, 16383, "corner")
            if R.random() < 0.15:
                ws.add_table(25, 0, 28, 2, {"columns": [{"header": "h1"}, {"header": "h2"}, {"header": "h3"}]})
            if R.random() < 0.1: ws.repeat_rows(0)
            if R.random() < 0.1: ws.print_area(0, 0, 5, 5)
            if R.random() < 0.1: ws.write_comment(0, 0, "a comment")
            if R.random() < 0.1: ws.conditional_format(0, 0, 5, 5, {"type": "cell", "criteria": ">", "value": 5, "format": bold})
            if R.random() < 0.1: ws.data_validation(0, 0, 5, 0, {"validate": "integer", "criteria": ">", "value": 0})
    if R.random() < 0.15:
        cs = wb.add_chartsheet("Chart1")
        ch = wb.add_chart({"type": "column"})
        ch.add_series({"values": "=Data0!$A$1:$A$3" if False else [wb.worksheets()[0].name, 0, 0, 2, 0]})
        cs.set_chart(ch)
    if R.random() < 0.1: wb.define_name("MyName", "=" + "'" + wb.worksheets()[0].name + "'!$A$1")
    wb.close()
