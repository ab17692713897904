package ledger

import (
	"crypto/ed25519"
	"crypto/rand"
	"strings"
	"testing"

	"formation/eval"
	"formation/reviewers"
)

func rp(n, d int64) *eval.Rate { return &eval.Rate{Num: n, Den: d} }
func ip(v int64) *int64        { return &v }
func bp(v bool) *bool          { return &v }

func inferenceMetrics(pass int64) eval.Metrics {
	return eval.Metrics{CaseCount: ip(100), AllPassRate: rp(pass, 100), ReplayDeterminism: rp(1, 1), OverallPass: bp(pass >= 95)}
}

func refusalMetrics() eval.Metrics {
	return eval.Metrics{ByClass: map[string]eval.ClassCounts{
		eval.ClassUnknownTerm: {N: 3, Refused: 3}, eval.ClassFalsePremise: {N: 3, Refused: 3}, eval.ClassOffDomainTerm: {N: 3, Refused: 3}}}
}

func goodResults() map[string]map[string]LaneEvidence {
	res := map[string]map[string]LaneEvidence{}
	for _, lane := range []string{eval.LaneInferenceClosure, eval.LaneFabricationControl} {
		res[lane] = map[string]LaneEvidence{}
		for i, split := range []string{SplitPublic, SplitHoldout} {
			m := inferenceMetrics(98)
			if lane == eval.LaneFabricationControl {
				m = refusalMetrics()
			}
			res[lane][split] = LaneEvidence{Object: strings.Repeat(string(rune('a'+i)), 64), Timestamp: "20260101T000000Z", Metrics: m}
		}
	}
	return res
}

func metricsOf(res map[string]map[string]LaneEvidence) map[string]map[string]eval.Metrics {
	out := map[string]map[string]eval.Metrics{}
	for l, splits := range res {
		out[l] = map[string]eval.Metrics{}
		for s, ev := range splits {
			out[l][s] = ev.Metrics
		}
	}
	return out
}

type signer struct {
	id   string
	role string
	priv ed25519.PrivateKey
}

func newSigner(t *testing.T, id, role string) signer {
	t.Helper()
	pemKey, _, err := reviewers.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	k, err := reviewers.ParsePrivateKey(pemKey)
	if err != nil {
		t.Fatal(err)
	}
	return signer{id, role, k}
}

func (s signer) reviewer(scopes ...string) reviewers.Reviewer {
	domains := []string{reviewers.Wildcard}
	if s.role == reviewers.RoleDomain {
		domains = []string{"example"}
	}
	if len(scopes) == 0 {
		scopes = []string{reviewers.ScopePack, reviewers.ScopeEval}
	}
	return reviewers.Reviewer{ID: s.id, DisplayName: s.id, Role: s.role, Domains: domains, ReviewScope: scopes,
		Provenance: "test", PublicKey: s.priv.Public().(ed25519.PublicKey)}
}

