#!/usr/bin/env bash
# How the console's user listing holds up with 100,000 users (default): imports them into a fresh SQLite file with
# the release build, starts `hearth serve` on it, and times (median of 15 calls, with curl) each request the console
# makes for users, as ratios to the cheapest admin call measured in the same run (GET v2/…/config).
#   bash scripts/console-benchmark.sh [N]
set -euo pipefail
cd "$(dirname "$0")/.."
count=${1:-100000}
work=$(mktemp -d)
port=$((20000 + RANDOM % 20000))
server=""
trap '[ -n "$server" ] && kill "$server" 2>/dev/null; rm -rf "$work"' EXIT
swift build -c release --product hearth >/dev/null
bin=.build/release/hearth
store="sqlite:$work/hearth.sqlite"
echo "== $count users"
python3 - "$count" "$work/users.json" <<'PY'
import json, sys
count, path = int(sys.argv[1]), sys.argv[2]
users = [{"localId": f"u{i:07d}", "email": f"user{(i * 7919) % count:07d}@example.com", "displayName": f"User {i}",
          "createdAt": str(1600000000000 + i * 1000)} for i in range(count)]
json.dump({"users": users}, open(path, "w"))
PY
"$bin" auth:import "$work/users.json" --store "$store" --project-id bench-project --create-project 2>&1 | tail -1
"$bin" service-accounts create bench-admin --out "$work/key.json" --store "$store" --project-id bench-project >/dev/null
"$bin" serve --store "$store" --project-id bench-project --port "$port" > "$work/server.log" 2>&1 &
server=$!
for _ in $(seq 100); do curl -fs "http://127.0.0.1:$port/readyz" >/dev/null 2>&1 && break; sleep 0.1; done
# Admin JWTs are single use (a replayed one is refused): each call gets a fresh one, made outside the timing.
token() { "$bin" admin-token --key-file "$work/key.json" --url "http://127.0.0.1:$port"; }
bearer=$(token)
base="http://127.0.0.1:$port/identitytoolkit.googleapis.com"
# median METHOD PATH [BODY]: the median time of 15 calls, in milliseconds (a call that is not a 200 stops the run).
median() {
  local method=$1 path=$2 body=${3:-}
  local status
  bearer=$(token)
  status=$(curl -s -o "$work/reply" -w '%{http_code}' -X "$method" -H "Authorization: Bearer $bearer" \
    -H 'Content-Type: application/json' ${body:+--data "$body"} "$base$path")
  if [ "$status" != 200 ]; then echo "$method $path answered $status: $(head -c 300 "$work/reply")" >&2; exit 1; fi
  for _ in $(seq 15); do
    bearer=$(token)
    curl -s -o /dev/null -w '%{time_total}\n' -X "$method" -H "Authorization: Bearer $bearer" \
      -H 'Content-Type: application/json' ${body:+--data "$body"} "$base$path"
  done | sort -n | sed -n 8p | awk '{ printf "%.2f", $1 * 1000 }'
}
# Every call must succeed, or its time means nothing.
bearer=$(token)
check=$(curl -s -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $bearer" "$base/v1/projects/bench-project/accounts:batchGet?maxResults=1")
[ "$check" = 200 ] || { echo "the admin call answered $check" >&2; exit 1; }
ceiling=$(median GET /v2/projects/bench-project/config)
row() { printf '%-52s %8s ms   %5.1f x\n' "$1" "$2" "$(echo "$2 / $ceiling" | bc -l)"; }
printf '%-52s %8s ms\n' "GET v2/config (the ceiling: the cheapest admin call)" "$ceiling"
row "batchGet, first page of 25 (by uid)" "$(median GET '/v1/projects/bench-project/accounts:batchGet?maxResults=25')"
row "batchGet, a page near the end (cursor)" "$(median GET "/v1/projects/bench-project/accounts:batchGet?maxResults=25&nextPageToken=u$(printf %07d $((count - 100)))")"
row "query by creation, newest first, first page" "$(median POST /v1/projects/bench-project/accounts:query '{"returnUserInfo":true,"limit":"25","sortBy":"CREATED_AT","order":"DESC"}')"
row "query by creation, page at 90% (offset)" "$(median POST /v1/projects/bench-project/accounts:query "{\"returnUserInfo\":true,\"limit\":\"25\",\"offset\":\"$((count * 9 / 10))\",\"sortBy\":\"CREATED_AT\",\"order\":\"DESC\"}")"
row "query by email, page at 50% (offset)" "$(median POST /v1/projects/bench-project/accounts:query "{\"returnUserInfo\":true,\"limit\":\"25\",\"offset\":\"$((count / 2))\",\"sortBy\":\"USER_EMAIL\"}")"
row "lookup by email (the console's search)" "$(median POST /v1/projects/bench-project/accounts:lookup '{"email":["user0012345@example.com"]}')"
