#!/usr/bin/env bash
# The bundler hosts of the ctxguard-core npm package: builds the
# package (skipped when up to date), installs the packed tarball into this
# folder's node_modules next to the pinned Vite and webpack (npm ci from the
# lock file), then run.mjs builds the two-line app with each and loads it in
# headless Chromium. `--only TEXT`: only the checks whose name holds TEXT.
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
here="$root/tests/npm-bundlers"
cd "$root"
source scripts/env.sh

bash scripts/build-packages.sh core || { echo "npm-bundlers: the package did not build"; echo "0 passed, 1 failed"; exit 1; }
for dir in "$here" tests/support; do
  npm_ci_if_changed "$dir" || { echo "FAIL npm ci in $dir"; echo "0 passed, 1 failed"; exit 1; }
done
tarball=$(ls "$root"/pkg/ctxguard-core-*.tgz)
echo "--> npm install --no-save --offline $(basename "$tarball")"
(cd "$here" && npm install --no-save --offline --no-audit --no-fund --silent "$tarball") || {
  echo "FAIL install of the tarball"; echo "0 passed, 1 failed"; exit 1; }
node "$here/run.mjs" "$@"
