import sys, json, base64, os
# mkjsonl.py OUT.jsonl FILES... (max_text_length via NAME__max123.xlsx)
out=open(sys.argv[1],'w')
for i,p in enumerate(sys.argv[2:]):
    name=os.path.basename(p)
    c={"id":f"document_parse-xlsx-d{i}","kind":"document_parse","filename":name,"data_base64":base64.b64encode(open(p,'rb').read()).decode()}
    if "__max" in name:
        c["max_text_length"]=int(name.split("__max")[1].split(".")[0])
    out.write(json.dumps(c)+"\n")
