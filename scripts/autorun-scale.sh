#!/usr/bin/env bash
# Generates a subject of N relations written as prose (one Markdown source),
# runs `formation autorun` on it twice on a fresh store and prints both times:
# the second run must be all cache hits; then the store's size against the
# source's (scripts/store-size.sh). Usage: autorun-scale.sh [N]
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-10000}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
subj="$work/courses/scale"
mkdir -p "$subj/sources"
awk -v n="$n" 'BEGIN {
  split("causes produces precedes grounds", rel, " ")
  for (i = 0; i < n; i++) printf "Node%d %s node%d.\n", i, rel[i % 4 + 1], i + 1
  for (i = 0; i < n; i += 10) printf "Node%d is defined as the %dth node of the chain.\n", i, i
}' > "$subj/sources/chain.md"
sha=$(sha256sum "$subj/sources/chain.md" | cut -d' ' -f1)
cat > "$subj/subject.yaml" <<YAML
subject_id: scale
title: Scale test
target_depth: introductory
requires_courses: []
anti_requisites: []
identity_axis_constraints: []
template: definition
retrieved_at: "2026-05-16T00:00:00Z"
issued_at: "2026-05-16T00:00:00Z"
limits:
  max_file_bytes: 67108864
sources:
  - id: chain
    adapter: file
    path: sources/chain.md
YAML
printf -- '- source_sha: "%s"\n  tier: primary\n  label: generated chain\n' "$sha" > "$subj/allowlist.yaml"
F="./bin/formation --quiet --store file://$work/store --courses-dir $work/courses"
t0=$(date +%s.%N); $F autorun scale >/dev/null; t1=$(date +%s.%N)
$F --json autorun scale > "$work/second.json"; t2=$(date +%s.%N)
hits=$(grep -o '"cache_hit":true' "$work/second.json" | wc -l)
awk -v a="$t0" -v b="$t1" -v c="$t2" -v n="$n" -v h="$hits" 'BEGIN {
  printf "autorun of %d relations: first %.2f s, second %.3f s (%.2f%% of the first), %d of 6 stages cache hits\n", n, b-a, c-b, 100*(c-b)/(b-a), h }'
bash scripts/store-size.sh "$work/store" "$subj/sources" | sed 's/^/store: /'
