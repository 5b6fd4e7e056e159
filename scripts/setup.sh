#!/usr/bin/env bash
# Installs what the demo and the tests need, skipping whatever is already there.
# Usage: scripts/setup.sh [--no-browser] [--no-web-tools] [--trunk]
#   --trunk: also trunk, for `trunk serve` while working on the toolbar (the demo and the tests
#   build the page without it: scripts/build-packages.sh).
set -euo pipefail

WASM_BINDGEN_VERSION=0.2.130
TRUNK_VERSION=0.21.14
BINARYEN_VERSION=132.0.0
TERSER_VERSION=5.51.4

root=$(cd "$(dirname "$0")/.." && pwd)
source "$root/scripts/env.sh"
tools="$CTXGUARD_TOOLS"
want_browser=1
want_web_tools=1
want_trunk=0
for arg in "$@"; do
  case "$arg" in
    --no-browser) want_browser=0 ;;
    --no-web-tools) want_web_tools=0 ;;
    --trunk) want_trunk=1 ;;
    *) echo "setup.sh: unknown option $arg" >&2; exit 2 ;;
  esac
done

step() { echo "==> $*" >&2; }

# The pinned tools are build helpers, not hot code: their own release profiles ask for
# fat LTO and one codegen unit, which on two cores costs most of the install time
# (trunk: 11 min) for no speed this project can notice. Config overrides the manifest.
quick_install() {
  CARGO_PROFILE_RELEASE_LTO=false CARGO_PROFILE_RELEASE_CODEGEN_UNITS=16 \
    CARGO_PROFILE_RELEASE_DEBUG=false CARGO_PROFILE_RELEASE_INCREMENTAL=false \
    cargo install "$@"
}

has_version() { # command, expected version substring
  command -v "$1" >/dev/null 2>&1 && "$1" --version 2>/dev/null | grep -q "$2"
}

if ! rustup target list --installed | grep -qx wasm32-unknown-unknown; then
  step "rustup target add wasm32-unknown-unknown"
  rustup target add wasm32-unknown-unknown
fi

# Chromium and its driver for the browser tests; a CJK font so the Chinese UI and CJK
# attachment previews render as text, not boxes, in screenshots. (Not `fc-list | grep -q`: grep
# quits at the first match, fc-list dies of SIGPIPE, and pipefail reads that as no font.)
if [ "$want_browser" = 1 ] && { [ ! -x /usr/bin/chromium ] || [ ! -x /usr/bin/chromedriver ] || [ -z "$(fc-list 2>/dev/null | grep -i wenquanyi)" ]; }; then
  step "installing Debian's chromium, chromium-driver and fonts-wqy-zenhei"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq chromium chromium-driver fonts-wqy-zenhei >/dev/null
fi

# The other two engines the element and package checks run in (tests/support/engines.mjs):
# Firefox ESR (driven over WebDriver BiDi) and WebKitGTK, Safari's engine (WebKitWebDriver and
# MiniBrowser, under Xvfb).
if [ "$want_browser" = 1 ] && { [ ! -x /usr/bin/firefox-esr ] || [ ! -x /usr/bin/WebKitWebDriver ] || [ ! -x /usr/bin/Xvfb ]; }; then
  step "installing Debian's firefox-esr, webkit2gtk-driver and xvfb"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq firefox-esr webkit2gtk-driver xvfb >/dev/null
fi

# redis-server for the relay's Redis-store tests (each test starts its own on a free port, persistence off).
if ! has_version redis-server "v=7"; then
  step "installing Debian's redis-server"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq redis-server >/dev/null
  # The relay's tests start their own servers; Debian's service is not needed.
  if command -v systemctl >/dev/null 2>&1; then systemctl disable --now redis-server >/dev/null 2>&1 || true; fi
fi

# Both without their default features, which are TLS stacks (rustls and ring) and trunk's
# update check: nothing here downloads (Trunk.toml says offline; wasm-bindgen-test-runner
# speaks plain HTTP to the local chromedriver). trunk 510 -> 490 compile units,
# wasm-bindgen-cli 216 -> 201 (cargo +nightly build --unit-graph).
if [ "$want_web_tools" = 1 ]; then
  if ! has_version wasm-bindgen "$WASM_BINDGEN_VERSION"; then
    step "cargo install wasm-bindgen-cli $WASM_BINDGEN_VERSION"
    quick_install wasm-bindgen-cli --version "$WASM_BINDGEN_VERSION" --no-default-features
  fi
  if [ "$want_trunk" = 1 ] && ! has_version trunk "$TRUNK_VERSION"; then
    step "cargo install trunk $TRUNK_VERSION"
    quick_install trunk --version "$TRUNK_VERSION" --locked --no-default-features
  fi
  if [ ! -x "$tools/node_modules/.bin/wasm-opt" ]; then
    step "npm install binaryen@$BINARYEN_VERSION (wasm-opt)"
    mkdir -p "$tools"
    npm install --silent --no-audit --no-fund --prefix "$tools" "binaryen@$BINARYEN_VERSION"
  fi
  # terser minifies the toolbar's wasm-bindgen glue (scripts/name-modules.mjs, trunk's hook).
  if [ ! -f "$tools/node_modules/terser/package.json" ] || ! grep -q "\"version\": \"$TERSER_VERSION\"" "$tools/node_modules/terser/package.json"; then
    step "npm install terser@$TERSER_VERSION (the toolbar's glue minifier)"
    mkdir -p "$tools"
    npm install --silent --no-audit --no-fund --prefix "$tools" "binaryen@$BINARYEN_VERSION" "terser@$TERSER_VERSION"
  fi
fi

# The one browser driver of the Node test runners (playwright-core over Debian's Chromium).
if [ "$want_browser" = 1 ]; then
  npm_ci_if_changed "$root/tests/support"
fi
# The npm package's hosts: TypeScript for the declarations check, Vite and webpack for the bundler builds.
if [ "$want_web_tools" = 1 ]; then
  npm_ci_if_changed "$root/tests/wasm-host"
  npm_ci_if_changed "$root/tests/npm-bundlers"
fi
