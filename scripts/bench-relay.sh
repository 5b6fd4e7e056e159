#!/usr/bin/env bash
# The relay's benchmark (not a test): 1 000 SSE subscribers on one instance
# (memory store), then on two instances sharing a redis-server; publish-to-
# delivery latency p50/p99 and the servers' resident memory (so the memory per
# stream). Writes its section of BENCHMARKS.md between <!-- relay:begin --> and
# <!-- relay:end --> (appended when the markers are missing) and prints it.
#
#   scripts/bench-relay.sh                       # 1000 subscribers, 200 events
#   SUBSCRIBERS=2000 EVENTS=100 scripts/bench-relay.sh
#   NO_WRITE=1 scripts/bench-relay.sh            # print only
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
source scripts/env.sh

subscribers="${SUBSCRIBERS:-1000}"
events="${EVENTS:-200}"
interval_ms="${INTERVAL_MS:-20}"

if ! command -v redis-server >/dev/null 2>&1; then
  echo "scripts/bench-relay.sh: redis-server is missing (run scripts/setup.sh)" >&2
  exit 1
fi
# Each subscriber is a socket on both sides.
ulimit -n "$(( subscribers * 2 + 512 ))" 2>/dev/null || ulimit -n "$(ulimit -Hn)"

echo "==> cargo build --release (ctxguard, examples/relay_bench)" >&2
cargo build -q --release -p ctxguard-cli --bin ctxguard --example relay_bench
work=$(mktemp -d "${TMPDIR:-/tmp}/ctxguard-bench-relay.XXXXXX")
trap 'rm -rf "$work"' EXIT
# Private copies: other builds sharing the target dir may replace them meanwhile.
cp "$CARGO_TARGET_DIR/release/ctxguard" "$CARGO_TARGET_DIR/release/examples/relay_bench" "$work/"

echo "==> measuring ($subscribers subscribers, $events events, one every $interval_ms ms)" >&2
table=$("$work/relay_bench" --bin "$work/ctxguard" --subscribers "$subscribers" --events "$events" --interval-ms "$interval_ms")

cpu=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//' || echo unknown)
section=$(cat <<MD
<!-- relay:begin -->
## Relay (\`scripts/bench-relay.sh\`)

- date: $(date -u +%Y-%m-%dT%H:%M:%SZ); CPU: ${cpu}; nproc $(nproc); load average at the end: $(cut -d' ' -f1-3 /proc/loadavg); $(rustc --version)
- method: the release \`ctxguard serve\`, each on a loopback port; ${subscribers} subscribers (raw HTTP/1.1 SSE connections from one client process, spread evenly over the instances) resume after a first event, then ${events} events are published one every ${interval_ms} ms (round-robin over the instances), each carrying its sequence number. A latency runs from just before the publish request is sent to the moment a subscriber has read the event (one machine, one clock; the client's own scheduling of its ${subscribers} sockets on 2 cores is included). RSS is the servers' VmRSS summed, with one session and no stream, then with every stream open; KiB per stream is the difference over the subscribers.

${table}
<!-- relay:end -->
MD
)

printf '%s\n' "$section"
if [ "${NO_WRITE:-}" = 1 ]; then
  exit 0
fi
touch BENCHMARKS.md
if grep -q '<!-- relay:begin -->' BENCHMARKS.md && grep -q '<!-- relay:end -->' BENCHMARKS.md; then
  SECTION="$section" awk '
    /<!-- relay:begin -->/ { print ENVIRON["SECTION"]; skipping = 1; next }
    /<!-- relay:end -->/ { skipping = 0; next }
    !skipping { print }
  ' BENCHMARKS.md > "$work/BENCHMARKS.md"
else
  { cat BENCHMARKS.md; printf '\n%s\n' "$section"; } > "$work/BENCHMARKS.md"
fi
cp "$work/BENCHMARKS.md" BENCHMARKS.md
echo "==> BENCHMARKS.md: relay section written" >&2
