#!/usr/bin/env bash
# The PDF benchmark (not a test): PyPDF2 3.0.1's extraction timed from
# Python beside `ctxguard extract FILE` (release build), on the public PDF cases
# of tests/conformance/documents.jsonl and a generated 300-page report; medians
# of REPEATS runs (default 9). Prints a BENCHMARKS.md table.
#
#   scripts/bench-pdf.sh
#   REPEATS=21 PYTHON=/path/to/python scripts/bench-pdf.sh
# The Python with PyPDF2 3.0.1: $PYTHON, else the reference environment's
# ($CTXGUARD_REFERENCE, built by tools/differential/setup-reference.sh).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
python="${PYTHON:-${CTXGUARD_REFERENCE:-/nonexistent}/venv/bin/python}"
if ! "$python" -c 'import PyPDF2, sys; sys.exit(PyPDF2.__version__ != "3.0.1")' 2>/dev/null; then
  echo "scripts/bench-pdf.sh: needs PyPDF2 3.0.1: run tools/differential/setup-reference.sh DIR and export CTXGUARD_REFERENCE=DIR (or set PYTHON)" >&2
  exit 1
fi
target="${CARGO_TARGET_DIR:-$root/target}"
echo "==> cargo build --release -p ctxguard-cli" >&2
cargo build -q --release -p ctxguard-cli --bin ctxguard
exec "$python" scripts/bench-pdf.py "$root" "$target/release/ctxguard" "${REPEATS:-9}"
