#!/usr/bin/env bash
# Every wire contract is defined once, in core (ctxguard-core), and used
# everywhere else. On the Rust side the types hold it (Phase, StatusEvent,
# ContextState, Role and Message::{user, assistant, system}, the attachment
# block builder): the compiler checks it. What no compiler sees is the
# TypeScript side: the wire types are declared only in
# core/src/protocol/wire.d.ts, and no other declaration file or TS host may
# declare them again. This script checks that.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

found=0

# The TypeScript side: the wire types are declared once, in core/src/protocol/wire.d.ts
# (both npm packages include it); no other declaration file or TS host redeclares them.
wire_types='(interface|type) (KnownPhase|Phase|UsageBreakdown|ContextMetricsSnapshot|CompactionStatus|ContextCompaction|StatusEvent|ChatStatusUpdated|ContextState)\b'
while IFS= read -r file; do
  hits=$(grep -nE -- "^ *(export )?(declare )?$wire_types *(=|\{|<)" "$file" | sed "s|^|$file:|" || true)
  if [ -n "$hits" ]; then
    printf '%s\n  -> declared once in core/src/protocol/wire.d.ts: import it from the package\n' "$hits"
    found=$((found + 1))
  fi
done < <(find core/src web/js examples tests -path '*/node_modules' -prune -o \
  \( -name '*.ts' -o -name '*.tsx' -o -name '*.cts' \) -type f -print | grep -v '^core/src/protocol/wire\.d\.ts$' | sort)

if [ "$found" -gt 0 ]; then
  echo "check-contracts: $found wire type(s) declared again outside core/src/protocol/wire.d.ts (see above)" >&2
  exit 1
fi
echo "check-contracts: the wire types are declared once, in core/src/protocol/wire.d.ts"
