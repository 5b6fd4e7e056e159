#!/usr/bin/env bash
# Builds every npm package under pkg/ (release), skipping each one whose inputs
# have not changed: a package records the SHA-256 of its inputs' contents (and
# of the tool versions) in .inputs.sha256, so a fresh clone with old timestamps
# never ships a stale package and touching a file without changing it rebuilds
# nothing. Neither package is committed.
#   pkg/core/     ctxguard-core: core's WebAssembly API (cargo + wasm-bindgen +
#                 wasm-opt, then core/npm/build.mjs: the Node entries,
#                 package.json, README, LICENSE, THIRD-PARTY-NOTICES.md) and its subpath ./documents (the
#                 ctxguard-extract parsers, a .wasm of their own), packed as
#                 pkg/ctxguard-core-VERSION.tgz
#   pkg/toolbar/  ctxguard-toolbar: <ctxguard-toolbar> and <ctxguard-attachment-preview>
#                 (web/: the elements; web/engine/: the preview engine the
#                 preview's Worker runs), built with the demo page as `trunk build
#                 --release` builds it from index.html (build_page: the same cargo,
#                 wasm-bindgen and wasm-opt invocations, without needing trunk), kept
#                 whole as pkg/demo/, which tests/e2e serves: one release build per
#                 change for both; packed as pkg/ctxguard-toolbar-VERSION.tgz
# Usage: scripts/build-packages.sh [--force] [NAME...]   (NAME: core, toolbar; default all)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
source scripts/env.sh
# The packages' wasm32 release builds share nothing with the native and test builds, so they
# have a target dir of their own: scripts/test.sh runs this beside `cargo test` (which holds
# its target dir's lock for the whole run) instead of after it.
export CARGO_TARGET_DIR="$CARGO_TARGET_DIR/packages"

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

# inputs_hash PATH...: one SHA-256 over the contents and names of every file under the
# paths (sorted), and the versions of the tools that turn them into a package.
inputs_hash() {
  {
    find "$@" -type f -not -path '*/node_modules/*' -print0 | sort -z | xargs -0 sha256sum
    rustc --version
    wasm-bindgen --version
    wasm-opt --version
  } | sha256sum | cut -d' ' -f1
}

# up_to_date OUT HASH: whether OUT was built from inputs with this HASH.
up_to_date() {
  [ "$force" = 0 ] && [ -f "$1/.inputs.sha256" ] && [ "$(cat "$1/.inputs.sha256")" = "$2" ]
}

# The features rustc's wasm32 target enables (the release profile strips the target_features
# section, so wasm-opt is told them).
WASM_FEATURES=(--enable-bulk-memory --enable-bulk-memory-opt --enable-nontrapping-float-to-int --enable-sign-ext
  --enable-mutable-globals --enable-reference-types --enable-multivalue)

# wasm_module CRATE LIB PROFILE OUT_DIR OUT_NAME TS WASM_OPT_FLAGS CARGO_ARGS...: builds CRATE as a
# cdylib for wasm32, binds it for browsers (ES module + .wasm; TS: with declarations or not)
# and optimises it. The release-wasm* profiles keep symbols for wasm-bindgen (it reads the
# target_features section); wasm-opt drops them.
wasm_module() {
  local crate=$1 lib=$2 profile=$3 dir=$4 name=$5 ts=$6 level=$7
  shift 7
  cargo build -q -p "$crate" --lib --target wasm32-unknown-unknown --profile "$profile" "$@"
  rm -rf "$dir"
  local typescript=--no-typescript
  [ "$ts" = ts ] && typescript=
  # --experimental-reset-state-function: __wbg_reset_state, which core/npm/build.mjs calls after a
  # trap to instantiate the module again (objects of the old instance then refuse to run).
  wasm-bindgen --target web $typescript --experimental-reset-state-function --out-dir "$dir" --out-name "$name" \
    "$CARGO_TARGET_DIR/wasm32-unknown-unknown/$profile/$lib.wasm"
  local opt
  read -ra opt <<<"$level"
  wasm-opt "${opt[@]}" "${WASM_FEATURES[@]}" "$dir/${name}_bg.wasm" -o "$dir/${name}_bg.wasm"
}

