package reviewers

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"formation/internal/testutil"
)

const primaryV1 = `schema_version: 1
reviewers:
  - reviewer_id: shay-j
    display_name: "Joshua Shay"
    role: primary
    domains: ["*"]
    review_scope: ["pack", "proposal", "chain", "eval"]
    provenance: "adr-0092:bootstrap:2026-05-21"
`

const domainReviewer = `  - reviewer_id: math-reviewer
    display_name: "Math Reviewer"
    role: domain
    domains: ["mathematics_logic"]
    review_scope: ["pack", "chain"]
    provenance: "test"
`

func mustParse(t *testing.T, src string) *Registry {
	t.Helper()
	r, err := Parse([]byte(src))
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	return r
}

func TestValidPrimaryLoads(t *testing.T) {
	r := mustParse(t, primaryV1)
	if r.SchemaVersion() != 1 || len(r.Reviewers()) != 1 {
		t.Fatalf("schema %d, %d reviewers", r.SchemaVersion(), len(r.Reviewers()))
	}
	v, ok := r.Resolve("shay-j")
	if !ok || v.Role != RolePrimary || strings.Join(v.Domains, ",") != "*" {
		t.Fatalf("resolved %+v %v", v, ok)
	}
	if strings.Join(v.ReviewScope, ",") != "pack,proposal,chain,eval" {
		t.Fatalf("scopes out of order: %v", v.ReviewScope)
	}
	if _, ok := r.Resolve("ghost"); ok {
		t.Fatal("ghost resolved")
	}
}

func TestDomainReviewerAndCanReview(t *testing.T) {
	r := mustParse(t, primaryV1+domainReviewer)
	v, _ := r.Resolve("math-reviewer")
	if v.Role != RoleDomain {
		t.Fatalf("role %q", v.Role)
	}
	cases := []struct {
		id, domain, scope string
		want              bool
	}{
		{"shay-j", "mathematics_logic", ScopePack, true},
		{"shay-j", "physics", ScopeProposal, true},
		{"math-reviewer", "mathematics_logic", ScopePack, true},
		{"math-reviewer", "physics", ScopePack, false},
		{"math-reviewer", "mathematics_logic", ScopeChain, true},
		{"math-reviewer", "mathematics_logic", ScopeProposal, false},
		{"math-reviewer", "mathematics_logic", ScopeEval, false},
		{"ghost", "mathematics_logic", ScopePack, false},
	}
	for _, c := range cases {
		if got := r.CanReview(c.id, c.domain, c.scope); got != c.want {
			t.Errorf("CanReview(%s,%s,%s) = %v", c.id, c.domain, c.scope, got)
		}
	}
}

func TestAccessorsReturnCopies(t *testing.T) {
	r := mustParse(t, primaryV1)
	v, _ := r.Resolve("shay-j")
	v.Domains[0] = "physics"
	v.ReviewScope[0] = "deploy"
	rs := r.Reviewers()
	rs[0].Role = RoleDomain
	again, _ := r.Resolve("shay-j")
	if again.Domains[0] != "*" || again.ReviewScope[0] != ScopePack || again.Role != RolePrimary {
		t.Fatalf("registry changed through a returned value: %+v", again)
	}
}

func TestLoadMissingFile(t *testing.T) {
	_, err := Load(context.Background(), filepath.Join(t.TempDir(), "absent.yaml"))
	if err == nil || !strings.Contains(err.Error(), "not found") {
		t.Fatalf("err = %v", err)
	}
}