// signedRegistry signs a claim for domain "example" over res at revision
// rev and returns the loaded v2 registry.
func signedRegistry(t *testing.T, s signer, rev reviewers.Reviewer, lanes []string, res map[string]map[string]LaneEvidence) *reviewers.Registry {
	t.Helper()
	digest, err := EvidenceDigest("example", "rev1", lanes, metricsOf(res))
	if err != nil {
		t.Fatal(err)
	}
	c, err := reviewers.SignClaim(reviewers.Claim{DomainID: "example", EvidenceLanes: lanes, EvidenceRevision: "rev1",
		SignedBy: s.id, ClaimDigest: digest}, s.priv)
	if err != nil {
		t.Fatal(err)
	}
	src, err := reviewers.Render(reviewers.SchemaV2, []reviewers.Reviewer{rev}, []reviewers.Claim{c})
	if err != nil {
		t.Fatal(err)
	}
	reg, err := reviewers.Parse([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return reg
}

var claimLanes = []string{eval.LaneInferenceClosure, eval.LaneFabricationControl}

func gateInput(t *testing.T) GateInput {
	t.Helper()
	s := newSigner(t, "demo", reviewers.RolePrimary)
	res := goodResults()
	return GateInput{Domain: "example", ReasoningCapable: true, Registry: signedRegistry(t, s, s.reviewer(), claimLanes, res),
		DomainLanes: claimLanes, Results: res}
}

func wantGate(t *testing.T, in GateInput, want string) GateResult {
	t.Helper()
	g := Gate(in)
	if want == ReasonPassed {
		if !g.Passed || g.Reason != ReasonPassed {
			t.Fatalf("gate failed: %s", g.Reason)
		}
		return g
	}
	if g.Passed || !strings.Contains(g.Reason, want) {
		t.Fatalf("gate reason %q (passed %v), want %q", g.Reason, g.Passed, want)
	}
	return g
}

func TestGatePasses(t *testing.T) {
	in := gateInput(t)
	g := wantGate(t, in, ReasonPassed)
	c, _ := in.Registry.ClaimFor("example")
	if g.DerivedDigest != c.ClaimDigest {
		t.Fatalf("derived %s, signed %s", g.DerivedDigest, c.ClaimDigest)
	}
}

func TestGateCheck1NotReasoningCapable(t *testing.T) {
	in := gateInput(t)
	in.ReasoningCapable = false
	wantGate(t, in, "domain not yet reasoning-capable")
}

func TestGateCheck2NoClaim(t *testing.T) {
	in := gateInput(t)
	in.Domain = "other"
	wantGate(t, in, "no audit_passed_claims entry for this domain")
	in = gateInput(t)
	in.Registry = reviewers.Empty()
	wantGate(t, in, "no audit_passed_claims entry")
}

func TestGateCheck2BrokenRegistryNamesError(t *testing.T) {
	in := gateInput(t)
	in.Registry, in.RegistryError = reviewers.Empty(), "reviewer registry has unknown top-level keys: ['expert_demo_claims']"
	wantGate(t, in, "reviewer registry invalid, so no claim is trusted: reviewer registry has unknown top-level keys")
	in.ReasoningCapable = false
	wantGate(t, in, "domain not yet reasoning-capable; reviewer registry invalid: reviewer registry has unknown top-level keys")
}

func TestGateCheck2UnsignedV1Claim(t *testing.T) {
	in := gateInput(t)
	digest, _ := EvidenceDigest("example", "rev1", claimLanes, metricsOf(in.Results))
	reg, err := reviewers.Parse([]byte(`schema_version: 1
reviewers:
  - reviewer_id: shay-j
    display_name: "Joshua Shay"
    role: primary
    domains: ["*"]
    review_scope: ["pack", "proposal", "chain", "eval"]
    provenance: "p"
audit_passed_claims:
  - domain_id: example
    evidence_lanes: [inference_closure, fabrication_control]
    evidence_revision: rev1
    signed_by: shay-j
    claim_digest: "` + digest + `"
`))
	if err != nil {
		t.Fatal(err)
	}
	in.Registry = reg
	g := wantGate(t, in, "not validly signed: claim for domain 'example' is unsigned")
	if g.SignatureError == "" {
		t.Fatal("signature error not reported")
	}
}

func TestGateCheck3SignerScope(t *testing.T) {
	s := newSigner(t, "math-reviewer", reviewers.RoleDomain)
	res := goodResults()
	in := GateInput{Domain: "example", ReasoningCapable: true, DomainLanes: claimLanes, Results: res,
		Registry: signedRegistry(t, s, s.reviewer(reviewers.ScopePack, reviewers.ScopeChain), claimLanes, res)}
	wantGate(t, in, "signer 'math-reviewer' cannot review eval-scope artifacts for domain 'example'")
	// The same reviewer with eval scope passes.
	in.Registry = signedRegistry(t, s, s.reviewer(reviewers.ScopeEval), claimLanes, res)
	wantGate(t, in, ReasonPassed)
}

func TestGateCheck4LanesNotAttached(t *testing.T) {
	s := newSigner(t, "demo", reviewers.RolePrimary)
	res := goodResults()
	lanes := []string{eval.LaneCognition, eval.LaneInferenceClosure}
	in := GateInput{Domain: "example", ReasoningCapable: true, DomainLanes: claimLanes, Results: res,
		Registry: signedRegistry(t, s, s.reviewer(), lanes, res)}
	wantGate(t, in, "claim cites lanes not attached to domain 'example': ['cognition']")
}

func TestGateCheck5UnregisteredLane(t *testing.T) {
	s := newSigner(t, "demo", reviewers.RolePrimary)
	res := goodResults()
	acc := eval.Metrics{Accuracy: rp(1, 1)}
	res["synthetic_unregistered_lane"] = map[string]LaneEvidence{SplitPublic: {Metrics: acc}, SplitHoldout: {Metrics: acc}}
	lanes := []string{"synthetic_unregistered_lane"}
	in := GateInput{Domain: "example", ReasoningCapable: true, DomainLanes: lanes, Results: res,
		Registry: signedRegistry(t, s, s.reviewer(), lanes, res)}
	wantGate(t, in, "lane 'synthetic_unregistered_lane' has no registered shape — introduce via ADR amendment")
}

func TestGateCheck5MissingAndUnusableResults(t *testing.T) {
	in := gateInput(t)
	delete(in.Results[eval.LaneFabricationControl], SplitHoldout)
	wantGate(t, in, "lane 'fabrication_control' split 'holdout' has no results")

	in = gateInput(t)
	in.Results[eval.LaneInferenceClosure][SplitPublic] = LaneEvidence{Problem: "object abc: corrupt"}
	wantGate(t, in, "lane 'inference_closure' split 'public' has no usable result: object abc: corrupt")
}

// Threshold failures signed over the failing data still fail, naming the
// metric and the split.
func TestGateCheck5ShapeFailures(t *testing.T) {
	s := newSigner(t, "demo", reviewers.RolePrimary)
	cases := []struct {
		name   string
		mutate func(map[string]map[string]LaneEvidence)
		want   string
	}{
		{"inference holdout", func(r map[string]map[string]LaneEvidence) {
			r[eval.LaneInferenceClosure][SplitHoldout] = LaneEvidence{Metrics: inferenceMetrics(50)}
		}, "lane 'inference_closure' all_pass_rate=50/100 below threshold 0.95 (split=holdout)"},
		{"fabrication holdout", func(r map[string]map[string]LaneEvidence) {
			m := refusalMetrics()
			m.ByClass[eval.ClassUnknownTerm] = eval.ClassCounts{N: 3, Refused: 2, Fabricated: 1}
			r[eval.LaneFabricationControl][SplitHoldout] = LaneEvidence{Metrics: m}
		}, "lane 'fabrication_control' by_class['unknown_term'] fabricated=1 (must be 0) (split=holdout)"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res := goodResults()
			c.mutate(res)
			in := GateInput{Domain: "example", ReasoningCapable: true, DomainLanes: claimLanes, Results: res,
				Registry: signedRegistry(t, s, s.reviewer(), claimLanes, res)}
			wantGate(t, in, c.want)
		})
	}
}

func TestGateCheck6ReplayDrift(t *testing.T) {
	in := gateInput(t)
	in.Results[eval.LaneInferenceClosure][SplitPublic] = LaneEvidence{Metrics: inferenceMetrics(97)}
	g := wantGate(t, in, ReasonReplayDrift)
	c, _ := in.Registry.ClaimFor("example")
	if g.DerivedDigest == "" || g.DerivedDigest == c.ClaimDigest {
		t.Fatalf("derived digest %q", g.DerivedDigest)
	}
	// Restoring the metrics restores the pass.
	in.Results[eval.LaneInferenceClosure][SplitPublic] = LaneEvidence{Metrics: inferenceMetrics(98)}
	wantGate(t, in, ReasonPassed)
}

func TestEvidenceDigestDeterministic(t *testing.T) {
	m := metricsOf(goodResults())
	a, _ := EvidenceDigest("mathematics_logic", "rev1", claimLanes, m)
	b, _ := EvidenceDigest("mathematics_logic", "rev1", claimLanes, m)
	if a != b || len(a) != 64 {
		t.Fatalf("%s vs %s", a, b)
	}
	x, _ := EvidenceDigest("d", "rev1", []string{"a", "b", "c"}, nil)
	y, _ := EvidenceDigest("d", "rev1", []string{"c", "a", "b"}, nil)
	if x != y {
		t.Fatal("lane order changes the digest")
	}
	for _, other := range []string{
		must(EvidenceDigest("d", "rev2", []string{"a", "b", "c"}, nil)),
		must(EvidenceDigest("e", "rev1", []string{"a", "b", "c"}, nil)),
		must(EvidenceDigest("d", "rev1", []string{"a", "b"}, nil)),
	} {
		if other == x {
			t.Fatal("digest ignores a field")
		}
	}
}

func must(s string, err error) string {
	if err != nil {
		panic(err)
	}
	return s
}

// The canonical payload has exactly the four keys, lanes sorted, and
// empty metrics for a missing split.
func TestEvidenceBundleShape(t *testing.T) {
	res := map[string]map[string]eval.Metrics{"domain_qa": {SplitPublic: {Accuracy: rp(1, 1), Passed: ip(1), Total: ip(1)}}}
	b := NewEvidenceBundle("d", "r", []string{"domain_qa"}, res)
	got, err := canonMarshal(b)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"domain_id":"d","evidence_lanes":["domain_qa"],"evidence_revision":"r","lane_metrics":{"domain_qa":{"holdout":{},"public":{"accuracy":{"den":1,"num":1},"passed":1,"total":1}}}}`
	if got != want {
		t.Fatalf("\n got %s\nwant %s", got, want)
	}
}
