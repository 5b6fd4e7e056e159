#!/usr/bin/env bash
# Runs every fuzz target (or those named) for SECONDS each (default 60), one
# after another under `nice -n 19`, and fails if any target finds a crash or a
# property failure, or if one input runs past libFuzzer's -timeout of 5 s (a
# loop or a missing bound: inputs are at most 4 KiB, and the replay in
# `cargo test` bounds each saved input too). Needs the nightly toolchain;
# installs cargo-fuzz when it is missing. Seeds come from fuzz/corpus/<target>/ (read-only); what libFuzzer
# learns goes to a corpus outside the clone that later runs continue from;
# failing inputs land in fuzz/artifacts/<target>/ (copy them to
# fuzz/regressions/<target>/ once fixed). Prints, per target, the executions
# and speed libFuzzer reports, as a FUZZING.md table row.
# Usage: scripts/fuzz.sh [SECONDS] [TARGET...]
#   CTXGUARD_FUZZ_RUNS=N also stops each target after N executions (for the long runs of FUZZING.md).
set -euo pipefail

CARGO_FUZZ_VERSION=0.13.2

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
source scripts/env.sh
seconds=${1:-60}
shift || true
case "$seconds" in
  '' | *[!0-9]*) echo "fuzz.sh: SECONDS must be a whole number, got '$seconds'" >&2; exit 2 ;;
esac

step() { echo "==> $*" >&2; }

if ! rustup toolchain list | grep -q '^nightly'; then
  echo "fuzz.sh: the nightly toolchain is missing (rustup toolchain install nightly)" >&2
  exit 2
fi
if ! cargo fuzz --version 2>/dev/null | grep -q "$CARGO_FUZZ_VERSION"; then
  step "cargo install cargo-fuzz $CARGO_FUZZ_VERSION (about 2 minutes)"
  nice -n 19 cargo install cargo-fuzz --version "$CARGO_FUZZ_VERSION" --locked
fi

# Nightly, sanitizer-instrumented builds share nothing with the stable ones: a target dir of their own.
export CARGO_TARGET_DIR="${CTXGUARD_FUZZ_TARGET_DIR:-$HOME/.cache/ctxguard/fuzz-target}"
work="${CTXGUARD_FUZZ_CORPUS:-$HOME/.cache/ctxguard/fuzz-corpus}"

if [ "$#" -gt 0 ]; then
  targets=("$@")
else
  mapfile -t targets < <(cargo +nightly fuzz list)
fi

# No sanitizer: core and the checks forbid unsafe code (workspace lint), so AddressSanitizer
# would only watch the dependencies, at two to three times the cost per input. Overflow checks
# stay on (cargo-fuzz builds with debug assertions).
fuzz_flags=(--sanitizer none)

step "cargo +nightly fuzz build (${#targets[@]} targets)"
nice -n 19 cargo +nightly fuzz build "${fuzz_flags[@]}"

logs=$(mktemp -d -t ctxguard-fuzz.XXXXXX)
failed=()
rows=()
for target in "${targets[@]}"; do
  step "fuzzing $target for ${seconds}s"
  mkdir -p "$work/$target" "fuzz/artifacts/$target"
  log="$logs/$target.log"
  status=0
  nice -n 19 cargo +nightly fuzz run "${fuzz_flags[@]}" "$target" "$work/$target" "fuzz/corpus/$target" -- \
    -max_total_time="$seconds" ${CTXGUARD_FUZZ_RUNS:+-runs="$CTXGUARD_FUZZ_RUNS"} -max_len=4096 -timeout=5 \
    -print_final_stats=1 -dict=fuzz/dict/ctxguard.dict >"$log" 2>&1 || status=$?
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  speed=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
  if [ "$status" -ne 0 ]; then
    failed+=("$target")
    grep -E 'panicked at|Test unit written to|^SUMMARY|^==[0-9]+==ERROR' "$log" | head -20 >&2 || true
    echo "fuzz.sh: $target failed (status $status); its log: $log" >&2
  fi
  took=$(sed -n 's/.*Done [0-9]* runs in \([0-9]*\) second.*/\1/p' "$log" | tail -1)
  rows+=("| $target | ${runs:-?} | ${speed:-?}/s | ${took:-$seconds}s | $(date -u +%F) | $([ "$status" -eq 0 ] && echo pass || echo FAIL) |")
done

echo
echo "| target | executions | speed | time | date | result |"
echo "| --- | ---: | ---: | ---: | --- | --- |"
printf '%s\n' "${rows[@]}"
if [ "${#failed[@]}" -gt 0 ]; then
  echo "fuzz.sh: ${#failed[@]} target(s) failed: ${failed[*]} (logs in $logs)" >&2
  exit 1
fi
rm -rf "$logs"
