#!/usr/bin/env bash
# Does sendOobCode PASSWORD_RESET take the same time for a known and an unknown address (email-enumeration
# protection)? Times N interleaved requests of each over one keep-alive connection to a release build on loopback
# and prints the medians and their ratio.
#
#   bash scripts/enumeration-timing.sh              # 2000 of each
#   N=5000 BIN=/path/to/hearth bash scripts/enumeration-timing.sh
set -euo pipefail
cd "$(dirname "$0")/.."
N=${N:-2000}
PORT=${PORT:-19098}
source scripts/release-binary.sh
WORK=$(mktemp -d)
trap 'kill $SERVER 2>/dev/null || true; rm -rf "$WORK"' EXIT
echo '{"apiKey": "timing-key", "logLevel": "warning", "rateLimits": false}' > "$WORK/config.json"
"$BIN" serve --store "sqlite:$WORK/hearth.sqlite" --port "$PORT" --config "$WORK/config.json" > "$WORK/server.log" 2>&1 &
SERVER=$!
until curl -s -o /dev/null "http://127.0.0.1:$PORT/.well-known/jwks.json"; do sleep 0.05; done
python3 - "$PORT" "$N" <<'PY'
import http.client, json, statistics, sys, time
port, n = int(sys.argv[1]), int(sys.argv[2])
conn = http.client.HTTPConnection("127.0.0.1", port)
def post(path, body):
    conn.request("POST", path + "?key=timing-key", json.dumps(body), {"Content-Type": "application/json"})
    response = conn.getresponse(); data = response.read(); return response.status, data
status, _ = post("/identitytoolkit.googleapis.com/v1/accounts:signUp", {"email": "known@example.com", "password": "secret123"})
assert status == 200, status
times = {"known": [], "unknown": []}
for i in range(n * 2):
    which = "known" if i % 2 == 0 else "unknown"
    email = "known@example.com" if which == "known" else f"nobody{i}@example.com"
    start = time.perf_counter()
    status, body = post("/identitytoolkit.googleapis.com/v1/accounts:sendOobCode", {"requestType": "PASSWORD_RESET", "email": email})
    times[which].append((time.perf_counter() - start) * 1000)
    assert status == 200, body
known, unknown = statistics.median(times["known"]), statistics.median(times["unknown"])
q = lambda xs: statistics.quantiles(xs, n=4)
print(f"sendOobCode PASSWORD_RESET, {n} each: known median {known:.3f} ms (IQR {q(times['known'])[0]:.3f}-{q(times['known'])[2]:.3f}), "
      f"unknown median {unknown:.3f} ms (IQR {q(times['unknown'])[0]:.3f}-{q(times['unknown'])[2]:.3f}), unknown/known {unknown / known:.2f}")
PY
