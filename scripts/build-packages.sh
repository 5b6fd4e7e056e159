#!/usr/bin/env bash
# Builds every npm package under pkg/ (release), skipping each one that is
# newer than everything it is built from. Neither package is committed.
#   pkg/core/  ctxguard-core: the core's WebAssembly API (wasm-pack, then
#              core/npm/build.mjs: the Node entry, package.json, README),
#              packed as pkg/ctxguard-core-VERSION.tgz
# Usage: scripts/build-packages.sh [--force] [NAME...]   (NAME: core; default all)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
source scripts/env.sh

force=0
names=()
for arg in "$@"; do
  case "$arg" in
    --force) force=1 ;;
    core) names+=("$arg") ;;
    *) echo "build-packages.sh: unknown argument $arg (expected --force or a package: core)" >&2; exit 2 ;;
  esac
done
[ ${#names[@]} -gt 0 ] || names=(core)

# stale OUTPUT SOURCE...: whether OUTPUT is missing or older than any file under the sources.
stale() {
  local out=$1
  shift
  [ "$force" = 1 ] || [ ! -f "$out" ] || [ -n "$(find "$@" -newer "$out" -type f -print -quit 2>/dev/null)" ]
}

build_core() {
  local out=pkg/core
  local built=0
  if stale "$out/ctxguard_core_bg.wasm" core/src core/build.rs core/Cargo.toml Cargo.toml Cargo.lock scripts/build-packages.sh; then
    echo "==> pkg/core: wasm-pack build core --release --target web (about 2 minutes)" >&2
    wasm-pack build core --release --target web --out-dir ../pkg/core --mode no-install
    built=1
  fi
  # The package around the wasm: entries, package.json (the workspace's version), README.
  if [ "$built" = 1 ] || stale "$out/node.js" core/npm "$out/ctxguard_core_bg.wasm"; then
    local repository
    repository=$(git remote get-url origin 2>/dev/null || true)
    node core/npm/build.mjs "$out" ${repository:+--repository "$repository"}
    # The tarball a user installs (pkg/ctxguard-core-VERSION.tgz); the example hosts install it.
    rm -f pkg/ctxguard-core-*.tgz
    (cd "$out" && npm pack --silent --pack-destination .. >/dev/null)
    echo "==> $(ls pkg/ctxguard-core-*.tgz)" >&2
  else
    echo "==> pkg/core is up to date (--force rebuilds it)" >&2
  fi
}

for name in "${names[@]}"; do
  "build_$name"
done
