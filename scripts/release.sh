#!/usr/bin/env bash
# Builds the release binary with the Swift runtime linked in, so it runs on a machine without Swift, then checks
# exactly that (scripts/check-static-binary.sh).
#
#   bash scripts/release.sh          # → .build-static/hearth (stripped; the unstripped one is in .build-static/release)
set -euo pipefail
cd "$(dirname "$0")/.."

# The compiler's own lines are thousands; this shows the step count at each tenth, errors, and the end, and at
# least one line a minute saying what it is on (release builds optimize a whole module in one step, minutes for
# the largest). SwiftPM counts its planning steps first ([1/4], not shown), then the build's, whose total grows as it
# plans: a total more than twice the last starts the tenths again.
progress() {
  local line last=0 total=0 percent current="starting" said=$SECONDS
  while true; do
    if (( SECONDS - said >= 60 )); then  # a minute without a line: say where it is
      echo "   still building, $(( SECONDS - started )) s in; at $current"
      said=$SECONDS
    fi
    if IFS= read -r -t 60 line; then
      if [[ $line =~ ^\[([0-9]+)/([0-9]+)\]\ (.*) ]]; then
        current="step ${BASH_REMATCH[1]} of ${BASH_REMATCH[2]}: ${BASH_REMATCH[3]}"
        (( BASH_REMATCH[2] < 50 )) && continue  # planning, or a build with next to nothing to do
        if (( BASH_REMATCH[2] > total * 2 )); then total=${BASH_REMATCH[2]}; last=0; fi
        percent=$(( BASH_REMATCH[1] * 10 / BASH_REMATCH[2] * 10 ))
        if (( percent > last )); then
          last=$percent
          echo "   $percent % (step ${BASH_REMATCH[1]} of ${BASH_REMATCH[2]}, $(( SECONDS - started )) s)"
          said=$SECONDS
        fi
      elif [[ $line =~ error:|warning:\ unre|Build\ of\ product|Build\ complete ]]; then
        echo "   $line"
      fi
    elif (( $? > 128 )); then
      continue  # the check at the top says it
    else
      break
    fi
  done
}

started=$SECONDS
if [ -x .build-static/release/hearth ]; then
  echo "== release build (.build-static): incremental, usually 1 to 5 minutes on two cores"
else
  echo "== release build (.build-static), the first: about 15 minutes on two cores, with progress every tenth"
fi
swift build -c release --static-swift-stdlib --product hearth --scratch-path .build-static 2>&1 | progress
strip -o .build-static/hearth .build-static/release/hearth
echo "== .build-static/hearth: $(( $(stat -c %s .build-static/hearth) / 1048576 )) MB (stripped), Swift runtime and SQLite inside; built in $(( SECONDS - started )) s"
bash scripts/check-static-binary.sh .build-static/hearth
