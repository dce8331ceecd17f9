#!/usr/bin/env bash
# Runs the JS SDK's own password_policy integration tests (which skip against emulators) against Hearth.
#
#   WORKDIR=/tmp/jssdk bash scripts/js-password-policy.sh [BIN]
#
# Needs the JS SDK's integration bundle built by ../shared/peer/js-sdk-integration/build.sh in WORKDIR. The specs
# are run as upstream wrote them, with two emulator shortcuts taken out: the `this.skip()` when an emulator is set,
# and the helper that then returns "password" instead of a password the served policy accepts. The tenant the
# specs name gets their expected policy (8-24 characters, each kind) through the tenant PATCH first.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${1:-$(swift build -c release --show-bin-path)/hearth}
W=${WORKDIR:-/tmp/js-sdk-integration}
SPEC="$W/out/node/password_policy.test.mjs"
[ -f "$SPEC" ] || { echo "no $SPEC: build the bundle with ../shared/peer/js-sdk-integration/build.sh"; exit 1; }
PORT=${PORT:-19312}
BASE="http://127.0.0.1:$PORT/identitytoolkit.googleapis.com"
DATA=$(mktemp -d)
trap 'kill $SERVER 2>/dev/null || true; rm -rf "$DATA" "$W/out/node/password_policy_hearth.test.mjs"' EXIT
(cd "$DATA" && exec "$BIN" serve --emulator --project-id emulatedproject --port "$PORT" > "$DATA/server.log" 2>&1) &
SERVER=$!
for _ in $(seq 100); do curl -fs -o /dev/null "http://127.0.0.1:$PORT/healthz" && break; sleep 0.1; done

python3 - "$SPEC" "$W/out/node/password_policy_hearth.test.mjs" <<'PY'
import sys
text = open(sys.argv[1]).read()
skip = "    if (getEmulatorUrl()) {\n      this.skip();\n    }\n"
assert skip in text, "the spec's emulator skip moved: update this script"
text = text.replace(skip, "").replace("  generateValidPassword,\n", "")
helper = '''// Upstream's generateValidPassword without its emulator shortcut: the policy the server serves decides.
async function generateValidPassword(auth) {
  if (!auth._getPasswordPolicyInternal()) await auth._updatePasswordPolicy();
  const policy = auth._getPasswordPolicyInternal();
  const all = "aA0" + policy.allowedNonAlphanumericCharacters.charAt(0);
  const min = policy.customStrengthOptions.minPasswordLength ?? 6;
  return all.repeat(Math.round(min / all.length)).substring(0, min);
}
'''
marker = 'import chaiAsPromised from "chai-as-promised";\n'
open(sys.argv[2], "w").write(text.replace(marker, marker + helper))
PY

TENANT=passpol-tenant-d7hha
curl -fs -o /dev/null "$BASE/v2/passwordPolicy?key=k&tenantId=$TENANT"   # emulator mode makes the tenant on first use
curl -fs -o /dev/null -X PATCH "$BASE/v2/projects/emulatedproject/tenants/$TENANT?updateMask=passwordPolicyConfig" \
  -H "Authorization: Bearer owner" -H "Content-Type: application/json" \
  -d '{"passwordPolicyConfig":{"passwordPolicyEnforcementState":"ENFORCE","passwordPolicyVersions":[{"customStrengthOptions":{"minPasswordLength":8,"maxPasswordLength":24,"containsLowercaseCharacter":true,"containsUppercaseCharacter":true,"containsNumericCharacter":true,"containsNonAlphanumericCharacter":true}}]}}'
NODE_SPECS=password_policy_hearth JSDOM_SPECS=none WORKDIR="$W" \
  bash ../shared/peer/js-sdk-integration/run.sh "http://127.0.0.1:$PORT" "$DATA/report.json" | tail -1
