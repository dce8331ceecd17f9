#!/usr/bin/env bash
# Imports N users (default 1,000,000) with pre-computed Firebase-scrypt hashes into a fresh SQLite file with the
# release build of `hearth auth:import`, and prints the rate, the wall time and the peak memory.
#   bash scripts/import-benchmark.sh [N]
set -euo pipefail
cd "$(dirname "$0")/.."
count=${1:-1000000}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
swift build -c release --product hearth >/dev/null
echo "== generating $count users"
python3 - "$count" "$work/users.csv" <<'PY'
import base64, os, sys
count, path = int(sys.argv[1]), sys.argv[2]
with open(path, "w") as f:
    for i in range(count):
        f.write(f"user{i:07d},user{i}@example.com,true,{base64.b64encode(os.urandom(64)).decode()},"
                f"{base64.b64encode(os.urandom(16)).decode()},User {i},,,,,,,,,,,,,,,,,,1600000000000,,,false,,\n")
PY
echo "== importing"
/usr/bin/time -v .build/release/hearth auth:import "$work/users.csv" --hash-algo=scrypt \
  --hash-key=jxspr8Ki0RYycVU8zykbdLGjFQ3McFUH0uiiTvC8pVMXAn210wjLNmdZJzxUECKbm0QsEmYUSDzZvpjeJ9WmXA== \
  --salt-separator=Bw== --rounds=8 --mem-cost=14 --store "sqlite:$work/hearth.sqlite" --create-project 2>&1 \
  | grep -E "users imported|Elapsed|Maximum resident" | tail -3
