#!/usr/bin/env bash
# Runs every test of the project: installs what is missing, then lint, native
# tests, the wasm32 build, the conformance runner, and the browser suites.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
source scripts/env.sh
bash scripts/setup.sh

step() { printf '\n==> %s\n' "$*"; }

step "cargo fmt --check"
cargo fmt --all -- --check

step "cargo clippy (native, all targets)"
cargo clippy --workspace --all-targets -- -D warnings

step "cargo test (native: unit, property and conformance tests)"
cargo test --workspace

step "wasm32 build of ctxguard-core"
cargo build -p ctxguard-core --target wasm32-unknown-unknown

step "ctxguard conformance tests/conformance/vectors.jsonl"
cargo run -q -p ctxguard-cli --release -- conformance tests/conformance/vectors.jsonl

# Browser suites (wasm-pack tests, the npm package host page, toolbar DOM and end-to-end tests).
for suite in tests/*/run.sh; do
  [ -f "$suite" ] || continue
  step "$suite"
  bash "$suite"
done

printf '\nall test suites passed\n'
