#!/usr/bin/env bash
# compare.sh CASES.jsonl [MAX_SHOWN]: fills `expected` of the document_parse cases with the
# reference (reference.py, in $CTXGUARD_REFERENCE), then runs them through ctxguard (the
# `document_diff` example) and prints every disagreement and the tally. The filled cases
# are kept beside the input as NAME.ref.jsonl.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cases=${1:?usage: compare.sh CASES.jsonl [MAX_SHOWN]}
python=$("$here/reference-python.sh")
filled="${cases%.jsonl}.ref.jsonl"
"$python" "$here/reference.py" "$cases" >"$filled"
cd "$here/../.."
cargo run -q -p ctxguard-extract --example document_diff -- "$filled" "${2:-20}"
