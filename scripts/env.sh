# Sourced by the scripts: one target dir outside the clone (reused across CI clones), pinned tools first on PATH.
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/ctxguard/target}"
export CTXGUARD_TOOLS="${CTXGUARD_TOOLS:-$HOME/.cache/ctxguard/tools}"
export PATH="$CTXGUARD_TOOLS/node_modules/.bin:$HOME/.cargo/bin:$PATH"
