import random, datetime, sys, os, math
from openpyxl import Workbook
from openpyxl.worksheet.formula import ArrayFormula, DataTableFormula
from openpyxl.cell.rich_text import CellRichText, TextBlock
from openpyxl.cell.text import InlineFont
from openpyxl.utils.datetime import CALENDAR_MAC_1904
out = sys.argv[1]; n = int(sys.argv[2]); seed=int(sys.argv[3]) if len(sys.argv)>3 else 1
os.makedirs(out, exist_ok=True)
R = random.Random(seed)
WORDS = ["alpha","Beta","数据","表格","ひらがな","한국어","Ünïcødé","🚀 rocket","a | b","R7: fake","[3]=x","\"quoted\"","back\\slash","tab\there","line1\nline2","cr\rhere"," padded ","","=SUM(A1)","'apos","<tag>&amp;","  ","x"*300,"mixed 中文 text","zero\u200bwidth","\u2028sep","ﬁ ligature","∑ sum","Ελληνικά","עברית","العربية"]
FMTS = ["General","0","0.00","#,##0","0%","0.00E+00","yyyy-mm-dd","mm-dd-yy","d-mmm-yy","h:mm","h:mm:ss","[h]:mm:ss","mm:ss","yyyy-mm-dd h:mm:ss","[mm]:ss","[ss]","\"day\" 0","[Red]0.00","_d0","\\d0","@","dd/mm/yyyy hh:mm","[$-409]mmmm d, yyyy","0;[Red]-0;\"zero\"","yy","[H]:MM","hh:mm:ss.000","m/d/yy h:mm AM/PM","0.0 \"h\"", "[<=9999999]###-####;(###) ###-####"]
def rand_value():
    k = R.randrange(22)
    if k < 5: return R.choice(WORDS)
    if k < 8: return R.randint(-10**6, 10**6)
    if k == 8: return R.choice([0, 1, -1, 2**31, -2**31, 2**53, 2**53+1, 10**15, 10**20, -10**18, 12345678901234567890])
    if k < 11: return R.choice([0.1, 0.3333333333333333, 1e-7, 1e16, 1.5e300, -2.5, 123456789.123, 5e-324, 1.0, 2.0**60, 0.1+0.2, 1e22, 1e21, 9.999999999999999e15, -0.0, 3.14159])
    if k == 11: return R.choice([True, False])
    if k == 12: return datetime.datetime(R.randint(1900,2100), R.randint(1,12), R.randint(1,28), R.randint(0,23), R.randint(0,59), R.randint(0,59), R.choice([0,0,500000,123456,999999]))
    if k == 13: return datetime.date(R.randint(1900, 2100), R.randint(1,12), R.randint(1,28))
    if k == 14: return datetime.time(R.randint(0,23), R.randint(0,59), R.randint(0,59), R.choice([0,0,250000]))
    if k == 15: return datetime.timedelta(days=R.randint(0,5), hours=R.randint(0,23), minutes=R.randint(0,59), seconds=R.choice([0,30]))
    if k == 16: return "=" + R.choice(["SUM(A1:A3)","A1*2","IF(A1>1,\"x\",\"y\")","1+1","NOW()","B2&C2"])
    if k == 17: return R.choice([datetime.datetime(1900,1,1), datetime.datetime(1900,2,28), datetime.datetime(1900,3,1), datetime.datetime(1899,12,31), datetime.datetime(1904,1,1), datetime.datetime(9999,12,31,23,59,59)])
    if k == 18: return R.random() * 10**R.randint(-5, 12)
    if k == 19: return R.choice(["#N/A", "#DIV/0!", "TRUE", "1e5", "0012", "١٢٣"])
    if k == 20: return R.randint(0, 60000) + R.choice([0, 0.25, 0.5, 0.999])
    return None
for i in range(n):
    wb = Workbook()
    if R.random() < 0.2: wb.epoch = CALENDAR_MAC_1904
    ws = wb.active
    nsheets = R.randint(1, 4)
    names = ["Sheet", "数据", "Q1 Report", "A"*31, "Σ sums", "2024年", "x y", "'quote", "R7 fake"]
    for s in range(nsheets):
        if s: ws = wb.create_sheet(R.choice(names) + str(s))
        else: ws.title = R.choice(names)
        if R.random() < 0.15: ws.sheet_state = R.choice(["hidden", "veryHidden"]) if s else "visible"
        rows = R.randint(0, 12); cols = R.randint(1, 9)
        for r in range(1, rows + 1):
            for c in range(1, cols + 1):
                if R.random() < 0.45: continue
                v = rand_value()
                if v is None: continue
                try:
                    cell = ws.cell(row=r + R.choice([0,0,0,5]), column=c, value=v)
                except Exception:
                    continue
                if R.random() < 0.3 and isinstance(v, (int, float)) and not isinstance(v, bool):
                    cell.number_format = R.choice(FMTS)
        if R.random() < 0.2:
            ws["J1"] = ArrayFormula("J1:J3", "=A1:A3*2")
        if R.random() < 0.1:
            ws["K1"] = DataTableFormula(ref="K1:K3", dt2D=R.choice([True, False]), r1="A1", ca=True)
        if R.random() < 0.2:
            ws.cell(row=R.randint(1, 20), column=R.randint(1, 30), value=CellRichText(["plain ", TextBlock(InlineFont(b=True, sz=12), "bold"), " tail"]))
        if R.random() < 0.15:
            ws.merge_cells("A20:C22"); ws["A20"] = "merged"
        if R.random() < 0.1:
            ws.cell(row=R.choice([100, 1048576]), column=R.choice([1, 16384]), value="far")
    wb.save(os.path.join(out, f"opx_{seed}_{i}.xlsx"))
