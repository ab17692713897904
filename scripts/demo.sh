#!/usr/bin/env bash
# The main job on the embedded default store.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=./bin
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
echo "== canonical JSON and a self-sealed report"
printf '{"course_id":"demo","report_sha256":"","ratified":true}' | $bin/formation canon --sha256
$bin/formation verify ../shared/conformance/original/packs/safety/core_safety_axes_v1.mastery_report.json 2>/dev/null || true
