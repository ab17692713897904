#!/usr/bin/env bash
# Autoruns one generated Markdown source of distinct sentences at each size
# (MiB, default 1 2 4 8 16) on a fresh store and prints a table: relations
# validated, wall time, CPU time and peak RSS of the whole autorun, and the
# time ratio against the first size. Usage: source-scale.sh [MiB ...]
set -euo pipefail
cd "$(dirname "$0")/.."
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(1 2 4 8 16)
bin=${FORMATION_BIN:-./bin/formation}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# subject DIR BYTES lays out subject "scale" whose one source holds about
# BYTES of distinct sentences (a chain of relations, a definition every tenth).
subject() {
  local subj="$1/courses/scale"
  mkdir -p "$subj/sources"
  awk -v max="$2" 'BEGIN {
    split("causes produces precedes grounds", rel, " ")
    for (i = 0; total < max; i++) {
      s = sprintf("Node%d %s node%d.\n", i, rel[i % 4 + 1], i + 1); total += length(s); printf "%s", s
      if (i % 10 == 0) { s = sprintf("Node%d is defined as the %dth node of the chain.\n", i, i); total += length(s); printf "%s", s }
    }
  }' > "$subj/sources/chain.md"
  local sha
  sha=$(sha256sum "$subj/sources/chain.md" | cut -d' ' -f1)
  cat > "$subj/subject.yaml" <<YAML
subject_id: scale
title: Source scale test
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
}

printf '%8s %10s %9s %9s %12s %8s\n' MiB relations wall_s cpu_s peak_RSS_MiB t/t1
first=""
for mib in "${sizes[@]}"; do
  dir="$work/$mib"
  subject "$dir" $((mib * 1048576))
  /usr/bin/time -f '%e %U %S %M' -o "$dir/time" \
    "$bin" --store "file://$dir/store" --courses-dir "$dir/courses" autorun scale > /dev/null 2> "$dir/log" ||
    { echo "autorun of $mib MiB failed:"; tail -3 "$dir/log"; exit 1; }
  read -r wall user sys rss < "$dir/time"
  rels=$(sed -n 's/^forge scale: .* \([0-9]*\) relations.*/\1/p' "$dir/log" | head -1)
  [ -n "$first" ] || first=$wall
  awk -v m="$mib" -v r="$rels" -v w="$wall" -v u="$user" -v s="$sys" -v k="$rss" -v f="$first" \
    'BEGIN { printf "%8s %10s %9.1f %9.1f %12d %8.2f\n", m, r, w, u + s, k / 1024, w / f }'
  rm -rf "$dir"
done
