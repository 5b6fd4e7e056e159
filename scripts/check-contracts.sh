#!/usr/bin/env bash
# Every wire contract is defined once, in core (ctxguard-core), and used
# everywhere else. This check fails when the CLI or the toolbar spells one out
# again in non-test code: the <attachment> tags, the SSE event name, phase
# names, the compaction type, created_at's UTC suffix, role strings, or a
# second definition of the /context body. Test code (files named tests.rs,
# *_tests.rs, testing.rs, and everything after a file's first #[cfg(test)])
# may write wire text literally: that is what tests check against. On the
# TypeScript side, the wire types are declared only in core/src/protocol/wire.d.ts.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

# pattern<TAB>what to use instead
rules=$(cat <<'RULES'
"<attachment>"|"</attachment>"	ctxguard_core::attachment::{OPEN_TAG, CLOSE_TAG, compose_block, find_blocks}
"response\.status\.updated"	ctxguard_core::protocol::EVENT_NAME
"(build_messages|after_tool_end|after_compaction|summary_compact|final)"	ctxguard_core::protocol::{Phase, COMPACTION_TYPE}
"summary_compact_(failed|not_applicable)"	ctxguard_core::protocol::failure_reason
\+00:00	ctxguard_core::protocol::{format_created_at, parse_created_at}
role *(==|!=) *"|role\.as_str\(\) *(==|!=)|"(human|ai)" *=>	Message::{role_kind, is_user, is_assistant, is_system, is_tool}
pub event_id: u64	ctxguard_core::protocol::ContextState (the /context body)
RULES
)

found=0
while IFS= read -r file; do
  case "$file" in
    */tests.rs | *_tests.rs | */testing.rs | */tests/*) continue ;;
  esac
  while IFS=$'\t' read -r pattern instead; do
    hits=$(awk '/^#\[cfg\(test\)\]/ { exit } { print FILENAME ":" FNR ": " $0 }' "$file" | grep -E -- "$pattern" || true)
    if [ -n "$hits" ]; then
      printf '%s\n  -> defined once in core: use %s\n' "$hits" "$instead"
      found=$((found + 1))
    fi
  done <<<"$rules"
done < <(find cli/src web/src -name '*.rs' | sort)

# The TypeScript side: the wire types are declared once, in core/src/protocol/wire.d.ts
# (both npm packages include it); no other declaration file or TS host redeclares them.
wire_types='(interface|type) (Phase|UsageBreakdown|ContextMetricsSnapshot|CompactionStatus|ContextCompaction|StatusEvent|ChatStatusUpdated|ContextState)\b'
while IFS= read -r file; do
  hits=$(grep -nE -- "^ *(export )?(declare )?$wire_types *(=|\{|<)" "$file" | sed "s|^|$file:|" || true)
  if [ -n "$hits" ]; then
    printf '%s\n  -> declared once in core/src/protocol/wire.d.ts: import it from the package\n' "$hits"
    found=$((found + 1))
  fi
done < <(find core/src web/js examples tests -path '*/node_modules' -prune -o \
  \( -name '*.ts' -o -name '*.tsx' -o -name '*.cts' \) -type f -print | grep -v '^core/src/protocol/wire\.d\.ts$' | sort)

if [ "$found" -gt 0 ]; then
  echo "check-contracts: $found wire contract(s) spelled out again outside core (see above)" >&2
  exit 1
fi
echo "check-contracts: every wire contract is core's (cli/src, web/src; TypeScript: core/src/protocol/wire.d.ts)"
