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
exec "$CARGO_TARGET_DIR/release/ctxguard" serve --demo --dist "$root/pkg/demo" "$@"
