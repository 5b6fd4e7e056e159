#!/usr/bin/env bash
# Runs every test of the project: installs what is missing (scripts/setup.sh),
# then each suite in turn, whatever the ones before it did:
#   lint     cargo fmt, clippy (native, and wasm32 for every crate that ships to
#            browsers), the TypeScript contract check, the licence check;
#   cargo    cargo test --workspace (unit, property, conformance and fuzz-replay tests);
#   tests/*  every folder with a run.sh (browser suites, npm hosts, examples);
# the npm packages those suites load are built in the background meanwhile
# (scripts/build-packages.sh, in a target dir of its own).
# One line per suite (PASS/FAIL, its count, its seconds), then
# `total: N passed, M failed`; exits non-zero when any suite failed. Each suite's
# count comes from its own output (cargo's `test result:` lines, the runners'
# `N passed, M failed` lines), read once the suite has ended.
#
#   bash scripts/test.sh                 # everything
#   bash scripts/test.sh --only cargo    # one suite: lint, cargo, or a folder of tests/ (e2e, elements, …)
#   bash scripts/test.sh --only cargo ledger_truncate   # ... and only the tests whose name holds the text:
#                                        # cargo's name filter; `--only TEXT` to a tests/*/run.sh (its Node
#                                        # runners' check names, its cargo tests' names); lint: a step's name
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
source scripts/env.sh

only=""
filter=""
while [ $# -gt 0 ]; do
  case "$1" in
    --only)
      only=${2:-}
      [ -n "$only" ] || { echo "test.sh: --only takes a suite: lint, cargo, or a folder of tests/" >&2; exit 2; }
      shift 2
      # An optional FILTER: the text of the test names to run.
      if [ $# -gt 0 ] && [ "${1#--}" = "$1" ]; then filter=$1; shift; fi
      ;;
    *) echo "test.sh: unknown option $1 (expected --only SUITE [FILTER])" >&2; exit 2 ;;
  esac
done

