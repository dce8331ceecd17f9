#!/usr/bin/env bash
# Builds the release binary with the Swift runtime linked in, so it runs on a machine without Swift, then checks
# exactly that (scripts/check-static-binary.sh).
#
#   bash scripts/release.sh          # → .build-static/hearth (stripped; the unstripped one is in .build-static/release)
set -euo pipefail
cd "$(dirname "$0")/.."
swift build -c release --static-swift-stdlib --product hearth --scratch-path .build-static 2>&1 \
  | grep -E "error|warning: unre|Compiling hearth|Build of product|Build complete" || true
strip -o .build-static/hearth .build-static/release/hearth
echo "== .build-static/hearth: $(( $(stat -c %s .build-static/hearth) / 1048576 )) MB, Swift runtime and SQLite inside"
bash scripts/check-static-binary.sh .build-static/hearth
