#!/usr/bin/env bash
# The benchmarks the issues ask to be measured, with the derived figures.
# Not part of `make test`: timings depend on the machine and its load.
# BENCH_SCALE overrides the back-half sizes (default 1000,10000,100000).
set -euo pipefail
cd "$(dirname "$0")/.."
out=$(mktemp)
trap 'rm -f "$out"' EXIT

echo "== canonical encode + SHA-256 of a 10 MB VTS-shaped artifact vs raw SHA-256 (same run)"
go test -run '^$' -bench 'CanonVsSHA256' -benchtime 20x -count 3 ./artifact | tee "$out" | grep Benchmark
awk '/encode\+sha256/ {e+=$(NF-1); ne++} /sha256-[0-9]/ && !/encode/ {s+=$(NF-1); ns++}
     END { if (ne && ns) printf "ratio: %.1f%% of raw SHA-256 throughput (mean of %d runs)\n", 100*(e/ne)/(s/ns), ne }' "$out"

echo "== object store put/get, file and S3 (versitygw), 1 KB and 4 MB"
go test -run '^$' -bench 'PutGet' -benchtime 2s ./store | grep -E 'Benchmark' || true

echo "== runtime: one turn against 10,000 triples (p50, p99, memory per 10k triples)"
go test -run '^$' -bench 'Turn10k|Knowledge10k' -benchtime 2000x ./runtime | grep Benchmark || true

if [ -d smelting ]; then
  echo "== smelter throughput (per core)"
  go test -run '^$' -bench 'Smelt' -benchtime 3x ./smelting | grep Benchmark || true
fi
if [ -f mining/memory_test.go ]; then
  echo "== mining 100,000 small files: peak memory"
  go test -run '^$' -bench 'Mine100k' -benchtime 1x ./mining | grep Benchmark || true
fi

echo "== mining 400 KB of pathological Markdown per shape (nested brackets, links, '<' runs)"
go test -run '^$' -bench 'PathologicalMarkdown' -benchtime 3x ./mining | grep Benchmark || true

echo "== forge + compose + run + ratify on synthetic subjects (time per stage, rerun share, peak RSS)"
go test -c -o "$out.pipeline" ./pipeline
for n in $(echo "${BENCH_SCALE:-1000,10000,100000}" | tr ',' ' '); do
  FORMATION_SCALE=$n /usr/bin/time -f '%M' -o "$out.rss" "$out.pipeline" -test.run '^$' -test.bench 'BenchmarkBackHalf$' -test.benchtime 1x | grep Benchmark || true
  echo "   peak RSS at $n relations: $(( $(cat "$out.rss") / 1024 )) MB"
done

echo "== the original's workload shape at 1,000 and 10,000 relations against its measured figures (another day, another machine of the same kind)"
echo "   function level, forge + compose + compile in process (target at 10,000: x_original >= 50 at pacing=command, the collector pacing every command runs with; pacing=runtime is Go's default, for comparison):"
(cd pipeline && "$out.pipeline" -test.run '^$' -test.bench 'OriginalShape$' -test.benchtime 3x) | grep Benchmark |
  awk '{ line = "   " $1 ":"; for (i = 2; i < NF; i++) if ($(i+1) ~ /_s$|x_original|steps|yaml-bytes/) line = line " " $(i+1) "=" $i; print line }'
echo "   forge's stage frame at 10,000: the forge stage beside forge.Validate in process; frame = stage - core (the medians are the steady figures):"
(cd pipeline && FORMATION_SCALE=10000 "$out.pipeline" -test.run '^$' -test.bench 'OriginalShapeForgeFrame' -test.benchtime 12x) | grep Benchmark |
  awk '{ line = "   " $1 ":"; for (i = 2; i < NF; i++) if ($(i+1) ~ /_s$/) line = line " " $(i+1) "=" $i; print line }'
echo "   stage level, forge + compose + run + ratify over a store (target at 10,000: x_original >= 10):"
(cd pipeline && "$out.pipeline" -test.run '^$' -test.bench 'OriginalShapeBackHalf' -test.benchtime 1x) | grep Benchmark |
  awk '{ line = "   " $1 ":"; for (i = 2; i < NF; i++) if ($(i+1) ~ /_s$|x_original/) line = line " " $(i+1) "=" $i; print line }'

echo "== back half at ${BENCH_SIDE_SCALE:-100000} relations beside commit ${BENCH_BASE:-3e253e3}, built from a worktree of it, in the same run"
base=$(mktemp -d)
git worktree add --detach "$base/tree" "${BENCH_BASE:-3e253e3}" >/dev/null 2>&1
(cd "$base/tree" && go test -c -o "$base/pipeline.test" ./pipeline)
for side in base this; do
  if [ "$side" = base ]; then bin="$base/pipeline.test"; dir="$base/tree"; else bin="$out.pipeline"; dir=.; fi
  (cd "$dir" && FORMATION_SCALE=${BENCH_SIDE_SCALE:-100000} /usr/bin/time -f '%M' -o "$out.rss" "$bin" -test.run '^$' -test.bench 'BenchmarkBackHalf$' -test.benchtime 1x) |
    grep Benchmark | tr '\t' '\n' | grep -E 'run_s|ratify_s|first_s' | tr -s ' ' | sed "s/^/   $side: /" || true
  echo "   $side: peak RSS $(( $(cat "$out.rss") / 1024 )) MB"
done
echo "== autorun of one 1 MiB Markdown source beside commit ${BENCH_BASE:-3e253e3}, in the same run (targets: wall <= 50 %, peak RSS <= 35 %, as many relations)"
bash scripts/source-scale.sh --against "$base/tree" 1
git worktree remove --force "$base/tree"
rm -rf "$base"

echo "== autorun of a generated 10,000-relation subject, twice (the second must be all cache hits)"
bash scripts/autorun-scale.sh 10000

echo "== autorun of one Markdown source of distinct sentences at 1, 2, 4, 8 and 16 MiB (BENCH_SOURCE_MIB overrides), each ${BENCH_REPEAT:-3} times"
REPEAT=${BENCH_REPEAT:-3} bash scripts/source-scale.sh ${BENCH_SOURCE_MIB:-1 2 4 8 16}
