#!/usr/bin/env bash
# Browser tests of the toolbar package: builds pkg/toolbar (release; skipped
# when up to date), checks its size budget, then drives <ctxguard-toolbar>
# and <ctxguard-attachment-preview> in headless Chromium through their public
# API (tests/elements/run.mjs), then the checks that cover what differs between
# engines (shadow DOM, the SSE stream, the worker preview of documents) in
# Chromium, Firefox ESR and WebKitGTK (tests/elements/engines.mjs). Prints `N passed, M failed`; exits non-zero on
# any failure. `--only TEXT`: only the checks whose name holds TEXT.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
source scripts/env.sh

for tool in cargo wasm-bindgen wasm-opt node npm "${CHROMIUM:-/usr/bin/chromium}" "${FIREFOX:-/usr/bin/firefox-esr}" "${WEBKIT_WEBDRIVER:-/usr/bin/WebKitWebDriver}" "${XVFB:-/usr/bin/Xvfb}"; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    echo "tests/elements/run.sh: $tool is missing (run scripts/setup.sh)" >&2
    exit 1
  fi
done

# The toolbar package, and ctxguard-core (the documents check compares the preview with its API).
bash scripts/build-packages.sh toolbar core
npm_ci_if_changed tests/support

echo "==> toolbar package size"
# The report only: the budget itself is one of the checks below (a miss is a failed check, not a stop).
node tests/elements/size.mjs || true
status=0
echo "==> element checks (headless Chromium)"
node tests/elements/run.mjs "$@" || status=1
echo "==> element checks in every engine (Chromium, Firefox ESR, WebKitGTK)"
node tests/elements/engines.mjs "$@" || status=1
exit $status