suites=(lint cargo)
for run in tests/*/run.sh; do
  [ -f "$run" ] && suites+=("$(basename "$(dirname "$run")")")
done
if [ -n "$only" ] && ! printf '%s\n' "${suites[@]}" | grep -qx -- "$only"; then
  echo "test.sh: no suite named $only (suites: ${suites[*]})" >&2
  exit 2
fi

bash scripts/setup.sh || { echo "test.sh: setup failed" >&2; exit 1; }

work=$(mktemp -d "${TMPDIR:-/tmp}/ctxguard-test.XXXXXX")

# The npm packages (wasm32 release builds, in a target dir of their own) are built in the
# background while lint and cargo run, which leave a core idle for much of their time (a test
# binary's run, a single-unit link); the suites that use them wait for it (wait_packages) and
# then find them up to date. A run of one suite (--only) builds what it needs itself.
packages_pid=""
if [ -z "$only" ]; then
  setsid bash -c 'started=$(date +%s)
    bash scripts/build-packages.sh core toolbar; status=$?
    echo "(built in $(( $(date +%s) - started )) s)"; exit $status' >"$work/packages.log" 2>&1 &
  packages_pid=$!
fi
wait_packages() {
  [ -n "$packages_pid" ] || return 0
  local status=0
  wait "$packages_pid" || status=$?
  packages_pid=""
  if [ "$status" = 0 ]; then
    printf '\n==> the packages, built beside lint and cargo\n'
  else
    printf '\n==> the packages failed to build beside lint and cargo (the suites build them again)\n'
  fi
  cat "$work/packages.log"
}
stop_packages() {
  if [ -n "$packages_pid" ]; then kill -- "-$packages_pid" 2>/dev/null || kill "$packages_pid" 2>/dev/null; fi
  return 0
}
trap 'stop_packages; rm -rf "$work"' EXIT

# The lint steps, each a pass or a failure of its own; all run.
lint() {
  local passed=0 failed=0
  check() {
    local what=$1
    shift
    # With a FILTER, only the steps whose name holds it.
    [ -n "$filter" ] && [[ "${what,,}" != *"${filter,,}"* ]] && return 0
    printf '\n--> %s\n' "$what"
    if "$@"; then passed=$((passed + 1)); else failed=$((failed + 1)); echo "FAIL: $what"; fi
  }
  check "cargo fmt --check" cargo fmt --all -- --check
  # The cargo-fuzz crate is a workspace of its own (nightly only); its target files are checked here.
  check "rustfmt fuzz/fuzz_targets" rustfmt --edition 2021 --check fuzz/fuzz_targets/*.rs
  check "cargo clippy (native, all targets)" cargo clippy --workspace --all-targets -- -D warnings
  check "cargo clippy (wasm32: ctxguard-core and its JS facade)" \
    cargo clippy -p ctxguard-core --target wasm32-unknown-unknown -- -D warnings
  check "cargo clippy (wasm32: ctxguard-extract and ctxguard-core/documents)" \
    cargo clippy -p ctxguard-extract --target wasm32-unknown-unknown --features wasm -- -D warnings
  check "cargo clippy (wasm32: the toolbar, its DOM tests and the preview engine)" \
    cargo clippy -p ctxguard-web -p ctxguard-preview-engine --target wasm32-unknown-unknown --features ctxguard-web/local-preview --all-targets -- -D warnings
  check "scripts/check-contracts.sh (the TypeScript side of the wire types)" bash scripts/check-contracts.sh
  check "scripts/licences.py --self-test (an unlisted licence fails the check)" python3 scripts/licences.py --self-test
  check "scripts/licences.py --check (every dependency's licence allowed; THIRD-PARTY-NOTICES.md and the npm license fields current)" \
    python3 scripts/licences.py --check
  echo "$passed passed, $failed failed"
  [ "$failed" = 0 ]
}

suite_command() {
  case "$1" in
    lint) lint ;;
    cargo) cargo test --workspace --no-fail-fast ${filter:+"$filter"} ;;
    *) bash "tests/$1/run.sh" ${filter:+--only "$filter"} ;;
  esac
}

# The e2e and examples suites start the relay: one binary, made once, before the first of them,
# and copied so that later builds sharing the target dir cannot replace it. After the cargo suite
# it is the binary `cargo test --workspace` built (`--no-run` again only checks that it is up to
# date): a separate `cargo build -p ctxguard-cli` resolves features for the CLI alone and builds
# 24 units again (the regex stack at opt-level 3 among them).
cargo_ran=0
relay_binary() {
  [ -n "${CTXGUARD_BIN:-}" ] && return 0
  if [ "$cargo_ran" = 1 ]; then
    cargo test -q --workspace --no-run 2>/dev/null || return 0
  else
    cargo build -q -p ctxguard-cli || return 0
  fi
  mkdir -p "$work/bin"
  cp "$CARGO_TARGET_DIR/debug/ctxguard" "$work/bin/ctxguard"
  export CTXGUARD_BIN="$work/bin/ctxguard"
}

summary=()
total_passed=0
total_failed=0
any_failed=0
for name in "${suites[@]}"; do
  [ -n "$only" ] && [ "$name" != "$only" ] && continue
  case "$name" in lint|cargo|web) ;; *) wait_packages ;; esac
  printf '\n==> %s\n' "$name"
  case "$name" in e2e|examples) relay_binary ;; esac
  log="$work/$name.log"
  started=$(date +%s)
  suite_command "$name" 2>&1 | tee "$log"
  status=${PIPESTATUS[0]}
  seconds=$(($(date +%s) - started))
  [ "$name" = cargo ] && cargo_ran=1
  # The suite has ended and tee has exited: its log is complete.
  read -r passed failed < <(awk '
    /^test result: / { for (i = 1; i <= NF; i++) { if ($(i+1) ~ /^passed;/) p += $i; if ($(i+1) ~ /^failed;/) f += $i } }
    /^[0-9]+ passed, [0-9]+ failed$/ { p += $1; f += $3 }
    END { printf "%d %d\n", p, f }
  ' "$log")
  if [ "$status" != 0 ] && [ "$failed" = 0 ]; then failed=1; fi
  # A filter that no test of the suite matched is a mistake, not a pass.
  if [ -n "$filter" ] && [ $((passed + failed)) = 0 ]; then
    echo "test.sh: no test of $name has a name holding \"$filter\""
    failed=1
  fi
  verdict=PASS
  if [ "$status" != 0 ] || [ "$failed" != 0 ]; then verdict=FAIL; any_failed=1; fi
  total_passed=$((total_passed + passed))
  total_failed=$((total_failed + failed))
  summary+=("$(printf '%-4s  %-14s %6d passed %4d failed %6ss' "$verdict" "$name" "$passed" "$failed" "$seconds")")
done

printf '\n'
printf '%s\n' "${summary[@]}"
printf '\ntotal: %d passed, %d failed\n' "$total_passed" "$total_failed"
exit "$any_failed"
