#!/usr/bin/env bash
# Runs every fuzz target of the module for the given duration each (default 5m).
# Targets are found by name (func FuzzX in *_test.go); one at a time, since
# `go test -fuzz` accepts a single target per package run.
set -euo pipefail
cd "$(dirname "$0")/.."
fuzztime="${1:-5m}"
mapfile -t targets < <(grep -rl --include='*_test.go' '^func Fuzz' . | sort | while read -r f; do
  pkg="./$(dirname "${f#./}")"
  grep -o '^func Fuzz[A-Za-z0-9_]*' "$f" | sed 's/^func //' | while read -r name; do echo "$pkg $name"; done
done)
for t in "${targets[@]}"; do
  read -r pkg name <<<"$t"
  echo "== fuzz $pkg $name for $fuzztime"
  go test -run='^$' -fuzz="^${name}\$" -fuzztime="$fuzztime" "$pkg" 2>&1 | tail -n 3
done
