#!/usr/bin/env bash
# The PDF benchmark (issue 21, not a test): PyPDF2 3.0.1's extraction timed from
# Python beside `ctxguard extract FILE` (release build), on the public PDF cases
# of tests/conformance/documents.jsonl and a generated 300-page report; medians
# of REPEATS runs (default 9). Prints a BENCHMARKS.md table.
#
#   scripts/bench-pdf.sh
#   REPEATS=21 PYTHON=/work/refenv/bin/python scripts/bench-pdf.sh
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
python="${PYTHON:-/work/refenv/bin/python}"
if ! "$python" -c 'import PyPDF2, sys; sys.exit(PyPDF2.__version__ != "3.0.1")' 2>/dev/null; then
  echo "scripts/bench-pdf.sh: needs PyPDF2 3.0.1: python3 -m venv /work/refenv && /work/refenv/bin/pip install PyPDF2==3.0.1" >&2
  exit 1
fi
target="${CARGO_TARGET_DIR:-$root/target}"
echo "==> cargo build --release -p ctxguard-cli" >&2
cargo build -q --release -p ctxguard-cli --bin ctxguard
exec "$python" scripts/bench-pdf.py "$root" "$target/release/ctxguard" "${REPEATS:-9}"