// Each case is one validation error of the schema, with the substring the
// original's tests match.
func TestValidationErrors(t *testing.T) {
	rev := func(fields string) string {
		return "schema_version: 1\nreviewers:\n  - " + strings.TrimPrefix(fields, "    ")
	}
	base := `    reviewer_id: shay-j
    display_name: "Joshua Shay"
    role: primary
    domains: ["*"]
    review_scope: ["pack", "proposal", "chain", "eval"]
    provenance: "p"
`
	swap := func(old, new string) string { return rev(strings.Replace(base, old, new, 1)) }
	claim := func(body string) string { return primaryV1 + "audit_passed_claims:\n" + body }
	goodClaim := `  - domain_id: mathematics_logic
    evidence_lanes: [inference_closure, fabrication_control]
    evidence_revision: abc1234
    signed_by: shay-j
    claim_digest: "` + strings.Repeat("a", 64) + `"
`
	cases := []struct{ name, src, want string }{
		{"schema 3", "schema_version: 3\nreviewers: []\n", "schema_version"},
		{"schema missing", "reviewers: []\n", "schema_version"},
		{"schema bool", "schema_version: true\nreviewers: []\n", "schema_version"},
		{"schema float", "schema_version: 1.0\nreviewers: []\n", "schema_version"},
		{"schema string", "schema_version: \"1\"\nreviewers: []\n", "schema_version"},
		{"extra top-level", primaryV1 + "extra_field: nope\n", "unknown top-level"},
		{"renamed claims key", primaryV1 + "expert_demo_claims: []\n", "unknown top-level"},
		{"root list", "- a\n", "root must be a mapping"},
		{"empty file", "", "root must be a mapping"},
		{"reviewers missing", "schema_version: 1\n", "missing 'reviewers'"},
		{"reviewers null", "schema_version: 1\nreviewers:\n", "missing 'reviewers'"},
		{"reviewers map", "schema_version: 1\nreviewers: {}\n", "must be a list"},
		{"entry scalar", "schema_version: 1\nreviewers: [x]\n", "must be a mapping"},
		{"unknown field", rev(base + "    secret_powers: [\"unlimited\"]\n"), "unknown fields"},
		{"missing provenance", swap("    provenance: \"p\"\n", ""), "missing required fields"},
		{"empty display name", swap(`"Joshua Shay"`, `"  "`), "field 'display_name' must be a non-empty string"},
		{"role not string", swap("role: primary", "role: [primary]"), "field 'role' must be a non-empty string"},
		{"invalid role", swap("role: primary", "role: emperor"), "invalid role"},
		{"domain wildcard", swap("role: primary", "role: domain"), "wildcard"},
		{"primary not wildcard", swap(`domains: ["*"]`, `domains: ["mathematics_logic"]`), "wildcard"},
		{"empty domains", swap(`domains: ["*"]`, `domains: []`), "empty 'domains'"},
		{"domains not strings", swap(`domains: ["*"]`, `domains: [1]`), "'domains' must be a list"},
		{"unknown scope", swap(`review_scope: ["pack", "proposal", "chain", "eval"]`, `review_scope: ["pack", "deploy"]`), "unknown review_scope"},
		{"scope not a list", swap(`review_scope: ["pack", "proposal", "chain", "eval"]`, `review_scope: pack`), "field 'review_scope' must be a list"},
		{"empty reviewer id", swap("reviewer_id: shay-j", `reviewer_id: ""`), "field 'reviewer_id' must be a non-empty string"},
		{"provenance not a string", swap(`provenance: "p"`, `provenance: 7`), "field 'provenance' must be a non-empty string"},
		{"empty scope", swap(`review_scope: ["pack", "proposal", "chain", "eval"]`, `review_scope: []`), "empty 'review_scope'"},
		{"duplicate reviewer", primaryV1 + strings.Replace(strings.TrimPrefix(primaryV1, "schema_version: 1\nreviewers:\n"), "Joshua Shay", "Imposter", 1), "duplicate reviewer_id"},
		{"yaml syntax", "schema_version: 1\nreviewers: [\n", "YAML parse error"},
		{"duplicate key", "schema_version: 1\nschema_version: 1\nreviewers: []\n", "YAML parse error"},
		{"alias", "schema_version: 1\nreviewers: &r []\naudit_passed_claims: *r\n", "YAML parse error"},
		{"two documents", primaryV1 + "---\nschema_version: 1\n", "YAML parse error"},
		{"claims null", primaryV1 + "audit_passed_claims:\n", "must be a list when present"},
		{"claims map", primaryV1 + "audit_passed_claims: {}\n", "must be a list when present"},
		{"claim scalar", claim("  - x\n"), "must be a mapping"},
		{"claim unknown field", claim(goodClaim + "    note: hi\n"), "unknown fields"},
		{"claim missing field", claim(strings.Replace(goodClaim, "    evidence_revision: abc1234\n", "", 1)), "missing required fields"},
		{"claim empty revision", claim(strings.Replace(goodClaim, "abc1234", `""`, 1)), "field 'evidence_revision' must be a non-empty string"},
		{"claim ghost signer", claim(strings.Replace(goodClaim, "signed_by: shay-j", "signed_by: ghost", 1)), "does not resolve"},
		{"claim short digest", claim(strings.Replace(goodClaim, strings.Repeat("a", 64), "short", 1)), "claim_digest"},
		{"claim upper digest", claim(strings.Replace(goodClaim, strings.Repeat("a", 64), strings.Repeat("A", 64), 1)), "claim_digest"},
		{"claim no lanes", claim(strings.Replace(goodClaim, "[inference_closure, fabrication_control]", "[]", 1)), "evidence_lanes"},
		{"claim duplicate domain", claim(goodClaim + goodClaim), "duplicate domain_id"},
		{"v1 reviewer with key", rev(base + "    public_key: AAAA\n"), "unknown fields"},
		{"v1 claim with signature", claim(goodClaim + "    signature: {}\n"), "unknown fields"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse([]byte(c.src))
			if err == nil {
				t.Fatalf("loaded; want an error containing %q", c.want)
			}
			if _, ok := err.(*Error); !ok {
				t.Fatalf("error %T is not *Error", err)
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %q does not contain %q", err, c.want)
			}
		})
	}
}

