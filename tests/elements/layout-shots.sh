#!/usr/bin/env bash
# Screenshots of the toolbar in every state a Wegent host meets
# (tests/elements/pages/layout.html, each state with its height and rows) at 360,
# 768 and 1280 px, light and dark, into docs/toolbar-layout-WIDTH-SCHEME.png, to
# review the layout (it fits a phone, and one row from 1 024 px). Needs pkg/toolbar
# (scripts/build-packages.sh toolbar) and Chromium.
#   bash tests/elements/layout-shots.sh [OUT_DIR]   (default docs/)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
out=${1:-docs}
chromium=${CHROMIUM:-/usr/bin/chromium}
[ -f pkg/toolbar/ctxguard-toolbar.js ] || { echo "layout-shots.sh: build pkg/toolbar first (scripts/build-packages.sh toolbar)" >&2; exit 1; }
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
python3 -m http.server "$port" --bind 127.0.0.1 --directory "$root" >/dev/null 2>&1 &
server=$!
trap 'kill "$server" 2>/dev/null' EXIT
for _ in $(seq 50); do curl -sf "http://127.0.0.1:$port/tests/elements/pages/layout.html" >/dev/null && break; sleep 0.1; done
for width in 360 768 1280; do
  for scheme in light dark; do
    shot="$out/toolbar-layout-$width-$scheme.png"
    "$chromium" --headless --no-sandbox --disable-gpu --disable-background-networking --disable-component-update \
      --disable-sync --hide-scrollbars --virtual-time-budget=4000 --window-size="$width,1250" \
      --screenshot="$shot" "http://127.0.0.1:$port/tests/elements/pages/layout.html?theme=$scheme" 2>/dev/null
    echo "wrote $shot"
  done
done
