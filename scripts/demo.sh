#!/usr/bin/env bash
# Runs the demo: installs what is missing, builds the demo page
# (scripts/build-packages.sh toolbar, release: the page, and the toolbar's two
# WebAssembly modules and scripts, in pkg/demo/; skipped when up to date), and
# serves it with a live demo session.
# Usage: scripts/demo.sh [--port N]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
source scripts/env.sh
bash scripts/setup.sh
bash scripts/build-packages.sh toolbar
echo "==> cargo build --release -p ctxguard-cli" >&2
cargo build --release -p ctxguard-cli
# The port it serves: --port N (or --port=N) among the arguments, else $CTXGUARD_PORT, else 8080.
# A taken port is an error (pass --port 0 for any free one; the server then prints which).
port=${CTXGUARD_PORT:-8080}
prev=""
for arg in "$@"; do
  case "$arg" in --port=*) port=${arg#--port=} ;; esac
  [ "$prev" = --port ] && port=$arg
  prev=$arg
done
if [ "$port" = 0 ]; then
  echo "==> serving the demo on a free port (the line below names it)" >&2
else
  echo "==> serving the demo on port $port: http://127.0.0.1:$port/?session=demo (--port N for another)" >&2
fi
exec "$CARGO_TARGET_DIR/release/ctxguard" serve --demo --dist "$root/pkg/demo" "$@"
