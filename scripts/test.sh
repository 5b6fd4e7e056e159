#!/usr/bin/env bash
# Runs every test of the project: installs what is missing, then lint, native
# tests, the wasm32 build, the conformance runner, and the browser suites.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
source scripts/env.sh
log=$(mktemp -t ctxguard-test.XXXXXX)
exec > >(tee -a "$log") 2>&1
bash scripts/setup.sh

step() { printf '\n==> %s\n' "$*"; }

step "cargo fmt --check"
cargo fmt --all -- --check
# The cargo-fuzz crate is a workspace of its own (nightly only); its target files are checked here.
rustfmt --edition 2021 --check fuzz/fuzz_targets/*.rs

step "cargo clippy (native, all targets)"
cargo clippy --workspace --all-targets -- -D warnings

step "cargo test (native: unit, property and conformance tests; fuzz/checks replays the fuzz corpus and regressions)"
cargo test --workspace

step "cargo clippy (wasm32: ctxguard-core with its JS facade, the toolbar, the preview engine)"
cargo clippy -p ctxguard-core --target wasm32-unknown-unknown -- -D warnings
cargo clippy -p ctxguard-web --target wasm32-unknown-unknown -- -D warnings
cargo clippy -p ctxguard-web --target wasm32-unknown-unknown --no-default-features --features engine -- -D warnings

step "scripts/check-contracts.sh (every wire contract is core's)"
bash scripts/check-contracts.sh

step "ctxguard conformance tests/conformance/vectors.jsonl"
cargo run -q -p ctxguard-cli --release -- conformance tests/conformance/vectors.jsonl

# Browser suites (wasm-pack tests, the npm package host page, toolbar DOM and end-to-end tests).
for suite in tests/*/run.sh; do
  [ -f "$suite" ] || continue
  step "$suite"
  bash "$suite"
done

# One closing tally over every runner above (cargo's "test result" lines and the browser
# suites' "N passed, M failed" lines).
awk '
  /^test result: / { for (i = 1; i <= NF; i++) { if ($(i+1) ~ /^passed;/) p += $i; if ($(i+1) ~ /^failed;/) f += $i } }
  /^[0-9]+ passed, [0-9]+ failed$/ { p += $1; f += $3 }
  END { printf "\ntotal: %d passed, %d failed\n", p, f }
' "$log"
rm -f "$log"
