#!/usr/bin/env bash
# The examples, built and driven as a user runs them: examples/plain-html
# against `ctxguard serve --demo`, and examples/react (npm ci from its lock
# file, type-checked with the package's declarations, built by Vite). Prints
# `N passed, M failed`; exits non-zero on any failure.
#   UPDATE_SCREENSHOT=1 bash tests/examples/run.sh   # also writes docs/react-example.png
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
source scripts/env.sh

for tool in cargo node npm "${CHROMIUM:-/usr/bin/chromium}"; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    echo "tests/examples/run.sh: $tool is missing (run scripts/setup.sh)" >&2
    exit 1
  fi
done

work=$(mktemp -d "${TMPDIR:-/tmp}/ctxguard-examples.XXXXXX")
trap 'rm -rf "$work"' EXIT

bash scripts/build-packages.sh toolbar
echo "==> ctxguard (release)"
cargo build -q --release -p ctxguard-cli
cp "$CARGO_TARGET_DIR/release/ctxguard" "$work/ctxguard"

echo "==> examples/react: npm ci (when its lock file is newer), tsc --noEmit, vite build"
(
  cd examples/react
  # After the package build: the lock links ctxguard-toolbar to ../../pkg/toolbar.
  if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
    npm ci --no-audit --no-fund --loglevel=error
  fi
  npm run --silent build
)
if [ ! -f tests/support/node_modules/playwright-core/package.json ]; then
  (cd tests/support && npm ci --no-audit --no-fund --loglevel=error)
fi

shot=()
[ "${UPDATE_SCREENSHOT:-}" = 1 ] && shot=(--screenshot "$root/docs/react-example.png")
echo "==> browser checks"
node tests/examples/run.mjs --bin "$work/ctxguard" "${shot[@]}"
