#!/usr/bin/env bash
# Hearth at a million users, on SQLite and on PostgreSQL: for each store, imports N users (default 1,000,000) with
# Firebase-scrypt hashes into a fresh store with the release build of `hearth auth:import`, reports the import's wall
# time, its peak memory and the store's size per user, checks that lookups by email and by phone number use an index,
# then runs the load test's endpoints against that store and against one of SMALL users (default 1,000), and prints
# their ratios side by side (goal: each within 10 %).
#   bash scripts/scale-test.sh [N]
#   STORES=sqlite BIN=/path/to/hearth DURATION=8 bash scripts/scale-test.sh 100000
# PostgreSQL is a throwaway cluster on a free loopback port (`initdb` from `pg_config --bindir`, run as `postgres`
# when this runs as root); it is skipped, saying so, when PostgreSQL is not installed.
set -euo pipefail
cd "$(dirname "$0")/.."
count=${1:-1000000}
small=${SMALL:-1000}
DURATION=${DURATION:-8}
STORES=${STORES:-sqlite postgres}
command -v wrk >/dev/null || { echo "wrk is missing: apt-get install wrk"; exit 1; }
source scripts/release-binary.sh
work=$(mktemp -d)
chmod 755 "$work"
PGCTL=""
cleanup() {
  if [ -n "$PGCTL" ]; then $PGCTL stop -m fast >/dev/null 2>&1 || true; fi
  rm -rf "$work"
}
trap cleanup EXIT
config="$work/config.json"
echo '{"logLevel": "warning", "rateLimits": false}' > "$config"

# users COUNT FILE: Firebase's CSV export of COUNT users with random Firebase-scrypt hashes and phone numbers (no one
# signs in as them; the load test signs up its own).
users() {
  python3 - "$1" "$2" <<'PY'
import base64, os, sys
count, path = int(sys.argv[1]), sys.argv[2]
with open(path, "w") as f:
    for i in range(count):
        f.write(f"user{i:07d},imported{i}@example.com,true,{base64.b64encode(os.urandom(64)).decode()},"
                f"{base64.b64encode(os.urandom(16)).decode()},User {i},,,,,,,,,,,,,,,,,,1600000000000,,"
                f"+1555{i:07d},false,,\n")
PY
}

# import_into STORE FILE: imports FILE, printing wall time and peak memory.
import_into() {
  /usr/bin/time -v "$BIN" auth:import "$2" --hash-algo=scrypt \
    --hash-key=jxspr8Ki0RYycVU8zykbdLGjFQ3McFUH0uiiTvC8pVMXAn210wjLNmdZJzxUECKbm0QsEmYUSDzZvpjeJ9WmXA== \
    --salt-separator=Bw== --rounds=8 --mem-cost=14 --store "$1" --config "$config" --create-project 2>&1 \
    | grep -E "users imported|Elapsed|Maximum resident" | tail -3
}

# The statement the store runs for a user by email or phone (COLUMN VALUE) in the imported project, ordered as the
# store orders it. The real project matters: PostgreSQL plans by its statistics, and a project with no users is
# served as well by any index.
lookup_sql() {
  echo "SELECT data FROM users WHERE project_id = '$PROJECT' AND tenant_id = '' AND $1 = '$2' ORDER BY created_at, local_id LIMIT 1"
}
# A plan that walks the creation index, scans the table or sorts is not an index lookup.
judge() {
  if echo "$1" | grep -qiE "users_created|seq scan|temp b-tree|sort"; then echo "NOT INDEXED"; else echo "indexed"; fi
}

# sqlite_store SIZE: sets STORE and prints the file's size per user and the lookups' plans.
sqlite_store() {
  local file="$work/hearth-$1.sqlite"
  STORE="sqlite:$file"
  import_into "$STORE" "$work/users-$1.csv"
  local bytes; bytes=$(( $(stat -c %s "$file") + $(stat -c %s "$file-wal" 2>/dev/null || echo 0) ))
  echo "store: $bytes bytes, $(( bytes / $1 )) bytes per user"
  PROJECT=$(python3 -c 'import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute("SELECT project_id FROM users LIMIT 1").fetchone()[0])' "$file")
  for column in "email imported7@example.com" "phone_number +15550000007"; do
    local plan; plan=$(python3 -c 'import sqlite3,sys; print(" ".join(r[-1] for r in sqlite3.connect(sys.argv[1]).execute("EXPLAIN QUERY PLAN " + sys.argv[2])))' \
      "$file" "$(lookup_sql $column)")
    echo "lookup by ${column%% *}: $plan ($(judge "$plan"))"
  done
}

