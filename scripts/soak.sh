#!/usr/bin/env bash
# Mixed load against a release build on SQLite for DURATION seconds (default 600): sign-ups, password sign-ins,
# lookups and token refreshes at once, in 30-second rounds, with the server's RSS after each round; then a minute
# idle. Memory must level off under load (every cache is bounded) and not keep growing.
#   bash scripts/soak.sh
#   DURATION=300 BIN=/path/to/other/hearth bash scripts/soak.sh
set -euo pipefail
cd "$(dirname "$0")/.."
DURATION=${DURATION:-600}
PORT=${PORT:-19399}
KEY=soak-api-key
BASE="http://127.0.0.1:$PORT"
command -v wrk >/dev/null || { echo "wrk is missing: apt-get install wrk"; exit 1; }
source scripts/release-binary.sh
WORK=$(mktemp -d)
trap 'kill $SERVER 2>/dev/null || true; rm -rf "$WORK"' EXIT
echo "{\"apiKey\": \"$KEY\", \"logLevel\": \"warning\", \"rateLimits\": false}" > "$WORK/config.json"
"$BIN" serve --store "sqlite:$WORK/hearth.sqlite" --port "$PORT" --config "$WORK/config.json" > "$WORK/server.log" 2>&1 &
SERVER=$!
until curl -s -o /dev/null "$BASE/.well-known/jwks.json"; do sleep 0.05; done
rss() { awk '/VmRSS/ {print int($2 / 1024)}' "/proc/$SERVER/status"; }

post() { curl -s -X POST "$BASE$1?key=$KEY" -H 'content-type: application/json' -d "$2"; }
SIGNUP=$(post /identitytoolkit.googleapis.com/v1/accounts:signUp '{"email":"soak@example.com","password":"secret123","returnSecureToken":true}')
REFRESH=$(python3 -c 'import json,sys; print(json.loads(sys.argv[1])["refreshToken"])' "$SIGNUP")
python3 - "$BASE" "$KEY" > "$WORK/tokens.txt" <<'PY'
import json, sys, urllib.request
base, key = sys.argv[1], sys.argv[2]
for i in range(50):
    body = json.dumps({"email": f"reader{i}@example.com", "password": "secret123", "returnSecureToken": True}).encode()
    request = urllib.request.Request(f"{base}/identitytoolkit.googleapis.com/v1/accounts:signUp?key={key}", body,
                                     {"content-type": "application/json"})
    print(json.load(urllib.request.urlopen(request))["idToken"])
PY
export TOKENS_FILE="$WORK/tokens.txt"
echo "RSS at start: $(rss) MB"
elapsed=0
while [ "$elapsed" -lt "$DURATION" ]; do
  wrk -t1 -c4 -d30s -s Benchmarks/load/signup.lua "$BASE/identitytoolkit.googleapis.com/v1/accounts:signUp?key=$KEY" > /dev/null &
  BODY='{"email":"soak@example.com","password":"secret123","returnSecureToken":true}' wrk -t1 -c4 -d30s \
    -s Benchmarks/load/post.lua "$BASE/identitytoolkit.googleapis.com/v1/accounts:signInWithPassword?key=$KEY" > /dev/null &
  wrk -t1 -c8 -d30s -s Benchmarks/load/lookup-many.lua "$BASE/identitytoolkit.googleapis.com/v1/accounts:lookup?key=$KEY" > /dev/null &
  BODY="{\"grant_type\":\"refresh_token\",\"refresh_token\":\"$REFRESH\"}" wrk -t1 -c8 -d30s \
    -s Benchmarks/load/post.lua "$BASE/securetoken.googleapis.com/v1/token?key=$KEY" > /dev/null &
  wait $(jobs -p | grep -v "^$SERVER$") 2>/dev/null || true
  elapsed=$((elapsed + 30))
  echo "after ${elapsed}s of load: RSS $(rss) MB"
done
sleep 60
echo "after a minute idle: RSS $(rss) MB"
