#!/usr/bin/env bash
# Toolbar browser tests: the wasm-bindgen-test DOM suite (web/tests/dom.rs, with the
# preview engine in the page: feature local-preview) and the crate's unit tests compiled
# to wasm32, in headless Chromium through chromedriver (cargo's wasm32 runner,
# wasm-bindgen-test-runner; Chrome's flags: tests/support/webdriver.json). Exits non-zero
# when any test fails. `--only TEXT`: cargo's name filter (the tests whose name holds TEXT).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
source scripts/env.sh
filter=()
while [ $# -gt 0 ]; do
  case "$1" in
    --only) filter=("${2:?--only takes the text of a test name}"); shift 2 ;;
    *) echo "$0: unknown option $1 (expected --only TEXT)" >&2; exit 2 ;;
  esac
done

for tool in wasm-bindgen-test-runner "$CHROMEDRIVER"; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    echo "tests/web/run.sh: $tool is missing (run scripts/setup.sh)" >&2
    exit 1
  fi
done

echo "==> toolbar DOM tests (headless Chromium)"
cargo test -p ctxguard-web --target wasm32-unknown-unknown --features local-preview -- "${filter[@]}"
