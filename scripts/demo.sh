#!/usr/bin/env bash
# make demo: the main job on the file:// store, from sources to the ledger.
#
# The store is ./.formation-demo (emptied first, so every demo starts from
# nothing and shows real work); keys and the reviewer registry live in a
# temporary folder that is removed at the end. DEMO_DOMAIN overrides the
# domain (default: the first one in courses/domains.yaml).
set -euo pipefail
cd "$(dirname "$0")/.."
# FORMATION_BIN and DEMO_STORE_DIR let a test run the demo with its own
# binary and store folder.
F=${FORMATION_BIN:-./bin/formation}
demo_dir=${DEMO_STORE_DIR:-$(pwd)/.formation-demo}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
store="file://$demo_dir"
rm -rf "$demo_dir"
export FORMATION_STORE="$store"
# The demo shows human output; a CI=true environment would silence it.
unset CI

domain=${DEMO_DOMAIN:-$(awk '/^ *- id:/ {print $3; exit}' courses/domains.yaml)}
subjects=$(awk -v d="$domain" '
  /^ *- id:/ {indom = ($3 == d)}
  indom && /^ *subjects: *\[/ {gsub(/.*\[|\].*|,/, " "); print}' courses/domains.yaml | xargs -n1)
lanes=$(awk -v d="$domain" '
  /^ *- id:/ {indom = ($3 == d)}
  indom && /lane:/ {print $NF}' courses/domains.yaml | tr '\n' ',' | sed 's/,$//')
section() { printf '\n\033[1m== %s\033[0m\n' "$*"; }

section "keys: a pack key to sign the packs' ratification, a curator key to sign promotions, a reviewer key to sign the audit claim"
$F keygen --out "$work/pack.key" --label "demo pack signer"
$F keygen --out "$work/curator.key" --label "demo curator"
$F keygen --out "$work/reviewer.key" --label "demo reviewer"
export FORMATION_TRUSTED_KEYS="$work/curator.key.pub"

section "packs: the shipped packs' ratifications, checked and signed by a human (copies in a temporary folder)"
cp -r packs "$work/packs"
$F pack ratify --check "$work"/packs/safety/*_v1.json "$work"/packs/identity/*_v1.json
for pack in "$work"/packs/safety/core_safety_axes_v1.json "$work"/packs/identity/default_general_v1.json; do
  $F pack promote --key "$work/pack.key" "$pack"
done
export FORMATION_PACKS_DIR="$work/packs" FORMATION_TRUSTED_PACK_KEYS="$work/pack.key.pub"

for subject in $subjects; do
  section "autorun $subject: mine → smelt → forge → compose → run → ratify"
  $F autorun "$subject"
  report=$($F --json status "$subject" | sed -n 's/.*"report":"\([0-9a-f]*\)".*/\1/p')
  section "promote $subject (report object $report), signed by the curator"
  $F promote --key "$work/curator.key" "$report"
done

section "ask: three questions answered from the promoted knowledge, with citations"
first=$(echo "$subjects" | head -n1)
mapfile -t questions < <( (grep -E '"kind":"definition"' "courses/$first/questions/public.jsonl" | head -n1;
                            grep -E '"kind":"walk"' "courses/$first/questions/public.jsonl" | head -n1;
                            grep -E '"kind":"(unknown|off_domain)"' "courses/$first/questions/public.jsonl" | head -n1) |
                          sed -n 's/.*"question":"\([^"]*\)".*/\1/p')
for q in "${questions[@]}"; do
  printf '\n> %s\n' "$q"
  $F ask "$q"
done

section "summary"
for subject in $subjects; do
  $F status "$subject"
  echo "  audit records by kind:"
  $F --json audit list --subject "$subject" | tr '{' '\n' | sed -n 's/.*"kind":"\([a-z]*\)".*/\1/p' | sort | uniq -c | sed 's/^/   /'
done

section "eval lanes of $domain ($lanes) on dev, public and holdout"
for lane in ${lanes//,/ }; do
  for split in dev public holdout; do
    $F eval --domain "$domain" --split "$split" "$lane" 2>&1 | sed 's/^/  /'

  done
done

echo "  fabrication_control on holdout, per class (n, refused, fabricated):"
$F --json eval --domain "$domain" --split holdout fabrication_control | grep -o '"by_class":{[^}]*}[^}]*}[^}]*}}' | sed 's/^/    /'

section "reviewer registry (demo, v2) and a signed audit-passed claim"
$F reviewers init --out "$work/reviewers.yaml" --id demo-reviewer --name "Demo Reviewer" --public-key "$work/reviewer.key.pub"
$F claim sign --domain "$domain" --lanes "$lanes" --revision "demo:$(git rev-parse --short HEAD 2>/dev/null || echo local)" \
    --key "$work/reviewer.key" --signer demo-reviewer --registry "$work/reviewers.yaml" > "$work/claim.yaml"
{ echo "audit_passed_claims:"; cat "$work/claim.yaml"; } >> "$work/reviewers.yaml"
$F reviewers check "$work/reviewers.yaml"

section "capability ledger"
$F ledger --domain "$domain" --registry "$work/reviewers.yaml"
