#!/usr/bin/env bash
# Prints the size of a file:// store's objects against the size of the
# sources it was built from: the apparent bytes at rest of objects/ only
# (refs, locks, audit and temp files are not counted), the sources' bytes
# and the ratio; with -v, one line per object (bytes at rest, canonical
# bytes read back through `formation show --raw`, and its first bytes),
# largest first. Usage: store-size.sh [-v] STORE_DIR SOURCE_PATH...
set -euo pipefail
verbose=0
if [ "${1:-}" = -v ]; then verbose=1; shift; fi
store=$1; shift
objects=$(find "$store/objects" -type f -printf '%s\n' | awk '{s += $1} END {print s + 0}')
sources=$(find "$@" -type f -printf '%s\n' | awk '{s += $1} END {print s + 0}')
format=$(cat "$store/format" 2>/dev/null || echo "formation-store/1 (no marker)")
awk -v o="$objects" -v s="$sources" -v f="$format" 'BEGIN {
  printf "format %s\nobjects %d bytes at rest, sources %d bytes, ratio %.1fx\n", f, o, s, o / s }'
if [ "$verbose" = 1 ]; then
  bin=${FORMATION:-./bin/formation}
  tmp=$(mktemp)
  trap 'rm -f "$tmp"' EXIT
  printf '%10s %10s  %s\n' "at rest" canonical object
  find "$store/objects" -type f -printf '%s %f\n' | sort -rn | while read -r size digest; do
    "$bin" --quiet --store "file://$store" show --raw "$digest" > "$tmp"
    printf '%10d %10d  %s  %s\n' "$size" "$(stat -c %s "$tmp")" "${digest:0:12}" \
      "$(head -c 48 "$tmp" | tr -c '[:print:]' ' ')"
  done
fi
