#!/usr/bin/env python3
"""The reference harness: fills `expected` of `document_parse` cases with what Wegent's
backend makes of each upload, calling its parser as the upload path does.

    $CTXGUARD_REFERENCE/venv/bin/python tools/differential/reference.py IN.jsonl > OUT.jsonl

IN.jsonl holds `document_parse` cases without `expected` (id, kind, filename, data_base64,
optional max_text_length); each comes out with `expected` added, in the format of
tests/conformance/documents.jsonl (the conformance README and SPEC describe it). Lines of
other kinds pass through unchanged. The environment is the one setup-reference.sh builds:
Wegent's `DocumentParser` (backend/app/services/attachment/parser.py) with the pinned
libraries. What `ContextService._parse_and_update_context` and the upload endpoint store
(the `record`) is derived here as they do it, since they need the database.
"""
import base64
import io
import json
import logging
import os
import re
import sys
import warnings

logging.disable(logging.CRITICAL)
warnings.simplefilter("ignore")

from app.core.config import settings  # noqa: E402  (the stub setup-reference.sh writes)
from app.services.attachment.parser import DocumentParseError, DocumentParser  # noqa: E402

# The upload stores these without parsing (ContextService: multimodal_media_type == "video").
VIDEO_EXTENSIONS = {".mp4", ".avi", ".mov", ".mkv", ".webm", ".flv", ".wmv", ".m4v"}
DEFAULT_MAX_TEXT_LENGTH = 500000
# A Python object address in a message (`<_io.BytesIO object at 0x7f…>`) is recorded as `0x<addr>`.
ADDRESS = re.compile(r"(object at )0x[0-9a-fA-F]+")


def image_report(parsed, upload, extension):
    """`{mime_type, width, height, resized}` of the image handed to the model, or None."""
    if not parsed.image_base64:
        return None
    from PIL import Image

    prepared = base64.b64decode(parsed.image_base64)
    with Image.open(io.BytesIO(prepared)) as image:
        width, height = image.size
    return {
        "mime_type": parsed.image_mime_type or DocumentParser.get_mime_type(extension),
        "width": width,
        "height": height,
        "resized": prepared != upload,
    }


def expected_for(case):
    """What the reference answers for one `document_parse` case."""
    filename = case["filename"]
    upload = base64.b64decode(case["data_base64"])
    extension = os.path.splitext(filename)[1].lower()
    settings.MAX_EXTRACTED_TEXT_LENGTH = case.get("max_text_length", DEFAULT_MAX_TEXT_LENGTH)
    type_data = {
        "original_filename": filename,
        "file_extension": extension,
        "file_size": len(upload),
        "mime_type": DocumentParser.get_mime_type(extension),
    }
    record = {
        "status": "ready",
        "error_message": "",
        "extracted_text": "",
        "text_length": 0,
        "image_base64": "",
        "type_data": type_data,
        "truncation_info": None,
        "parsed": extension not in VIDEO_EXTENSIONS,
    }
    try:
        parsed = DocumentParser().parse(upload, extension)
    except DocumentParseError as e:
        message = ADDRESS.sub(r"\g<1>0x<addr>", str(e))
        if record["parsed"]:
            record.update(status="failed", error_message=message)
        else:
            type_data["is_truncated"] = False
        return {"error": {"code": e.error_code, "message": message}, "record": record}

    info = parsed.truncation_info
    truncated = bool(info and info.is_truncated)
    image = image_report(parsed, upload, extension)
    if not record["parsed"]:
        type_data["is_truncated"] = False
    else:
        record.update(
            extracted_text="<text>" if parsed.text else "",
            text_length=parsed.text_length or 0,
            image_base64="<image>" if parsed.image_base64 else "",
        )
        if parsed.image_mime_type and parsed.image_mime_type != type_data["mime_type"]:
            type_data["mime_type"] = parsed.image_mime_type
        type_data["is_truncated"] = truncated
        if info:
            record["truncation_info"] = {
                "is_truncated": True,
                "original_length": info.original_length,
                "truncated_length": info.truncated_length,
                "truncation_message_key": "content_truncated",
            } if info.is_truncated else None
    return {
        "text": parsed.text,
        "text_length": parsed.text_length,
        "is_truncated": truncated,
        "truncation": {
            "truncation_type": info.truncation_type,
            "original_length": info.original_length,
            "truncated_length": info.truncated_length,
            "summary_message": info.summary_message,
            "original_structure": info.original_structure,
            "kept_structure": info.kept_structure,
        } if truncated else None,
        "image": image,
        "record": record,
    }


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: reference.py IN.jsonl > OUT.jsonl")
    with open(sys.argv[1], encoding="utf-8") as cases:
        for line in cases:
            if not line.strip():
                continue
            case = json.loads(line)
            if case.get("kind") == "document_parse":
                case.pop("expected", None)
                case["expected"] = expected_for(case)
            print(json.dumps(case))


if __name__ == "__main__":
    main()
