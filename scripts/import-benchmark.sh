#!/usr/bin/env bash
# Imports N users (default 1,000,000) with pre-computed Firebase-scrypt hashes into a fresh SQLite file with the
# release build of `hearth auth:import`, and prints the rate, the wall time and the peak memory; then runs the same
# import again (every user is already there: all skipped, as a re-run after an interruption), which must be faster.
#   bash scripts/import-benchmark.sh [N]
#   STORE=postgres://user@host/db BIN=/path/to/hearth bash scripts/import-benchmark.sh 100000
set -euo pipefail
cd "$(dirname "$0")/.."
count=${1:-1000000}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
if [ -z "${BIN:-}" ]; then swift build -c release --product hearth >/dev/null; BIN=.build/release/hearth; fi
STORE=${STORE:-sqlite:$work/hearth.sqlite}
echo "== generating $count users"
python3 - "$count" "$work/users.csv" <<'PY'
import base64, os, sys
count, path = int(sys.argv[1]), sys.argv[2]
with open(path, "w") as f:
    for i in range(count):
        f.write(f"user{i:07d},user{i}@example.com,true,{base64.b64encode(os.urandom(64)).decode()},"
                f"{base64.b64encode(os.urandom(16)).decode()},User {i},,,,,,,,,,,,,,,,,,1600000000000,,,false,,\n")
PY
import() {
  /usr/bin/time -v "$BIN" auth:import "$work/users.csv" --hash-algo=scrypt \
    --hash-key=jxspr8Ki0RYycVU8zykbdLGjFQ3McFUH0uiiTvC8pVMXAn210wjLNmdZJzxUECKbm0QsEmYUSDzZvpjeJ9WmXA== \
    --salt-separator=Bw== --rounds=8 --mem-cost=14 --store "$STORE" --create-project 2>&1 \
    | grep -E "users imported|unchanged|Elapsed|Maximum resident" | tail -4
}
echo "== importing"
import
echo "== importing again (every user already there)"
import
