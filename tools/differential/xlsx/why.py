"""why.py FILE.jsonl dN...: the reference's exception (type, message, where) for the given cases.
Run with the reference interpreter (../reference-python.sh prints it)."""
import json, sys, base64, io, traceback, logging
logging.disable(logging.CRITICAL)
import warnings; warnings.simplefilter('ignore')
from knowledge_engine.excel import read_excel_sheets
ids = set(sys.argv[2:])
for line in open(sys.argv[1]):
    c = json.loads(line)
    if c['id'].split('-')[-1] not in ids: continue
    data = base64.b64decode(c['data_base64'])
    try:
        read_excel_sheets(data); print(c['id'], c['filename'], 'OK')
    except Exception as e:
        tb = traceback.extract_tb(e.__traceback__)
        where = ' <- '.join(f"{f.name}:{f.lineno}" for f in tb[-3:])
        print(c['id'], type(e).__name__, str(e)[:200].replace('\n',' '), '@', where)
