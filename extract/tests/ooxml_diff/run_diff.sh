#!/bin/bash
# run_diff.sh NAME FILES... : the reference's answers for the files (each as .docx and .pptx),
# then ctxguard's, printing every disagreement (work files in $OUT, default /work/diff/ooxml).
here="$(cd "$(dirname "$0")" && pwd)"; name=$1; shift
out=${OUT:-/work/diff/ooxml}; mkdir -p "$out"
/work/refenv/bin/python "$here/make_cases.py" "$name" "$@" > "$out/${name}_in.jsonl"
/work/refenv/bin/python /work/refharness/run_ref.py "$out/${name}_in.jsonl" > "$out/${name}.jsonl" 2>/dev/null
cd "$here/../../.." && cargo run -q -p ctxguard-extract --example ooxml_diff -- "$out/${name}.jsonl" 2>/dev/null
