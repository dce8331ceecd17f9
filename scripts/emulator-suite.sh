#!/usr/bin/env bash
# Runs Firebase's own Auth Emulator test suite (ported to HTTP by ../shared/peer) against Hearth in emulator mode
# and prints the counts; with BASELINE=earlier.json it also lists tests that passed there and fail now.
#
#   MIRROR=/path/to/mirrors bash scripts/emulator-suite.sh              # debug build of this checkout
#   BIN=/path/to/hearth OUT=run.json BASELINE=before.json bash scripts/emulator-suite.sh
#
# Needs the firebase-tools mirror (`fetch github:firebase/firebase-tools`, see ../shared/peer/README.md) and
# Debian's node packages; builds the peer emulator and the ported suite under /tmp/peer on first use. Runs on a
# developer's machine, not in CI (CI has no mirrors).
set -euo pipefail
cd "$(dirname "$0")/.."
PEER=$(cd ../shared/peer && pwd)
PORT=${PORT:-19650}
OUT=${OUT:-/tmp/hearth-emulator-suite.json}
export NODE_PATH=${NODE_PATH:-/usr/share/nodejs}

if [ ! -x /tmp/peer/suite/run.sh ]; then
  : "${MIRROR:?set MIRROR to the folder of the bare mirrors (see ../shared/peer/README.md)}"
  echo "== building Firebase's emulator and porting its suite (first use)"
  [ -d /tmp/peer/emulator ] || MIRROR=$MIRROR bash "$PEER/build-emulator.sh"
  MIRROR=$MIRROR node "$PEER/port-suite.js"
fi
if [ -z "${BIN:-}" ]; then
  swift build --product hearth 2>&1 | grep -E "error|Compiling hearth|Build complete" || true
  BIN=$(swift build --show-bin-path)/hearth
fi

"$BIN" serve --emulator --project-id example --store memory: --port "$PORT" > "$OUT.server.log" 2>&1 &
SERVER=$!
trap 'kill $SERVER 2>/dev/null || true' EXIT
until curl -s -o /dev/null "http://127.0.0.1:$PORT/"; do
  kill -0 $SERVER 2>/dev/null || { cat "$OUT.server.log"; exit 1; }
  sleep 0.1
done
echo "== running the suite against $BIN (emulator mode, port $PORT)"
/tmp/peer/suite/run.sh "http://127.0.0.1:$PORT" "$OUT" > /dev/null 2>&1 || true
python3 - "$OUT" <<'PY'
import json, sys
stats = json.load(open(sys.argv[1]))["stats"]
print(f"passed {stats['passes']} of {stats['passes'] + stats['failures']} portable tests "
      f"({stats['failures']} failing, {stats['pending']} not portable); report: {sys.argv[1]}")
PY
if [ -n "${BASELINE:-}" ]; then
  FAILURES_OUT="$OUT.regressions.txt" node "$PEER/compare-suite.js" "$BASELINE" "$OUT" | tail -1
fi
