# Sourced by the benchmark scripts: sets BIN to the hearth binary to measure — $BIN if given (another build, for a
# before/after comparison), else a release build of this checkout, built now if needed.
if [ -z "${BIN:-}" ]; then
  swift build -c release --product hearth 2>&1 | grep -E "error|Compiling hearth|complete" || true
  BIN=$(swift build -c release --show-bin-path)/hearth
fi
