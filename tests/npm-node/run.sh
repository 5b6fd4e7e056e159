#!/usr/bin/env bash
# The Node host of the ctxguard-core npm package, as a user meets it:
# builds the package (scripts/build-packages.sh skips an up-to-date one), installs
# the packed tarball offline into a fresh folder, then runs host.mjs (`import`)
# and host.cjs (`require`) there: every public case of the JS kinds through each,
# the export list and argument handling, the faults once found (faults.mjs), and the time
# from import to the first count; then documents.mjs (every document case through
# parseDocument) and pool.mjs (ctxguard-core/pool's TokenPool on worker_threads);
# then ssr/ssr.mjs: ctxguard-toolbar and ctxguard-core imported without a DOM and
# react-dom/server rendering the elements (ssr/'s lock file pins react and react-dom).
# `--only TEXT`: only the checks (and document cases) whose name holds TEXT.
set -uo pipefail
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

bash scripts/build-packages.sh core || { echo "npm-node: the package did not build"; echo "0 passed, 1 failed"; exit 1; }
tarball=$(ls "$root"/pkg/ctxguard-core-*.tgz)
project=$(mktemp -d -t ctxguard-npm-node.XXXXXX)
trap 'rm -rf "$project"' EXIT

echo "--> npm install --offline $(basename "$tarball") into a fresh folder"
(cd "$project" && npm init -y >/dev/null && npm install --offline --no-audit --no-fund --silent "$tarball") || {
  echo "FAIL offline install of the tarball"; echo "0 passed, 1 failed"; exit 1; }
cp tests/npm-node/host.mjs tests/npm-node/host.cjs tests/npm-node/pool.mjs tests/npm-node/documents.mjs "$project/"

status=0
echo "--> node host.mjs (import)"
(cd "$project" && CTXGUARD_ROOT="$root" node host.mjs "${only[@]}") || status=1
echo "--> node host.cjs (require)"
(cd "$project" && CTXGUARD_ROOT="$root" node host.cjs "${only[@]}") || status=1
echo "--> node documents.mjs (every document_parse case through ctxguard-core/documents)"
(cd "$project" && CTXGUARD_ROOT="$root" node documents.mjs "${only[@]}") || status=1
echo "--> node pool.mjs (ctxguard-core/pool on worker_threads)"
(cd "$project" && CTXGUARD_ROOT="$root" node pool.mjs "${only[@]}") || status=1
echo "--> node ssr/ssr.mjs (no DOM: the two packages imported, react-dom/server rendering the elements)"
if bash scripts/build-packages.sh toolbar && npm_ci_if_changed tests/npm-node/ssr; then
  (cd tests/npm-node/ssr && npm install --no-save --offline --no-audit --no-fund --silent "$root"/pkg/ctxguard-toolbar-*.tgz "$tarball" &&
    node ssr.mjs "${only[@]}") || status=1
else
  echo "FAIL the toolbar package or the ssr folder's install"; status=1
fi
exit $status
