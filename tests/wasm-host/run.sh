#!/usr/bin/env bash
# The browser suite of the npm package:
#   1. builds pkg/core/ and its tarball (release) with scripts/build-packages.sh, which
#      skips an up-to-date one, and installs the tarball into tests/wasm-host/node_modules;
#   2. wasm-bindgen tests in headless Chromium (cargo's wasm32 runner): every public
#      vector through the core entry points, plus the JS-facing layer (core/tests/wasm.rs);
#   3. the TypeScript check of a host using every export (tsc --noEmit, strict, with
#      bundler and with Node resolution), and no `any` in the public declarations;
#   4. the host page test: tests/wasm-host/index.html and pool.html in Chromium, Firefox ESR
#      and WebKitGTK (tests/support/engines.mjs), the package through its browser entry
#      (prints the timings), then the tarball's size and the .wasm's raw/gzip/brotli size.
# Exits non-zero when any step fails. Options: --rebuild (always rebuild pkg/core/);
# --only TEXT (cargo's name filter for the wasm tests, run.mjs's --only for the page checks).
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
here="$root/tests/wasm-host"
cd "$root"
source scripts/env.sh

rebuild=0
only=()
filter=()
while [ $# -gt 0 ]; do
  case "$1" in
    --rebuild) rebuild=1; shift ;;
    --only) only=(--only "${2:?--only takes the text of a test name}"); filter=("$2"); shift 2 ;;
    *) echo "run.sh: unknown option $1" >&2; exit 2 ;;
  esac
done

failures=()
step() { printf '\n--> %s\n' "$*"; }
fail() { failures+=("$1"); echo "FAILED: $1" >&2; }

step "scripts/build-packages.sh core (skips an up-to-date pkg/core/)"
if ! bash scripts/build-packages.sh core $([ "$rebuild" = 1 ] && echo --force); then
  fail "package build"
  printf '\n%s\n' "wasm-host: the package did not build; nothing else can run" >&2
  exit 1
fi

# One invocation for both test binaries: built apart, core was compiled twice (with its JS
# facade for its own test, without it under extract's), 181 units against 163 together.
step "cargo test --target wasm32-unknown-unknown -p ctxguard-core -p ctxguard-extract --test wasm (the vectors and every document case, headless Chromium)"
cargo test -p ctxguard-core -p ctxguard-extract --target wasm32-unknown-unknown --test wasm --no-fail-fast -- "${filter[@]}" ||
  fail "the wasm tests of core and extract"

step "install the packed tarball into tests/wasm-host (typescript from the lock file)"
npm_ci_if_changed "$here" || fail "npm ci in tests/wasm-host"
tarball=$(ls pkg/ctxguard-core-*.tgz)
(cd "$here" && npm install --no-save --offline --no-audit --no-fund --silent "$root/$tarball") || fail "install of $tarball"

step "TypeScript check of a host using every export (strict)"
(cd "$here" && node_modules/.bin/tsc -p tsconfig.json) && echo "tsc --noEmit (bundler resolution): ok" || fail "tsc --noEmit"
(cd "$here" && node_modules/.bin/tsc -p tsconfig.node.json) && echo "tsc --noEmit (Node resolution): ok" || fail "tsc --noEmit (Node resolution)"
# The public surface (everything before wasm-bindgen's own InitInput/InitOutput plumbing) has no `any`.
if awk '/^export type InitInput/ { exit } { print }' pkg/core/ctxguard_core.d.ts | grep -v '^ *\(/\*\|\*\)' | grep -w 'any'; then
  fail "\`any\` in the public declarations of pkg/core/ctxguard_core.d.ts"
else
  echo "no \`any\` in the public declarations"
fi

step "host page test in every engine (tests/wasm-host/index.html; 3 fresh page loads in Chromium)"
npm_ci_if_changed tests/support || fail "npm ci in tests/support"
node "$here/run.mjs" --runs 3 "${only[@]}" || fail "host page test"

step "package size"
echo "$(basename "$tarball"): $(stat -c %s "$tarball") B packed"
node "$here/size.mjs" || fail "size report"

if [ ${#failures[@]} -gt 0 ]; then
  printf '\nwasm-host: %d step(s) failed: %s\n' "${#failures[@]}" "${failures[*]}" >&2
  exit 1
fi
printf '\nwasm-host: all steps passed\n'
