#!/usr/bin/env bash
# Builds every npm package under pkg/ (release), skipping each one that is
# newer than everything it is built from. Neither package is committed.
#   pkg/core/     ctxguard-core: the core's WebAssembly API (wasm-pack, then
#                 core/npm/build.mjs: the Node entry, package.json, README),
#                 packed as pkg/ctxguard-core-VERSION.tgz
#   pkg/toolbar/  ctxguard-toolbar: <ctxguard-toolbar> and <ctxguard-attachment-preview>
#                 (web/ built twice: the elements, then the preview engine)
# Usage: scripts/build-packages.sh [--force] [NAME...]   (NAME: core, toolbar; default all)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
source scripts/env.sh

force=0
names=()
for arg in "$@"; do
  case "$arg" in
    --force) force=1 ;;
    core|toolbar) names+=("$arg") ;;
    *) echo "build-packages.sh: unknown argument $arg (expected --force or a package: core, toolbar)" >&2; exit 2 ;;
  esac
done
[ ${#names[@]} -gt 0 ] || names=(core toolbar)

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

# The features rustc's wasm32 target enables (the release profile strips the target_features
# section, so wasm-opt is told them).
WASM_FEATURES=(--enable-bulk-memory --enable-bulk-memory-opt --enable-nontrapping-float-to-int --enable-sign-ext
  --enable-mutable-globals --enable-reference-types --enable-multivalue)

# wasm_module PROFILE OUT_DIR OUT_NAME WASM_OPT_FLAGS CARGO_ARGS...: builds web/ as a cdylib with
# CARGO_ARGS, binds it for browsers (ES module + .wasm) and optimises it. Symbols are kept
# for wasm-bindgen (it reads the target_features section) and dropped by wasm-opt.
wasm_module() {
  local profile=$1 dir=$2 name=$3 level=$4
  shift 4
  CARGO_PROFILE_RELEASE_STRIP=false CARGO_PROFILE_RELEASE_WASM_STRIP=false \
    cargo build -q -p ctxguard-web --lib --target wasm32-unknown-unknown --profile "$profile" "$@"
  rm -rf "$dir"
  wasm-bindgen --target web --no-typescript --out-dir "$dir" --out-name "$name" \
    "$CARGO_TARGET_DIR/wasm32-unknown-unknown/$profile/ctxguard_web.wasm"
  local opt
  read -ra opt <<<"$level"
  wasm-opt "${opt[@]}" "${WASM_FEATURES[@]}" "$dir/${name}_bg.wasm" -o "$dir/${name}_bg.wasm"
}

build_toolbar() {
  local out=pkg/toolbar
  if stale "$out/engine/ctxguard_preview_bg.wasm" web/src web/css web/js web/Cargo.toml core/src core/build.rs core/Cargo.toml Cargo.toml Cargo.lock scripts/build-packages.sh; then
    echo "==> pkg/toolbar: the elements (ctxguard-web, size-optimised, no tokenizer)" >&2
    mkdir -p "$out"
    wasm_module release-wasm "$out/wasm" ctxguard_toolbar "-Oz --converge"
    echo "==> pkg/toolbar: the preview engine (ctxguard-web --features engine: core's tokenizer)" >&2
    wasm_module release "$out/engine" ctxguard_preview -O3 --no-default-features --features engine
    cp web/js/ctxguard-toolbar.js web/js/package.json web/js/README.md "$out/"
    # The declarations: core's wire types (defined once, shared with ctxguard-core), then the elements'.
    { cat core/src/protocol/wire.d.ts; echo; cat web/js/ctxguard-toolbar.d.ts; } >"$out/ctxguard-toolbar.d.ts"
  else
    echo "==> pkg/toolbar is up to date (--force rebuilds it)" >&2
  fi
}

for name in "${names[@]}"; do
  "build_$name"
done
