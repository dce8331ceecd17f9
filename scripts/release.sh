#!/usr/bin/env bash
# Builds the release binary with the Swift runtime linked in, so it runs on a machine without Swift, then checks
# exactly that (scripts/check-static-binary.sh).
#
#   bash scripts/release.sh          # → .build-static/release/hearth
set -euo pipefail
cd "$(dirname "$0")/.."
swift build -c release --static-swift-stdlib --product hearth --scratch-path .build-static 2>&1 \
  | grep -E "error|warning: unre|Compiling hearth|Build of product|Build complete" || true
bash scripts/check-static-binary.sh .build-static/release/hearth
