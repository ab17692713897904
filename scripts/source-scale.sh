#!/usr/bin/env bash
# Runs the pipeline on one generated Markdown source of distinct sentences at
# each size (MiB, default 1 2 4 8 16), on a fresh store per size, and prints
# a table: relations validated, wall time, CPU time (user + system) and peak
# RSS of each stage run as its own command, their total (sums; the largest
# RSS), then one `autorun` of the same subject on another fresh store (the
# figure the size targets are about), and the ratios t(last)/t(first) of the
# autorun's wall and CPU time.
#
#   source-scale.sh [MiB ...]                  the table
#   source-scale.sh --against CHECKOUT [MiB]   autorun beside another commit
#
# --against builds CHECKOUT's formation (a worktree of an older commit, e.g.
# 3e253e3) and autoruns the same subject with it and with this build, one
# after the other in the same run, each on a fresh store with its own packs,
# then prints both and the ratios this/base (default size 1 MiB).
# Environment: FORMATION_BIN (default ./bin/formation), STAGES=0 (skip the
# per-stage rows), AUTORUN=0 (skip the autorun row), REPEAT=N (autorun each
# size N times, each on a fresh store: a row per run, then a row of the
# median wall and CPU time and the largest peak RSS; the ratios are of the
# medians).
# Timings depend on the machine and its load; CPU time is the steadier figure.
# On a 2-vCPU VM one autorun of 1 MiB ranged over 3.2-3.9 s within an hour,
# so a ratio of single runs moves by a fifth; the median of a few is what to
# compare.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=$(realpath "${FORMATION_BIN:-./bin/formation}")
packs=$(realpath packs)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# subject DIR BYTES lays out subject "scale" under DIR/courses whose one
# source holds about BYTES of distinct sentences (a chain of relations, a
# definition every tenth node).
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

# timed BIN PACKS DIR STORE TAG VERB... runs one formation command on
# DIR/courses and STORE and leaves "wall user sys maxrss_kib" in DIR/TAG.time
# and its stderr in DIR/TAG.log.
timed() {
  local b="$1" p="$2" dir="$3" st="$4" tag="$5"
  shift 5
  /usr/bin/time -f '%e %U %S %M' -o "$dir/$tag.time" \
    "$b" --store "file://$st" --courses-dir "$dir/courses" --packs-dir "$p" "$@" scale > /dev/null 2> "$dir/$tag.log" ||
    { echo "$tag of $(basename "$dir") failed:"; tail -3 "$dir/$tag.log"; exit 1; }
}

# bytes MIB is MIB mebibytes (fractions allowed) in bytes.
bytes() { awk -v m="$1" 'BEGIN { printf "%d", m * 1048576 }'; }

# relations DIR TAG is the number of relations forge validated, from its log.
relations() {
  sed -n 's/^forge scale: .* \([0-9][0-9]*\) relations.*/\1/p' "$1/$2.log" | head -1
}

row() { # MiB part relations wall user sys rss_kib
  awk -v m="$1" -v p="$2" -v r="$3" -v w="$4" -v u="$5" -v s="$6" -v k="$7" \
    'BEGIN { printf "%6s %-8s %10s %9.2f %9.2f %6.2f %12d\n", m, p, r, w, u + s, (w > 0 ? (u + s) / w : 0), k / 1024 }'
}

