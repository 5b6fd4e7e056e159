#!/usr/bin/env bash
# The benchmarks (tokenizer speed, size and memory against its peers; the ledger and the preview), in one command; writes BENCHMARKS.md at the repository root.
#   1. builds pkg/core/ (release) with scripts/build-packages.sh, skipped when up to date;
#   2. installs the browser bench's pinned JS tokenizers (npm ci) when missing;
#   3. writes the inputs (tests/bench/corpus.mjs: generated ones, and real text
#      built from files on disk by tests/bench/real.mjs) into tests/bench/.corpus/;
#   4. native: criterion benches (core/benches/engine.rs) beside toktok-rs,
#      bpe-openai and tiktoken-rs, short measurement time; and where one cold count's
#      instructions go, by the engine's parts (callgrind, tests/bench/profile.mjs);
#   5. browser: tests/bench/run.mjs in headless Chromium, with the fair race (tests/bench/race.mjs:
#      every engine cold, warm and on fresh text, on tests/bench/varied.mjs's texts);
#   6. exact at scale (with the native part): 100 MB of real text from Debian's documentation
#      packages (installed when missing), counted by ctxguard and tiktoken-rs in all four
#      encodings (core's `differential` example), for the peer targets and the workers section;
#   7. BENCHMARKS.md: the tables, the .wasm's raw/gzip/brotli size, the machine and its load;
#   8. the workers bench (tests/bench/workers.mjs): TokenPool in Node and Chromium
#      on that text, its counts checked against the differential run's, and the preview
#      element on a 100 MB log and 50 MB .docx/.xlsx; its own section of BENCHMARKS.md;
#   9. big uploads (tests/bench/bigfiles.mjs): workbooks and documents at 25, 50 and 100 MB
#      written by openpyxl and python-docx (pinned, in a venv under the bench's work dir) and by
#      tests/bench/office.mjs, CSVs and a 1 GB CSV: the preview in Chromium (wall time, the
#      engine's peak wasm memory, the browser's resident growth), `ctxguard extract`/`preview`
#      peak RSS (/usr/bin/time -v), openpyxl's read-only pass beside ctxguard's; its own section.
# Options: --rebuild (always rebuild pkg/core/), --skip-native, --skip-browser, --skip-workers,
# --skip-big-uploads, --big-uploads-only (part 9 alone), --big-uploads-sizes=25,50,100 (MB),
# --big-uploads-csv-gb=1 (0: no giant CSV),
# --browser-only=NAME,… (the browser bench's tokenizers beside ctxguard, e.g. hypertok,gpt-tokenizer:
# on a loaded machine ai-tokenizer's and js-tiktoken's pages alone take most of run.mjs's 20 minutes)
# (the skipped part keeps its previous results, when there are any).
# Benchmarks are not tests: nothing here is part of scripts/test.sh or .ci/run.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
source scripts/env.sh

rebuild=0 native=1 browser=1 workers=1 only="" big=1 big_only=0 big_sizes=25,50,100 big_csv_gb=1
for arg in "$@"; do
  case "$arg" in
    --rebuild) rebuild=1 ;;
    --skip-native) native=0 ;;
    --skip-browser) browser=0 ;;
    --skip-workers) workers=0 ;;
    --browser-only=*) only="${arg#--browser-only=}" ;;
    --skip-big-uploads) big=0 ;;
    --big-uploads-only) big_only=1 ;;
    --big-uploads-sizes=*) big_sizes="${arg#--big-uploads-sizes=}" ;;
    --big-uploads-csv-gb=*) big_csv_gb="${arg#--big-uploads-csv-gb=}" ;;
    *) echo "bench.sh: unknown option $arg" >&2; exit 2 ;;
  esac
done

# ctxguard's npm package, from the repository root (the one place to change if it moves;
# scripts/build-packages.sh writes it).
pkg=pkg/core
# The inputs, served to the browser page from the repository root (ignored by git).
corpus=tests/bench/.corpus
out="$CARGO_TARGET_DIR/ctxguard-bench"
mkdir -p "$out"
step() { printf '\n--> %s\n' "$*"; }
start=$(date +%s)
load_start=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo '?')

# Part 9: big uploads. The reference's writers (pinned) in a venv of the bench's own; the
# release CLI and the toolbar package; then tests/bench/bigfiles.mjs.
big_uploads() {
  local dir="$out/bigfiles"
  mkdir -p "$dir"
  step "big uploads: openpyxl 3.1.5 and python-docx 1.2.0 in $dir/venv"
  if [ ! -x "$dir/venv/bin/python" ]; then
    python3 -m venv "$dir/venv"
  fi
  "$dir/venv/bin/python" -m pip install -q openpyxl==3.1.5 python-docx==1.2.0
  step "big uploads: the release ctxguard and the toolbar package"
  cargo build -q --release -p ctxguard-cli
  bash scripts/build-packages.sh toolbar $([ "$rebuild" = 1 ] && echo --force)
  npm_ci_if_changed tests/support
  step "big uploads: node tests/bench/bigfiles.mjs (sizes $big_sizes MB, CSV ${big_csv_gb} GB)"
  node tests/bench/bigfiles.mjs --work "$dir" --python "$dir/venv/bin/python" \
    --ctxguard "$CARGO_TARGET_DIR/release/ctxguard" --sizes "$big_sizes" --csv-gb "$big_csv_gb" \
    --out "$root/BENCHMARKS.md"
}

