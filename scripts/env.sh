# Sourced by the scripts: one target dir outside the clone (reused across CI clones), pinned tools
# first on PATH, and the browser tests' driver and Chrome flags (wasm-bindgen-test-runner reads them).
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/ctxguard/target}"
export CTXGUARD_TOOLS="${CTXGUARD_TOOLS:-$HOME/.cache/ctxguard/tools}"
export PATH="$CTXGUARD_TOOLS/node_modules/.bin:$HOME/.cargo/bin:$PATH"
export CHROMEDRIVER="${CHROMEDRIVER:-/usr/bin/chromedriver}"
export WASM_BINDGEN_TEST_WEBDRIVER_JSON="${WASM_BINDGEN_TEST_WEBDRIVER_JSON:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/tests/support/webdriver.json}"
export WASM_BINDGEN_TEST_TIMEOUT="${WASM_BINDGEN_TEST_TIMEOUT:-180}"

# npm_ci_if_changed DIR [NPM_CI_ARGS...]: `npm ci` in DIR unless its node_modules was installed from this very
# package-lock.json (its SHA-256 is kept in node_modules/.ctxguard-lock.sha256): the one
# staleness rule of every npm install the scripts and suites make.
npm_ci_if_changed() {
  local dir=$1 want have=""
  shift
  want=$(sha256sum "$dir/package-lock.json" | cut -d' ' -f1)
  [ -f "$dir/node_modules/.ctxguard-lock.sha256" ] && have=$(cat "$dir/node_modules/.ctxguard-lock.sha256")
  if [ "$want" != "$have" ]; then
    echo "==> npm ci in $dir" >&2
    (cd "$dir" && npm ci --silent --no-audit --no-fund "$@") || return 1
    echo "$want" >"$dir/node_modules/.ctxguard-lock.sha256"
  fi
}