# build_page DIST: the demo page and the toolbar's browser files into DIST, as `trunk build
# --release` makes them from index.html's trunk links (scripts/page-links.mjs reads them):
# each worker crate built by cargo with its release profile, bound by wasm-bindgen for the web
# and optimised by wasm-opt with the link's level and parameters, in trunk's argument order;
# the copied files and the stylesheet; then trunk's post_build hook (scripts/name-modules.mjs)
# on the staged files. trunk itself stays the tool of `trunk serve`.
build_page() {
  local dist=$1 stage kind href target profile level params crate lib out
  stage=$(mktemp -d "${TMPDIR:-/tmp}/ctxguard-page.XXXXXX")
  while IFS=$'\t' read -r kind href target profile level params; do
    case "$kind" in
      rust)
        crate=$(awk -F'"' '/^\[package\]/ { p = 1 } p && /^name *=/ { print $2; exit }' "$href")
        lib=${crate//-/_}
        out="$stage/$target"
        mkdir -p "$out"
        cargo build -q --target=wasm32-unknown-unknown --manifest-path "$href" --profile "$profile"
        wasm-bindgen --target=web --out-dir="$out" --out-name="$crate" \
          "$CARGO_TARGET_DIR/wasm32-unknown-unknown/$profile/$lib.wasm" --no-typescript
        local opt
        read -ra opt <<<"$params"
        wasm-opt --output="$stage/$crate.opt.wasm" "-O$level" "$out/${crate}_bg.wasm" "${opt[@]}"
        mv "$stage/$crate.opt.wasm" "$out/${crate}_bg.wasm"
        ;;
      copy)
        mkdir -p "$stage/$target"
        cp "$href" "$stage/$target/"
        ;;
      css) cp "$href" "$stage/" ;;
    esac
  done < <(node scripts/page-links.mjs steps)
  node scripts/page-links.mjs page >"$stage/index.html"
  TRUNK_STAGING_DIR="$stage" node scripts/name-modules.mjs
  rm -rf "$dist"
  mkdir -p "$(dirname "$dist")"
  mv "$stage" "$dist"
  chmod 755 "$dist"
}

# The workspace's version (one for every crate and package).
version=$(awk -F'"' '/^\[workspace.package\]/ { p = 1 } p && /^version *=/ { print $2; exit }' Cargo.toml)

build_core() {
  local out=pkg/core
  local hash
  hash=$(inputs_hash core/src core/build.rs core/Cargo.toml core/npm extract/src extract/Cargo.toml \
    Cargo.toml Cargo.lock scripts/build-packages.sh LICENSE THIRD-PARTY-NOTICES.md)
  if up_to_date "$out" "$hash"; then
    echo "==> pkg/core is up to date (--force rebuilds it)" >&2
    return
  fi
  echo "==> pkg/core: ctxguard-core for wasm32 (release, about 2 minutes)" >&2
  rm -rf "$out"
  wasm_module ctxguard-core ctxguard_core release-wasm-speed "$out" ctxguard_core ts -O
  echo "==> pkg/core/documents: ctxguard-extract's parsers (release)" >&2
  wasm_module ctxguard-extract ctxguard_extract release-wasm-speed "$out/documents" ctxguard_documents ts -O3 --features wasm
  local repository
  repository=$(git remote get-url origin 2>/dev/null || true)
  node core/npm/build.mjs "$out" --version "$version" ${repository:+--repository "$repository"}
  # What it ships from whom under which licence (scripts/licences.py), and ctxguard's own licence.
  cp LICENSE THIRD-PARTY-NOTICES.md "$out/"
  # The tarball a user installs (pkg/ctxguard-core-VERSION.tgz); the example hosts install it.
  rm -f pkg/ctxguard-core-*.tgz
  (cd "$out" && npm pack --silent --pack-destination .. >/dev/null)
  echo "$hash" >"$out/.inputs.sha256"
  echo "==> $(ls pkg/ctxguard-core-*.tgz)" >&2
}

build_toolbar() {
  local out=pkg/toolbar
  local hash
  hash=$(inputs_hash web/src web/build.rs web/css web/js web/page.css web/Cargo.toml web/engine core/src core/build.rs core/Cargo.toml \
    extract/src extract/Cargo.toml index.html Trunk.toml scripts/name-modules.mjs scripts/page-links.mjs Cargo.toml Cargo.lock \
    scripts/build-packages.sh LICENSE THIRD-PARTY-NOTICES.md)
  if up_to_date "$out" "$hash" && [ -f pkg/demo/index.html ]; then
    echo "==> pkg/toolbar and pkg/demo are up to date (--force rebuilds them)" >&2
    return
  fi
  # The package's browser files are built with the demo page (index.html): the elements
  # (ctxguard-web, size-optimised, no parser, no tokenizer) and the preview engine
  # (ctxguard-preview-engine: the parsers and core's tokenizer), then the entry and worker
  # scripts; the package is that folder plus its manifest, README and declarations.
  echo "==> pkg/toolbar: the demo page and the package (release: the elements and the preview engine)" >&2
  local dist=pkg/demo
  rm -rf "$out"
  build_page "$dist"
  mkdir -p "$out"
  cp -r "$dist/ctxguard-toolbar/." "$out/"
  cp web/js/README.md web/js/custom-elements.json LICENSE THIRD-PARTY-NOTICES.md "$out/"
  sed "s/\"version\": \"[^\"]*\"/\"version\": \"$version\"/" web/js/package.json >"$out/package.json"
  # The declarations: core's wire types (defined once, shared with ctxguard-core), then the elements'.
  { cat core/src/protocol/wire.d.ts; echo; cat web/js/ctxguard-toolbar.d.ts; } >"$out/ctxguard-toolbar.d.ts"
  rm -f pkg/ctxguard-toolbar-*.tgz
  (cd "$out" && npm pack --silent --pack-destination .. >/dev/null)
  echo "$hash" >"$out/.inputs.sha256"
  echo "==> $(ls pkg/ctxguard-toolbar-*.tgz)" >&2
}

for name in "${names[@]}"; do
  "build_$name"
done
