#!/usr/bin/env bash
# What an app that adds HearthAuth pulls in: makes a sample app package beside nothing else (in a temporary folder)
# that depends on this checkout as FirebaseAuth users write it, with the server trait off, resolves and builds it,
# and counts the packages resolved. Fails if any package besides this one is resolved, or the build fails.
#
#   bash scripts/app-package.sh            # the light form (traits: []): expects 0 other packages
#   TRAITS=default bash scripts/app-package.sh   # the default traits, for comparison (resolves the server's graph)
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)
app=$(mktemp -d /tmp/hearth-app-XXXXXX)
trap 'rm -rf "$app"' EXIT
traits=', traits: []'
[ "${TRAITS:-}" = default ] && traits=''
mkdir -p "$app/Sources/SampleApp"
cat > "$app/Package.swift" <<MANIFEST
// swift-tools-version:6.1
import PackageDescription

let package = Package(
    name: "SampleApp",
    platforms: [.iOS(.v15), .macOS(.v14)],
    dependencies: [.package(path: "$repo"$traits)],
    targets: [.executableTarget(name: "SampleApp", dependencies: [.product(name: "HearthAuth", package: "$(basename "$repo")")])]
)
MANIFEST
cat > "$app/Sources/SampleApp/main.swift" <<'SWIFT'
import HearthAuth

// FirebaseAuth's first lines, as the seeds write them.
let options = FirebaseOptions(googleAppID: "1:123:ios:abc", gcmSenderID: "123")
options.apiKey = "key"
options.projectID = "demo-app"
FirebaseApp.configure(options: options)
print(Auth.auth().currentUser == nil ? "signed out" : "signed in")
SWIFT
cd "$app"
echo "== resolving a sample app that depends on HearthAuth${traits:+ (traits: [])}"
swift package resolve >/dev/null
resolved=0
[ -d .build/checkouts ] && resolved=$(find .build/checkouts -mindepth 1 -maxdepth 1 -type d | wc -l)
echo "packages resolved besides hearth: $resolved"
[ -d .build/checkouts ] && ls .build/checkouts | sed 's/^/  /'
echo "== building it"
start=$(date +%s)
swift build 2>&1 | tail -1
built=$(for dir in .build/debug/*.build; do
  ls "$dir"/*.o >/dev/null 2>&1 && basename "$dir" .build
done | sort | tr '\n' ' ')
echo "modules compiled: $built($(($(date +%s) - start)) s)"
./.build/debug/SampleApp
if [ -z "${TRAITS:-}" ] && [ "$resolved" -ne 0 ]; then
  echo "FAIL: an app with HearthAuth alone resolved $resolved other packages" >&2
  exit 1
fi