if [ "$big_only" = 1 ]; then
  big_uploads
  printf '\nbench.sh: big uploads done in %d s; results in BENCHMARKS.md (raw: %s)\n' "$(($(date +%s) - start))" "$out/bigfiles"
  exit 0
fi

step "scripts/build-packages.sh core (release $pkg/; skipped when up to date)"
bash scripts/build-packages.sh core $([ "$rebuild" = 1 ] && echo --force)

# playwright-core (the browser driver); the pinned JS tokenizers, without their install scripts.
npm_ci_if_changed tests/support
npm_ci_if_changed tests/bench --ignore-scripts

step "inputs (tests/bench/corpus.mjs -> $corpus)"
# real.mjs reads dependency sources from cargo's registry: make sure they are unpacked.
cargo fetch --quiet
node tests/bench/corpus.mjs "$corpus"
# The real texts of the 50 MB cold counts and of the exact-at-scale and workers runs:
# Python's manual and the Debian Reference in Chinese, from Debian's packages (installed when missing).
if [ ! -d /usr/share/doc/python3.11/html/_sources ] || ! ls /usr/share/debian-reference/*.zh-cn.html >/dev/null 2>&1 \
  || [ ! -d /usr/share/man/zh_TW ]; then
  echo "installing Debian's python3.11-doc, debian-reference-zh-cn and manpages-zh (the benches' real text)"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3.11-doc debian-reference-zh-cn manpages-zh >/dev/null
fi
node tests/bench/bigtext.mjs "$corpus/big" --mb 50
# The browser race's varied real text: four sources of about 1 MB per kind (en, zh, code).
node tests/bench/varied.mjs "$corpus/varied"

if [ "$native" = 1 ]; then
  step "native: cargo bench -p ctxguard-core --bench engine"
  rm -rf "$out/criterion"
  CRITERION_HOME="$out/criterion" CTXGUARD_BENCH_CORPUS="$root/$corpus" \
    cargo bench -p ctxguard-core --bench engine -- --warm-up-time 0.5 --measurement-time 1.5
fi

if [ "$native" = 1 ]; then
  # What bounds the native speeds: instructions by the engine's parts in one cold count of 1 MB
  # (callgrind: exact counts, whatever else the machine runs), when valgrind is there.
  rm -f "$out/profile.json"
  if command -v valgrind >/dev/null && command -v callgrind_annotate >/dev/null; then
    step "native: where a cold count's instructions go (callgrind, tests/bench/profile.mjs)"
    cargo build -q --profile profiling -p ctxguard-core --example count_once
    node tests/bench/profile.mjs --bin "$CARGO_TARGET_DIR/profiling/examples/count_once" --out "$out/profile.json" \
      "$corpus"/{prose,en,code,zh,mixed,letters,cjk,base64}.txt
  fi
fi

if [ "$browser" = 1 ]; then
  step "browser: node tests/bench/run.mjs (headless Chromium $(/usr/bin/chromium --version 2>/dev/null | grep -o '[0-9][0-9.]*' | head -1))"
  rm -f "$out/browser.json"
  node tests/bench/run.mjs --out "$out/browser.json" --pkg "$pkg" --corpus "$corpus" ${only:+--only "$only"}
fi

if [ "$native" = 1 ]; then
  step "exact at scale: core's differential example on 100 MB of real text"
  node tests/bench/bigtext.mjs "$corpus/big" --mb 100
  cargo run -q --release -p ctxguard-core --example differential -- "$corpus"/big/en-100mb.txt "$corpus"/big/mix-100mb.txt \
    >"$out/differential.jsonl" || echo "bench.sh: the differential run found counts that differ from tiktoken-rs's (see BENCHMARKS.md)"
fi

step "BENCHMARKS.md"
# Where the .wasm's bytes go: its sections and the vocabulary tables core's build script embeds.
tables=$(find "$CARGO_TARGET_DIR/packages/wasm32-unknown-unknown/release-wasm-speed/build" -name o200k_base.parents -path '*ctxguard-core-*' -printf '%T@ %h\n' 2>/dev/null | sort -n | tail -1 | cut -d' ' -f2)
node tests/bench/wasm-sections.mjs "$pkg/ctxguard_core_bg.wasm" ${tables:+"$tables"} >"$out/sections.txt"
args=(--pkg "$root/$pkg" --load-start "$load_start" --sections "$out/sections.txt")
[ -d "$out/criterion" ] && args+=(--criterion "$out/criterion")
[ -f "$out/browser.json" ] && args+=(--browser "$out/browser.json")
[ -f "$out/differential.jsonl" ] && args+=(--differential "$out/differential.jsonl")
[ -f "$out/profile.json" ] && args+=(--profile "$out/profile.json")
node tests/bench/report.mjs "${args[@]}" --out "$root/BENCHMARKS.md"

if [ "$workers" = 1 ]; then
  step "workers: TokenPool and the preview (tests/bench/workers.mjs)"
  bash scripts/build-packages.sh toolbar $([ "$rebuild" = 1 ] && echo --force)
  node tests/bench/workers.mjs --corpus "$corpus" --differential "$out/differential.jsonl" --out "$root/BENCHMARKS.md"
fi
if [ "$big" = 1 ]; then
  big_uploads
fi
printf '\nbench.sh: done in %d s; results in BENCHMARKS.md (raw: %s)\n' "$(($(date +%s) - start))" "$out"
