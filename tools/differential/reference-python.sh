#!/usr/bin/env bash
# Prints the reference environment's interpreter ($CTXGUARD_REFERENCE/venv/bin/python), or
# says how to build it. The differential tools and the table generators run with it.
ref=${CTXGUARD_REFERENCE:-}
if [ -z "$ref" ] || [ ! -x "$ref/venv/bin/python" ]; then
  echo "no reference environment: run tools/differential/setup-reference.sh DIR, then export CTXGUARD_REFERENCE=DIR" >&2
  exit 1
fi
echo "$ref/venv/bin/python"
