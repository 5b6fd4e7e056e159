#!/usr/bin/env bash
# run_diff.sh NAME FILES... : the files as document_parse cases (each as .docx and .pptx,
# make_cases.py), the reference's answers, then ctxguard's, printing every disagreement
# (../compare.sh). Work files go to $OUT (default /tmp/ctxguard-diff/ooxml).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
name=${1:?usage: run_diff.sh NAME FILES...}; shift
out=${OUT:-/tmp/ctxguard-diff/ooxml}; mkdir -p "$out"
python3 "$here/make_cases.py" "$name" "$@" >"$out/${name}.jsonl"
"$here/../compare.sh" "$out/${name}.jsonl" "${MAXSHOW:-30}"
