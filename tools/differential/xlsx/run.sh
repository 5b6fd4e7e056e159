#!/usr/bin/env bash
# run.sh NAME FILES... : the files as document_parse cases (mkjsonl.py), the reference's
# answers, then ctxguard's (../compare.sh). Work files go to $OUT (default /tmp/ctxguard-diff/xlsx).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
name=${1:?usage: run.sh NAME FILES...}; shift
out=${OUT:-/tmp/ctxguard-diff/xlsx}; mkdir -p "$out"
python3 "$here/mkjsonl.py" "$out/$name.jsonl" "$@"
"$here/../compare.sh" "$out/$name.jsonl" "${MAXSHOW:-10}"
