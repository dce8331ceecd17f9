#!/usr/bin/env bash
# Installs `hearth`: the static release binary (Swift runtime and SQLite inside, scripts/release.sh) copied into
# PREFIX/bin, then run from there to show it works. Builds the binary first unless BIN names one already built.
#
#   bash scripts/install.sh                      # PREFIX: /usr/local as root, else ~/.local
#   PREFIX=/opt/hearth bash scripts/install.sh
#   BIN=.build-static/hearth bash scripts/install.sh   # install a binary built before, without building
#
# The first build takes a while (about 15 minutes on two cores; later ones are incremental). The binary needs no
# Swift toolchain where it runs: copy PREFIX/bin/hearth to another Linux machine of the same architecture.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ -z "${PREFIX:-}" ]; then
  if [ "$(id -u)" = 0 ]; then PREFIX=/usr/local; else PREFIX="$HOME/.local"; fi
fi

if [ -z "${BIN:-}" ]; then
  echo "== building the release binary (scripts/release.sh; the first build takes about 15 minutes on two cores)"
  started=$(date +%s)
  bash scripts/release.sh
  echo "== built in $(( $(date +%s) - started )) s"
  BIN=.build-static/hearth
fi
[ -x "$BIN" ] || { echo "install: $BIN is not an executable (build it with scripts/release.sh, or set BIN)" >&2; exit 1; }

mkdir -p "$PREFIX/bin"
install -m 0755 "$BIN" "$PREFIX/bin/hearth.new"
mv -f "$PREFIX/bin/hearth.new" "$PREFIX/bin/hearth"   # a running server keeps its old file; the next start uses this
echo "== installed $PREFIX/bin/hearth: $("$PREFIX/bin/hearth" --version)"

case ":$PATH:" in
  *":$PREFIX/bin:"*)
    found=$(command -v hearth || true)
    if [ "$found" != "$PREFIX/bin/hearth" ]; then
      echo "note: \`hearth\` on your PATH is $found, found before $PREFIX/bin/hearth"
    else
      echo "== \`hearth\` is on your PATH. Start it with: hearth serve"
    fi
    ;;
  *)
    echo "note: $PREFIX/bin is not on your PATH. Add it (e.g. to ~/.profile):"
    echo "  export PATH=\"$PREFIX/bin:\$PATH\""
    echo "or run $PREFIX/bin/hearth serve"
    ;;
esac
