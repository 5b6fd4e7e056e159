#!/usr/bin/env bash
# The browser suite of the npm package (issue 3):
#   1. builds pkg/core/ (release) with scripts/build-packages.sh, which skips an up-to-date one;
#   2. wasm-pack tests in headless Chromium: every public vector through the
#      core entry points, plus the JS-facing layer (core/tests/wasm.rs);
#   3. the TypeScript check of pkg/core/*.d.ts (tsc --noEmit, and no `any` in the API);
#   4. the host page test: tests/wasm-host/index.html in headless Chromium (tests/support)
#      (prints the init-to-first-count timings), then the .wasm's raw/gzip/brotli size.
# Exits non-zero when any step fails. Options: --rebuild (always rebuild pkg/core/).
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
here="$root/tests/wasm-host"
cd "$root"
source scripts/env.sh

rebuild=0
for arg in "$@"; do
  case "$arg" in
    --rebuild) rebuild=1 ;;
    *) echo "run.sh: unknown option $arg" >&2; exit 2 ;;
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

step "wasm-pack test --headless --chrome (core/tests/wasm.rs)"
wasm-pack test --headless --chrome --chromedriver /usr/bin/chromedriver --mode no-install core --test wasm ||
  fail "wasm-pack test"

step "TypeScript check of pkg/core/*.d.ts"
if [ ! -d "$here/node_modules" ]; then
  (cd "$here" && npm ci --silent --no-audit --no-fund) || fail "npm ci in tests/wasm-host"
fi
(cd "$here" && node_modules/.bin/tsc -p tsconfig.json) && echo "tsc --noEmit: ok" || fail "tsc --noEmit"
# The public surface (everything before wasm-bindgen's own InitInput/InitOutput plumbing) has no `any`.
if awk '/^export type InitInput/ { exit } { print }' pkg/core/ctxguard_core.d.ts | grep -v '^ *\(/\*\|\*\)' | grep -w 'any'; then
  fail "\`any\` in the public declarations of pkg/core/ctxguard_core.d.ts"
else
  echo "no \`any\` in the public declarations"
fi

step "host page test in headless Chromium (tests/wasm-host/index.html), 3 fresh page loads"
if [ ! -d tests/support/node_modules ]; then
  (cd tests/support && npm ci --silent --no-audit --no-fund) || fail "npm ci in tests/support"
fi
node "$here/run.mjs" --runs 3 || fail "host page test"

step "package size"
node "$here/size.mjs" || fail "size report"

if [ ${#failures[@]} -gt 0 ]; then
  printf '\nwasm-host: %d step(s) failed: %s\n' "${#failures[@]}" "${failures[*]}" >&2
  exit 1
fi
printf '\nwasm-host: all steps passed\n'
