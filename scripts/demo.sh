#!/usr/bin/env bash
# Runs the demo: installs what is missing, builds the demo page (trunk,
# release: the page, and the toolbar's two WebAssembly modules and scripts
# under dist/ctxguard-toolbar/), and serves it with a live demo session.
# Usage: scripts/demo.sh [--port N]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
source scripts/env.sh
bash scripts/setup.sh
echo "==> trunk build --release (the demo page and the toolbar's modules)" >&2
trunk build --release
echo "==> cargo build --release -p ctxguard-cli" >&2
cargo build --release -p ctxguard-cli
exec "$CARGO_TARGET_DIR/release/ctxguard" serve --demo --dist "$root/dist" "$@"
