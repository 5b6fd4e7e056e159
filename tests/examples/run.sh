#!/usr/bin/env bash
# The examples, built and driven as a user runs them: examples/plain-html
# against `ctxguard serve --demo`, examples/react (npm ci from its lock
# file, type-checked with the package's declarations, built by Vite), and
# examples/socketio (npm ci of its pinned socket.io server and client, then the
# packed toolbar tarball installed as a user would), examples/vue (npm ci, vite
# build) and the hand-written backends (examples/python-backend,
# examples/node-backend: real servers of the per-session routes). Prints
# `N passed, M failed`; exits non-zero on any failure.
#   UPDATE_SCREENSHOT=1 bash tests/examples/run.sh   # also writes docs/react-example.png and docs/vue-example.png
#   bash tests/examples/run.sh --only TEXT            # only the checks whose name holds TEXT
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
source scripts/env.sh
only=()
while [ $# -gt 0 ]; do
  case "$1" in
    --only) only=(--only "${2:?--only takes the text of a check name}"); shift 2 ;;
    *) echo "$0: unknown option $1 (expected --only TEXT)" >&2; exit 2 ;;
  esac
done

for tool in cargo node npm python3 "${CHROMIUM:-/usr/bin/chromium}"; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    echo "tests/examples/run.sh: $tool is missing (run scripts/setup.sh)" >&2
    exit 1
  fi
done

work=$(mktemp -d "${TMPDIR:-/tmp}/ctxguard-examples.XXXXXX")
trap 'rm -rf "$work"' EXIT

bash scripts/build-packages.sh toolbar
# The relay: the binary scripts/test.sh built once (CTXGUARD_BIN), else a build of our own.
if [ -n "${CTXGUARD_BIN:-}" ]; then
  cp "$CTXGUARD_BIN" "$work/ctxguard"
else
  echo "==> ctxguard"
  cargo build -q -p ctxguard-cli
  cp "$CARGO_TARGET_DIR/debug/ctxguard" "$work/ctxguard"
fi

echo "==> examples/react: npm ci (when its lock file changed), tsc --noEmit, vite build"
# After the package build: the lock links ctxguard-toolbar to ../../pkg/toolbar.
npm_ci_if_changed examples/react
(cd examples/react && npm run --silent build)
echo "==> examples/vue: npm ci (when its lock file changed), vite build"
npm_ci_if_changed examples/vue
(cd examples/vue && npm run --silent build)
npm_ci_if_changed tests/support

echo "==> examples/socketio: npm ci, then the toolbar tarball"
npm_ci_if_changed examples/socketio
tarball=$(ls pkg/ctxguard-toolbar-*.tgz)
(cd examples/socketio && npm install --no-save --offline --no-audit --no-fund --silent "$root/$tarball")

shot=()
[ "${UPDATE_SCREENSHOT:-}" = 1 ] && shot=(--screenshot "$root/docs/react-example.png" --vue-screenshot "$root/docs/vue-example.png")
echo "==> browser checks"
node tests/examples/run.mjs --bin "$work/ctxguard" "${shot[@]}" "${only[@]}"