# postgres_store SIZE: a database of its own in the throwaway cluster; sets STORE, prints size per user and plans.
postgres_store() {
  local db="hearth_$1"
  "$PGBIN/createdb" -h 127.0.0.1 -p "$PGPORT" -U postgres "$db"
  STORE="postgres://postgres@127.0.0.1:$PGPORT/$db"
  import_into "$STORE" "$work/users-$1.csv"
  psql_at() { "$PGBIN/psql" -h 127.0.0.1 -p "$PGPORT" -U postgres -d "$db" -qAt -c "$1"; }
  # Statistics for the planner, and the import's writes flushed, so that the load test measures a settled database.
  psql_at "VACUUM ANALYZE users" >/dev/null
  psql_at "CHECKPOINT" >/dev/null
  local bytes; bytes=$(psql_at "SELECT pg_database_size('$db')")
  echo "store: $bytes bytes, $(( bytes / $1 )) bytes per user (the whole database)"
  PROJECT=$(psql_at "SELECT project_id FROM users LIMIT 1")
  for column in "email imported7@example.com" "phone_number +15550000007"; do
    local plan; plan=$(psql_at "EXPLAIN $(lookup_sql $column)" | paste -sd' ' | tr -s ' ')
    echo "lookup by ${column%% *}: $plan ($(judge "$plan"))"
  done
}

start_postgres() {
  PGBIN=$(pg_config --bindir 2>/dev/null || true)
  if [ -z "$PGBIN" ] || [ ! -x "$PGBIN/initdb" ]; then
    echo "== PostgreSQL skipped: no initdb (apt-get install postgresql)"; return 1
  fi
  local as=()
  if [ "$(id -u)" = 0 ]; then as=(runuser -u postgres --); fi
  PGPORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  mkdir -p "$work/pg"; [ "$(id -u)" = 0 ] && chown postgres "$work/pg"
  "${as[@]}" "$PGBIN/initdb" -D "$work/pg/data" -U postgres --auth=trust -E UTF8 >/dev/null
  PGCTL="${as[*]} $PGBIN/pg_ctl -D $work/pg/data -w"
  $PGCTL -l "$work/pg/log" -o "-p $PGPORT -k $work/pg -c listen_addresses=127.0.0.1" start >/dev/null
}

for kind in $STORES; do
  if [ "$kind" = postgres ] && ! start_postgres; then continue; fi
  declare -A RATIOS=()
  for size in "$small" "$count"; do
    echo "== $kind, $size users"
    [ -f "$work/users-$size.csv" ] || users "$size" "$work/users-$size.csv"
    "${kind}_store" "$size"
    key=$("$BIN" project show --store "$STORE" --config "$config" --field apiKey)
    RATIOS[$size]=$(KEY="$key" STORE="$STORE" ONLY=endpoints DURATION="$DURATION" BIN="$BIN" bash scripts/load-test.sh \
      | awk '$1 == "ratio" {print $2 "=" $3}' | paste -sd' ')
    echo "${RATIOS[$size]}"
  done
  echo "== $kind: ratios at $count users against $small (goal: each within 10 %)"
  python3 - "${RATIOS[$small]}" "${RATIOS[$count]}" "$small" "$count" <<'PY'
import sys
len_small, len_large = sys.argv[3], sys.argv[4]
small = dict(item.split("=") for item in sys.argv[1].split())
large = dict(item.split("=") for item in sys.argv[2].split())
for name in small:
    a, b = float(small[name]), float(large[name])
    print(f"{name:16} {a:6.2f} at {len_small:>9} {b:6.2f} at {len_large:>9}  {b / a:5.2f}  {'within 10 %' if b / a >= 0.9 else 'NOT within 10 %'}")
PY
done
