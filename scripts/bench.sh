#!/usr/bin/env bash
# Benchmarks that the issues ask to be measured, with the derived figures.
# Not part of `make test`: timings depend on the machine and its load.
set -euo pipefail
cd "$(dirname "$0")/.."
out=$(mktemp)
trap 'rm -f "$out"' EXIT

echo "== canonical encode + SHA-256 of a 10 MB VTS-shaped artifact vs raw SHA-256"
go test -run '^$' -bench 'CanonVsSHA256' -benchtime 20x -count 3 ./artifact | tee "$out" | grep Benchmark
awk '/encode\+sha256/ {e+=$(NF-1); ne++} /sha256-[0-9]/ && !/encode/ {s+=$(NF-1); ns++}
     END { if (ne && ns) printf "ratio: %.1f%% of raw SHA-256 throughput (mean of %d runs)\n", 100*(e/ne)/(s/ns), ne }' "$out"

echo "== object store put/get, file and S3 (versitygw)"
go test -run '^$' -bench 'PutGet' -benchtime 2s ./store/... | grep -E 'Benchmark|ok' || true
