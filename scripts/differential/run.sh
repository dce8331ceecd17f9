#!/bin/bash
# Runs the differential tester: Firebase's Auth Emulator (built by ../shared/peer/build-emulator.sh under
# $PEER, /tmp/peer by default) and this build of Hearth in emulator mode, the same generated requests to both.
#   bash scripts/differential/run.sh [OUT]      # writes OUT.md and OUT.json (default .build/differential)
# Not run by CI: it needs the peer build, which needs the firebase-tools mirrors.
set -euo pipefail
cd "$(dirname "$0")/../.."
PEER=${PEER:-/tmp/peer}
OUT=${1:-.build/differential}
[ -x "$PEER/emulator/start.sh" ] || { echo "no emulator build at $PEER/emulator: run ../shared/peer/build-emulator.sh first (see its README)" >&2; exit 2; }
BIN=${HEARTH_BIN:-}
if [ -z "$BIN" ]; then swift build --product hearth >&2; BIN=$(swift build --show-bin-path)/hearth; fi
PROJECT=demo-diff
EMU_PORT=${EMU_PORT:-19411}; HEARTH_PORT=${HEARTH_PORT:-19412}
work=$(mktemp -d)
trap 'kill $emu $hearth 2>/dev/null || true; rm -rf "$work"' EXIT
PROJECT_ID=$PROJECT "$PEER/emulator/start.sh" "$EMU_PORT" > "$work/emulator.log" 2>&1 & emu=$!
(cd "$work" && exec "$BIN" serve --emulator --project-id "$PROJECT" --port "$HEARTH_PORT") > "$work/hearth.log" 2>&1 & hearth=$!
(cd "$PEER/emulator" && NODE_PATH=/usr/share/nodejs node -e \
  "process.stdout.write(JSON.stringify(require('./lib/emulator/auth/apiSpec.js').default))") > "$work/spec.json"
for port in "$EMU_PORT" "$HEARTH_PORT"; do
  until curl -s -o /dev/null "http://127.0.0.1:$port/"; do
    kill -0 $emu $hearth 2>/dev/null || { echo "a server exited; logs in $work" >&2; cat "$work"/*.log >&2; exit 1; }
    sleep 0.2
  done
done
python3 scripts/differential/difftest.py --spec "$work/spec.json" --emulator "http://127.0.0.1:$EMU_PORT" \
  --hearth "http://127.0.0.1:$HEARTH_PORT" --project "$PROJECT" --out "$OUT"