if [ "${1:-}" = --against ]; then
  [ $# -ge 2 ] || { echo "usage: source-scale.sh --against CHECKOUT [MiB]" >&2; exit 2; }
  base=$(realpath "$2")
  mib=${3:-1}
  (cd "$base" && go build -o "$work/base-formation" ./cmd/formation)
  subject "$work" "$(bytes "$mib")"
  printf '%-6s %6s %10s %9s %9s %12s\n' side MiB relations wall_s cpu_s peak_RSS_MiB
  for side in base this; do
    if [ $side = base ]; then b="$work/base-formation" p="$base/packs"; else b=$bin p=$packs; fi
    timed "$b" "$p" "$work" "$work/store-$side" "$side" autorun
    read -r w u s k < "$work/$side.time"
    echo "$w $u $s $k $(relations "$work" "$side")" > "$work/$side.row"
    awk -v side=$side -v m="$mib" -v r="$(relations "$work" "$side")" -v w="$w" -v u="$u" -v s="$s" -v k="$k" \
      'BEGIN { printf "%-6s %6s %10s %9.1f %9.1f %12d\n", side, m, r, w, u + s, k / 1024 }'
  done
  read -r bw bu bs bk br < "$work/base.row"
  read -r tw tu ts tk tr < "$work/this.row"
  awk -v bw="$bw" -v bc="$(echo "$bu + $bs" | bc)" -v bk="$bk" -v br="$br" -v tw="$tw" -v tc="$(echo "$tu + $ts" | bc)" -v tk="$tk" -v tr="$tr" 'BEGIN {
    printf "this/base: wall %.1f%% (target <= 50%%), CPU %.1f%%, peak RSS %.1f%% (target <= 35%%), relations validated %d vs %d (target >=)\n",
      100 * tw / bw, 100 * tc / bc, 100 * tk / bk, tr, br }'
  exit 0
fi

sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(1 2 4 8 16)
printf '%6s %-8s %10s %9s %9s %6s %12s\n' MiB part relations wall_s cpu_s cores peak_RSS_MiB
for mib in "${sizes[@]}"; do
  dir="$work/$mib"
  subject "$dir" "$(bytes "$mib")"
  if [ "${STAGES:-1}" != 0 ]; then
    tw=0 tc=0 tk=0
    for st in mine smelt forge compose run ratify; do
      timed "$bin" "$packs" "$dir" "$dir/stages" "$st" "$st"
      read -r w u s k < "$dir/$st.time"
      row "$mib" "$st" "$( [ $st = forge ] && relations "$dir" forge || true)" "$w" "$u" "$s" "$k"
      tw=$(echo "$tw + $w" | bc) tc=$(echo "$tc + $u + $s" | bc)
      [ "$k" -le "$tk" ] || tk=$k
    done
    row "$mib" total "$(relations "$dir" forge)" "$tw" "$tc" 0 "$tk"
    rm -rf "$dir/stages"
  fi
  if [ "${AUTORUN:-1}" != 0 ]; then
    : > "$dir/runs"
    for ((r = 1; r <= ${REPEAT:-1}; r++)); do
      rm -rf "$dir/store"
      timed "$bin" "$packs" "$dir" "$dir/store" autorun autorun
      read -r w u s k < "$dir/autorun.time"
      row "$mib" autorun "$(relations "$dir" autorun)" "$w" "$u" "$s" "$k"
      echo "$w $(echo "$u + $s" | bc) $k" >> "$dir/runs"
    done
    # The median run by wall time (the lower middle of an even count), with
    # the largest peak of all runs.
    read -r w c _ < <(sort -n "$dir/runs" | sed -n "$(( (${REPEAT:-1} + 1) / 2 ))p")
    k=$(sort -n -k3 "$dir/runs" | tail -1 | cut -d' ' -f3)
    [ "${REPEAT:-1}" -le 1 ] || row "$mib" median "$(relations "$dir" autorun)" "$w" "$c" 0 "$k"
    echo "$mib $w $c" >> "$work/autoruns"
  fi
  rm -rf "$dir"
done
if [ -s "$work/autoruns" ] && [ "$(wc -l < "$work/autoruns")" -gt 1 ]; then
  awk 'NR == 1 { m = $1; w = $2; c = $3 } END {
    printf "autorun t(%s MiB)/t(%s MiB)%s: wall %.2f, CPU %.2f (target <= 20 for 16/1)\n", $1, m, (r > 1 ? " of the medians of " r " runs" : ""), $2 / w, $3 / c }' r="${REPEAT:-1}" "$work/autoruns"
fi