func TestClaimsBlock(t *testing.T) {
	r := mustParse(t, primaryV1)
	if len(r.Claims()) != 0 {
		t.Fatal("claims without a block")
	}
	if _, ok := r.ClaimFor("mathematics_logic"); ok {
		t.Fatal("claim found without a block")
	}
	r = mustParse(t, primaryV1+`audit_passed_claims:
  - domain_id: mathematics_logic
    evidence_lanes: [inference_closure, fabrication_control]
    evidence_revision: abc1234
    signed_by: shay-j
    claim_digest: "`+strings.Repeat("a", 64)+`"
`)
	c, ok := r.ClaimFor("mathematics_logic")
	if !ok || c.EvidenceRevision != "abc1234" || c.SignedBy != "shay-j" || c.ClaimDigest != strings.Repeat("a", 64) ||
		strings.Join(c.EvidenceLanes, ",") != "inference_closure,fabrication_control" || c.Signature != nil {
		t.Fatalf("claim %+v", c)
	}
	if err := r.VerifyClaim(c); err == nil || !strings.Contains(err.Error(), "unsigned") {
		t.Fatalf("a schema 1 claim verified: %v", err)
	}
}

// The original's production registry loads: schema 1, shay-j primary with
// the wildcard, three claims, and the math_expert_claims key tolerated.
func TestOriginalRegistryLoads(t *testing.T) {
	path := testutil.Original(t, "docs", "reviewers.yaml")
	r, err := Load(context.Background(), path)
	if err != nil {
		t.Fatalf("load: %v", err)
	}
	v, ok := r.Resolve("shay-j")
	if !ok || v.Role != RolePrimary || len(v.Domains) != 1 || v.Domains[0] != "*" || !strings.HasPrefix(v.Provenance, "adr-0092:bootstrap:") {
		t.Fatalf("shay-j = %+v", v)
	}
	if n := len(r.Claims()); n != 3 {
		t.Fatalf("%d claims", n)
	}
	c, ok := r.ClaimFor("physics")
	if !ok || c.ClaimDigest != "a104cad136f3219df05dc7ce6a78437c02f7b5827cd3cdce568db3acda6a43ed" {
		t.Fatalf("physics claim %+v", c)
	}
	for _, c := range r.Claims() {
		if r.VerifyClaim(c) == nil {
			t.Fatalf("unsigned claim for %s verified", c.DomainID)
		}
	}
}

func TestLoadRefusesNonRegularFile(t *testing.T) {
	_, err := Load(context.Background(), t.TempDir())
	if err == nil || !strings.Contains(err.Error(), "regular file") {
		t.Fatalf("err = %v", err)
	}
	p := filepath.Join(t.TempDir(), "r.yaml")
	if err := os.WriteFile(p, []byte(primaryV1), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(context.Background(), p); err != nil {
		t.Fatal(err)
	}
}
