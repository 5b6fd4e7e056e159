#!/bin/bash
# run.sh NAME FILES... : oracle then ours
set -e
name=$1; shift
python3 $(dirname $0)/mkjsonl.py /work/diff/xlsx/$name.jsonl "$@"
/work/refenv/bin/python /work/refharness/run_ref.py /work/diff/xlsx/$name.jsonl 2>/dev/null | grep "^{" > /work/diff/xlsx/${name}_ref.jsonl
cd /work/wt/xlsx && CARGO_TARGET_DIR=/work/targets/xlsx cargo run -q -p ctxguard-extract --example document_diff -- /work/diff/xlsx/${name}_ref.jsonl ${MAXSHOW:-10} 2>/dev/null
