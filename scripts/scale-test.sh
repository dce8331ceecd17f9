#!/usr/bin/env bash
# Hearth at a million users, on SQLite: imports N users (default 1,000,000) with Firebase-scrypt hashes into a fresh
# store with the release build of `hearth auth:import`, reports the import's wall time, its peak memory and the
# store's size per user, checks that lookups by email and by phone number use an index, then runs the load test's
# endpoints against that store and against one of SMALL users (default 1,000), and prints their ratios side by side.
#   bash scripts/scale-test.sh [N]
#   BIN=/path/to/hearth DURATION=8 bash scripts/scale-test.sh 100000
set -euo pipefail
cd "$(dirname "$0")/.."
count=${1:-1000000}
small=${SMALL:-1000}
DURATION=${DURATION:-8}
command -v wrk >/dev/null || { echo "wrk is missing: apt-get install wrk"; exit 1; }
source scripts/release-binary.sh
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
config="$work/config.json"
echo '{"logLevel": "warning", "rateLimits": false}' > "$config"

# users COUNT FILE: Firebase's CSV export of COUNT users with random Firebase-scrypt hashes (no one signs in as them;
# the load test signs up its own).
users() {
  python3 - "$1" "$2" <<'PY'
import base64, os, sys
count, path = int(sys.argv[1]), sys.argv[2]
with open(path, "w") as f:
    for i in range(count):
        f.write(f"user{i:07d},imported{i}@example.com,true,{base64.b64encode(os.urandom(64)).decode()},"
                f"{base64.b64encode(os.urandom(16)).decode()},User {i},,,,,,,,,,,,,,,,,,1600000000000,,,false,,\n")
PY
}

# import_into STORE FILE: imports FILE, printing wall time and peak memory.
import_into() {
  /usr/bin/time -v "$BIN" auth:import "$2" --hash-algo=scrypt \
    --hash-key=jxspr8Ki0RYycVU8zykbdLGjFQ3McFUH0uiiTvC8pVMXAn210wjLNmdZJzxUECKbm0QsEmYUSDzZvpjeJ9WmXA== \
    --salt-separator=Bw== --rounds=8 --mem-cost=14 --store "$1" --config "$config" --create-project 2>&1 \
    | grep -E "users imported|Elapsed|Maximum resident" | tail -3
}

# index_check FILE: the plan SQLite chooses for a user by email and by phone number.
index_check() {
  python3 - "$1" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
for what, where in (("email", "email = ?"), ("phone", "phone_number = ?")):
    plan = " ".join(row[-1] for row in db.execute(
        f"EXPLAIN QUERY PLAN SELECT data FROM users WHERE project_id = ? AND tenant_id = ? AND {where}"
        " ORDER BY created_at, local_id LIMIT 1", ("p", "", "x")))
    # The store's statement orders by creation: a plan that walks the creation index, or sorts, is not an index lookup.
    good = "users_created" not in plan and "TEMP B-TREE" not in plan and "INDEX" in plan
    print(f"lookup by {what}: {plan} ({'indexed' if good else 'NOT INDEXED'})")
PY
}

declare -A RATIOS
for size in "$small" "$count"; do
  file="$work/users-$size.csv"
  store="sqlite:$work/hearth-$size.sqlite"
  echo "== $size users"
  users "$size" "$file"
  import_into "$store" "$file"
  bytes=$(stat -c %s "$work/hearth-$size.sqlite")
  echo "store: $bytes bytes, $(( bytes / size )) bytes per user"
  index_check "$work/hearth-$size.sqlite"
  key=$("$BIN" project show --store "$store" --config "$config" --field apiKey)
  RATIOS[$size]=$(KEY="$key" STORE="$store" ONLY=endpoints DURATION="$DURATION" BIN="$BIN" bash scripts/load-test.sh \
    | awk '$1 == "ratio" {print $2 "=" $3}' | paste -sd' ')
  echo "${RATIOS[$size]}"
done
echo "== ratios at $count users against $small (goal: each within 10 %)"
python3 - "${RATIOS[$small]}" "${RATIOS[$count]}" "$small" "$count" <<'PY'
import sys
len_small, len_large = sys.argv[3], sys.argv[4]
small = dict(item.split("=") for item in sys.argv[1].split())
large = dict(item.split("=") for item in sys.argv[2].split())
for name in small:
    a, b = float(small[name]), float(large[name])
    print(f"{name:16} {a:6.2f} at {len_small:>9} {b:6.2f} at {len_large:>9}  {b / a:5.2f}  {'within 10 %' if b / a >= 0.9 else 'NOT within 10 %'}")
PY
