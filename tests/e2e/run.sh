#!/usr/bin/env bash
# End-to-end test: builds the demo page (scripts/build-packages.sh toolbar:
# release, the page with the toolbar package, kept as pkg/demo/ and skipped
# when up to date, so the elements suite reuses it) and the CLI, starts `ctxguard serve` with a short fast
# script on a free loopback port, and drives headless Chromium
# (tests/support's driver; tests/e2e/e2e.mjs): live updates, reload during a
# compaction, the history and the forecast, ?session=/?lang=/?token=, server
# stop/restart, malformed events, HTML in failure_reason. Prints
# `N passed, M failed`; exits non-zero on any failure.
#
#   bash tests/e2e/run.sh                      # screenshot into a temp dir
#   UPDATE_SCREENSHOT=1 bash tests/e2e/run.sh  # ... into docs/toolbar.png
#   E2E_DIST=DIR bash tests/e2e/run.sh         # use an existing toolbar build
#   bash tests/e2e/run.sh --only TEXT          # only the checks whose name holds TEXT
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

for tool in cargo wasm-bindgen wasm-opt node npm "${CHROMIUM:-/usr/bin/chromium}"; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    echo "tests/e2e/run.sh: $tool is missing (run scripts/setup.sh)" >&2
    exit 1
  fi
done

work=$(mktemp -d "${TMPDIR:-/tmp}/ctxguard-e2e.XXXXXX")
trap 'rm -rf "$work"' EXIT

# The relay: the binary scripts/test.sh built once (CTXGUARD_BIN), else a build of our own
# (a private copy: other builds sharing the target dir may replace the binary meanwhile).
if [ -n "${CTXGUARD_BIN:-}" ]; then
  cp "$CTXGUARD_BIN" "$work/ctxguard"
else
  echo "==> ctxguard"
  cargo build -q -p ctxguard-cli
  cp "$CARGO_TARGET_DIR/debug/ctxguard" "$work/ctxguard"
fi

dist="${E2E_DIST:-}"
if [ -z "$dist" ]; then
  echo "==> demo page (scripts/build-packages.sh toolbar: pkg/demo/ and pkg/toolbar/)"
  bash scripts/build-packages.sh toolbar
  # A copy: a later package build replaces pkg/demo/.
  dist="$work/dist"
  cp -r pkg/demo "$dist"
fi

npm_ci_if_changed tests/support

shot="$work/toolbar.png"
[ "${UPDATE_SCREENSHOT:-}" = 1 ] && shot="$root/docs/toolbar.png" && mkdir -p docs

echo "==> browser checks"
node tests/e2e/e2e.mjs --bin "$work/ctxguard" --dist "$dist" --screenshot "$shot" "${only[@]}"
