#!/usr/bin/env bash
# Moves a Firebase project into Hearth with `hearth auth:migrate` and reports the time, the report and sign-ins
# afterwards. The source is Firebase's own emulator (built by ../shared/peer/build-emulator.sh), populated here with
# N users (default 10,000) holding Firebase-scrypt hashes, the first 20 of them real, and two tenants of N/20 users;
# the target is a production `hearth serve` on SQLite. The move then runs again (nothing left to create).
#   bash scripts/move-benchmark.sh [N]
#   BIN=/path/to/hearth EMULATOR=/tmp/peer/emulator/start.sh bash scripts/move-benchmark.sh 10000
set -euo pipefail
cd "$(dirname "$0")/.."
count=${1:-10000}
EMULATOR=${EMULATOR:-/tmp/peer/emulator/start.sh}
[ -x "$EMULATOR" ] || { echo "no Firebase emulator at $EMULATOR: MIRROR=… bash ../shared/peer/build-emulator.sh"; exit 1; }
if [ -z "${BIN:-}" ]; then swift build --product hearth >/dev/null; BIN=$PWD/.build/debug/hearth; fi
work=$(mktemp -d)
source_port=${SOURCE_PORT:-19951}; target_port=${TARGET_PORT:-19952}
trap 'kill $SOURCE $TARGET 2>/dev/null || true; rm -rf "$work"' EXIT
PROJECT_ID=move-source "$EMULATOR" "$source_port" > "$work/emulator.log" 2>&1 &
SOURCE=$!
(cd "$work" && exec "$BIN" serve --store "sqlite:$work/hearth.sqlite" --project-id move-target --port "$target_port" > "$work/hearth.log" 2>&1) &
TARGET=$!
for _ in $(seq 300); do
  curl -fs -o /dev/null "http://127.0.0.1:$source_port/emulator/v1/projects/move-source/config" \
    && curl -fs -o /dev/null "http://127.0.0.1:$target_port/healthz" && break
  sleep 0.1
done
key=jxspr8Ki0RYycVU8zykbdLGjFQ3McFUH0uiiTvC8pVMXAn210wjLNmdZJzxUECKbm0QsEmYUSDzZvpjeJ9WmXA==
echo "== populating Firebase's emulator: $count users, 2 tenants of $((count / 20))"
python3 - "$count" "http://127.0.0.1:$source_port" "$key" "$work/tenants" <<'PY'
import base64, hashlib, json, os, sys, urllib.request
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
count, base, signer = int(sys.argv[1]), sys.argv[2], base64.b64decode(sys.argv[3])
def scrypt_hash(password, salt):  # Firebase's scrypt: the signer key encrypted with a key derived from the password
    derived = hashlib.scrypt(password.encode(), salt=salt + b"\x07", n=2**14, r=8, p=1, dklen=64, maxmem=1 << 26)
    encryptor = Cipher(algorithms.AES(derived[:32]), modes.CTR(b"\0" * 16)).encryptor()
    return encryptor.update(signer) + encryptor.finalize()
def call(path, body):
    request = urllib.request.Request(base + path, json.dumps(body).encode(), method="POST",
                                     headers={"Content-Type": "application/json", "Authorization": "Bearer owner"})
    return json.load(urllib.request.urlopen(request))
def users(prefix, n, real):
    out = []
    for i in range(n):
        salt = os.urandom(16)
        digest = scrypt_hash(f"move-pass-{i}", salt) if i < real else os.urandom(32)
        user = {"localId": f"{prefix}{i:06d}", "email": f"{prefix}{i}@example.com", "emailVerified": i % 2 == 0,
                "passwordHash": base64.urlsafe_b64encode(digest).decode(), "salt": base64.urlsafe_b64encode(salt).decode(),
                "displayName": f"User {i}", "createdAt": str(1_600_000_000_000 + i)}
        if i % 10 == 0: user["customAttributes"] = json.dumps({"tier": "gold"})
        if i % 7 == 0: user["providerUserInfo"] = [{"providerId": "google.com", "rawId": f"g-{prefix}{i}", "email": f"{prefix}{i}@example.com"}]
        out.append(user)
    return out
project = "/identitytoolkit.googleapis.com/v1/projects/move-source"
everyone = users("user", count, 20)
for start in range(0, len(everyone), 1000):
    call(project + "/accounts:batchCreate", {"users": everyone[start:start + 1000]})
tenant_ids = []
for name in ["Acme", "Globex"]:
    tenant = call("/identitytoolkit.googleapis.com/v2/projects/move-source/tenants", {"displayName": name, "allowPasswordSignup": True})
    tenant_id = tenant.get("tenantId") or tenant["name"].split("/")[-1]
    tenant_ids.append(tenant_id)
    members = users(name.lower(), count // 20, 5)
    for start in range(0, len(members), 1000):
        call(f"{project}/tenants/{tenant_id}/accounts:batchCreate", {"users": members[start:start + 1000]})
open(sys.argv[4], "w").write("\n".join(tenant_ids))
PY
"$BIN" service-accounts create mover-account --out "$work/mover.json" --store "sqlite:$work/hearth.sqlite" \
  --project-id move-target > /dev/null 2>&1
keyfile=$work/mover.json
move() {
  /usr/bin/time -f "wall %e s, peak memory %M KB" "$BIN" auth:migrate --from "http://127.0.0.1:$source_port" \
    --from-project move-source --to "http://127.0.0.1:$target_port" --to-key-file "$keyfile" --project-id move-target \
    --hash-key "$key" --salt-separator Bw== --rounds 8 --mem-cost 14 --store "sqlite:$work/hearth.sqlite" 2> "$work/move.err" \
    || { cat "$work/move.err"; exit 1; }
  grep -E "^wall" "$work/move.err"
}
echo "== moving"
move
echo "== sign-ins on Hearth afterwards (the 20 users with real hashes, and 5 of each tenant)"
api_key=$("$BIN" project show --field apiKey --store "sqlite:$work/hearth.sqlite" --project-id move-target 2>/dev/null)
python3 - "http://127.0.0.1:$target_port" "$api_key" "$work/tenants" "$work/hearth.sqlite" <<'PY'
import json, sqlite3, sys, urllib.request, urllib.error
base, key = sys.argv[1], sys.argv[2]
targets = [row[0] for row in sqlite3.connect(sys.argv[4]).execute("SELECT tenant_id FROM tenants ORDER BY tenant_id")]
def sign_in(email, password, tenant=None):
    body = {"email": email, "password": password, "returnSecureToken": True}
    if tenant: body["tenantId"] = tenant
    request = urllib.request.Request(f"{base}/identitytoolkit.googleapis.com/v1/accounts:signInWithPassword?key={key}",
                                     json.dumps(body).encode(), headers={"Content-Type": "application/json"})
    try: return "idToken" in json.load(urllib.request.urlopen(request))
    except urllib.error.HTTPError: return False
project = sum(sign_in(f"user{i}@example.com", f"move-pass-{i}") for i in range(20))
tenants = 0
for tenant in targets:
    name = tenant.split("-")[0]
    tenants += sum(sign_in(f"{name}{i}@example.com", f"move-pass-{i}", tenant) for i in range(5))
print(f"signed in: {project} of 20 project users, {tenants} of {5 * len(targets)} tenant users")
PY
echo "== moving again (every user already there)"
move
