#!/usr/bin/env bash
# Toolbar browser tests: the wasm-bindgen-test DOM suite (web/tests/dom.rs and
# the crate's unit tests compiled to wasm32) in headless Chromium through
# chromedriver. Chrome's flags come from web/webdriver.json (root needs --no-sandbox).
# Exits non-zero when any test fails.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
source scripts/env.sh

chromedriver="${CHROMEDRIVER:-/usr/bin/chromedriver}"
for tool in wasm-pack wasm-bindgen "$chromedriver"; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    echo "tests/web/run.sh: $tool is missing (run scripts/setup.sh)" >&2
    exit 1
  fi
done

echo "==> toolbar DOM tests (headless Chromium)"
wasm-pack test --headless --chrome --chromedriver "$chromedriver" --mode no-install web
