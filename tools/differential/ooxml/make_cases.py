"""Files to document_parse cases: python make_cases.py PREFIX file... > cases.jsonl (each as .docx and .pptx)."""
import base64, json, os, sys
prefix = sys.argv[1]
n = 0
for path in sys.argv[2:]:
    data = open(path, 'rb').read()
    base = os.path.basename(path)
    stem = os.path.splitext(base)[0]
    for ext in ('.docx', '.pptx'):
        n += 1
        case = {"id": f"document_parse-{ext[1:]}-{prefix}{n}", "kind": "document_parse", "filename": stem + ext,
                "data_base64": base64.b64encode(data).decode()}
        if '@' in stem:
            case["max_text_length"] = int(stem.split('@')[1])
        print(json.dumps(case))
