#!/usr/bin/env bash
# Runs a release binary with the Swift toolchain out of reach, as on a machine without Swift: in a private mount
# namespace an empty tmpfs hides the toolchain's folder; the binary must print its version, start, and answer
# /healthz and a sign-up. Needs unshare and mount rights (root); otherwise it says it skipped.
#
#   bash scripts/check-static-binary.sh .build-static/release/hearth
set -euo pipefail
BIN=$(readlink -f "${1:?give the binary to check}")
PORT=${PORT:-19720}
SWIFT=$(command -v swift || true)
[ -n "$SWIFT" ] || { echo "== no Swift toolchain here: nothing to hide"; exit 0; }
TOOLCHAIN=$(dirname "$(dirname "$(dirname "$(readlink -f "$SWIFT")")")")   # …/usr/bin/swift → the toolchain root
if ! unshare -m --propagation private true 2>/dev/null; then
  echo "== skipped the no-toolchain check: unshare needs root here"
  exit 0
fi
echo "== $BIN with $TOOLCHAIN hidden"
unshare -m --propagation private bash -euo pipefail -c '
  mount -t tmpfs none "$1"
  if ls "$1"/usr/lib/swift/linux/libswiftCore.so >/dev/null 2>&1; then echo "toolchain still visible"; exit 1; fi
  if ldd "$2" | grep -q "libswift"; then echo "still linked to the Swift runtime:"; ldd "$2" | grep libswift; exit 1; fi
  "$2" --version
  "$2" serve --store memory: --port "$3" > /tmp/hearth-static-check.log 2>&1 &
  server=$!
  trap "kill $server 2>/dev/null || true" EXIT
  for _ in $(seq 1 100); do curl -sf "http://127.0.0.1:$3/healthz" >/dev/null && break; sleep 0.1; done
  curl -sf "http://127.0.0.1:$3/healthz"; echo
  key=$(awk "/API key:/ {print \$3}" /tmp/hearth-static-check.log)
  curl -sf "http://127.0.0.1:$3/identitytoolkit.googleapis.com/v1/accounts:signUp?key=$key" \
    -H "content-type: application/json" \
    -d "{\"email\":\"static@example.com\",\"password\":\"secret123\",\"returnSecureToken\":true}" | grep -q idToken
  echo "== runs without the toolchain: version, start, health, sign-up"
' check "$TOOLCHAIN" "$BIN" "$PORT"
