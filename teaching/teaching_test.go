package teaching_test

import (
	"bytes"
	"crypto/ed25519"
	"encoding/base64"
	"errors"
	"strings"
	"testing"
	"time"

	"formation/runtime/epistemic"
	"formation/runtime/knowledge"
	"formation/signing"
	"formation/teaching"
)

const (
	srcA  = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
	srcB  = "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"
	trace = "cccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccc"
)

func cite(sha string) []knowledge.Citation { return []knowledge.Citation{{SourceSHA: sha, Span: "s."}} }

// reviewedKnowledge holds a triple cited by one source, a triple cited by
// two, a counter-claim cited by one, a counter-claim cited by two, a term
// defined once and a term defined differently by two sources.
func reviewedKnowledge(t *testing.T) *knowledge.Knowledge {
	t.Helper()
	k, err := knowledge.NewKnowledge(
		[]knowledge.Concept{
			{Term: "lens", Definition: "a curved glass", Sources: cite(srcA)},
			{Term: "prism", Definition: "a glass block", Sources: cite(srcA)},
			{Term: "prism", Definition: "a wedge of glass", Sources: cite(srcB)},
		},
		[]knowledge.Triple{
			{Head: "lens", Relation: "produces", Tail: "image", Sources: cite(srcA)},
			{Head: "light", Relation: "causes", Tail: "heat", Sources: append(cite(srcA), cite(srcB)...)},
		},
		knowledge.Triple{Head: "mirror", Relation: "causes", Tail: "refraction", Sources: cite(srcA)},
		knowledge.Triple{Head: "shadow", Relation: "produces", Tail: "light", Sources: append(cite(srcA), cite(srcB)...)},
	)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func relation(h, r, tl string, negated bool) teaching.Proposal {
	return teaching.NewRelation(teaching.Triple{Head: h, Relation: r, Tail: tl}, negated, "No, "+h+" "+r+" "+tl+".", trace, "s1", 3)
}

// One row per case of the rule: coherence is computed from the reviewed
// knowledge, and the claims that decide it are named.
func TestJudge(t *testing.T) {
	k := reviewedKnowledge(t)
	for _, tc := range []struct {
		name    string
		p       teaching.Proposal
		want    epistemic.Status
		against []string // kind: claim
	}{
		{"relation the knowledge does not mention", relation("lens", "causes", "refraction", false), epistemic.Coherent, nil},
		{"relation the knowledge holds", relation("lens", "produces", "image", false), epistemic.Coherent, nil},
		{"relation a reviewed counter-claim denies", relation("mirror", "causes", "refraction", false), epistemic.Contested,
			[]string{`counter_claim: "mirror causes refraction" is false`}},
		{"relation denied by a counter-claim from two sources", relation("shadow", "produces", "light", false), epistemic.Falsified,
			[]string{`counter_claim: "shadow produces light" is false`}},
		{"counter-claim the knowledge does not mention", relation("lens", "causes", "heat", true), epistemic.Coherent, nil},
		{"counter-claim the knowledge also holds", relation("mirror", "causes", "refraction", true), epistemic.Coherent, nil},
		{"counter-claim denying a reviewed triple", relation("lens", "produces", "image", true), epistemic.Contested,
			[]string{"triple: lens produces image"}},
		{"counter-claim denying a triple two sources hold", relation("light", "causes", "heat", true), epistemic.Falsified,
			[]string{"triple: light causes heat"}},
		{"definition of an undefined term", teaching.NewDefinition("mirror", "a polished surface", "A mirror is a polished surface.", trace, "s1", 0),
			epistemic.Coherent, nil},
		{"definition saying what the reviewed one says", teaching.NewDefinition("Lens", "curved glass.", "A lens is a curved glass.", trace, "s1", 0),
			epistemic.Coherent, nil},
		{"definition different from the reviewed one", teaching.NewDefinition("lens", "a mirror", "A lens is a mirror.", trace, "s1", 0),
			epistemic.Contested, []string{"definition: lens: a curved glass"}},
		{"definition different from two sources' definitions", teaching.NewDefinition("prism", "a lens", "A prism is a lens.", trace, "s1", 0),
			epistemic.Falsified, []string{"definition: prism: a glass block", "definition: prism: a wedge of glass"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := tc.p.Check(); err != nil {
				t.Fatal(err)
			}
			got := teaching.Judge(tc.p, k)
			if got.Status != tc.want {
				t.Fatalf("status %s, want %s (%s)", got.Status, tc.want, got.Summary())
			}
			var named []string
			for _, c := range got.Contradictions {
				named = append(named, c.Kind+": "+c.Claim)
				if len(c.Sources) == 0 {
					t.Fatalf("contradiction %q names no source", c.Claim)
				}
			}
			if strings.Join(named, "|") != strings.Join(tc.against, "|") {
				t.Fatalf("contradictions %q, want %q", named, tc.against)
			}
		})
	}
}

func reviewer(t *testing.T, seed byte) teaching.Reviewer {
	t.Helper()
	return teaching.Reviewer{ID: "curator-1", Key: ed25519.NewKeyFromSeed(bytes.Repeat([]byte{seed}, 32))}
}

var at = time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)

func code(err error) (int, string) {
	var e *teaching.Error
	if !errors.As(err, &e) {
		return 0, ""
	}
	return e.Code, e.Reason
}

// A decision is a new record by with_status: the proposal's bytes do not
// change, the copy names the proposal, carries the status the reason gives
// and a signature that verifies; any change to the copy breaks it (77).
func TestDecideCopiesAndSigns(t *testing.T) {
	k := reviewedKnowledge(t)
	p := relation("lens", "causes", "refraction", false)
	before, _ := p.Canonical()
	id, _ := p.Digest()
	d, err := teaching.Decide(p, id, true, teaching.Coheres, teaching.Judge(p, k), reviewer(t, 1), at)
	if err != nil {
		t.Fatal(err)
	}
	after, _ := p.Canonical()
	if !bytes.Equal(before, after) || p.Decision != nil || p.EpistemicStatus != epistemic.Speculative {
		t.Fatal("deciding changed the proposal")
	}
	if d.Proposal != id || d.EpistemicStatus != epistemic.Coherent || d.Decision.Verdict != teaching.Accepted || d.Words != p.Words {
		t.Fatalf("decided copy: %+v", d)
	}
	if err := teaching.VerifyDecision(d); err != nil {
		t.Fatal(err)
	}
	raw, _ := d.Canonical()
	back, err := teaching.Decode(raw)
	if err != nil || teaching.VerifyDecision(back) != nil {
		t.Fatalf("a decided record does not round-trip: %v", err)
	}
	for name, tamper := range map[string]func(*teaching.Proposal){
		"status": func(x *teaching.Proposal) { x.EpistemicStatus = epistemic.Falsified },
		"reason": func(x *teaching.Proposal) {
			x.Decision.Reason = teaching.Duplicate
			x.Decision.Verdict = teaching.Rejected
		},
		"reviewer": func(x *teaching.Proposal) { x.Decision.Reviewer = "someone-else" },
		"proposal": func(x *teaching.Proposal) { x.Proposal = strings.Repeat("d", 64) },
		"key": func(x *teaching.Proposal) {
			other := reviewer(t, 2).Key.Public().(ed25519.PublicKey)
			x.Decision.PublicKey, x.Decision.KeyID = base64.StdEncoding.EncodeToString(other), signing.KeyID(other)
		},
	} {
		x := d.WithStatus(d.EpistemicStatus)
		tamper(&x)
		if c, _ := code(teaching.VerifyDecision(x)); c != 77 {
			t.Errorf("tampered %s: verify gives exit %d, want 77", name, c)
		}
	}
	if _, err := teaching.Decide(d, id, false, teaching.Duplicate, teaching.Judge(p, k), reviewer(t, 1), at); err == nil {
		t.Fatal("a decided record was decided again")
	}
}

// Each reason gives its verdict and status; a reason belongs to one verb;
// accepting as coherent what the reviewed knowledge contradicts is refused.
func TestDecideReasons(t *testing.T) {
	k := reviewedKnowledge(t)
	free := relation("lens", "causes", "refraction", false)
	contested := relation("mirror", "causes", "refraction", false)
	for _, tc := range []struct {
		p      teaching.Proposal
		accept bool
		reason teaching.Reason
		status epistemic.Status
		exit   int
		code   string
	}{
		{free, true, teaching.Coheres, epistemic.Coherent, 0, ""},
		{contested, false, teaching.ContradictsReviewed, epistemic.Contested, 0, ""},
		{contested, false, teaching.Falsified, epistemic.Falsified, 0, ""},
		{free, false, teaching.NotAClaim, epistemic.Speculative, 0, ""},
		{free, false, teaching.Duplicate, epistemic.Speculative, 0, ""},
		{contested, true, teaching.Coheres, "", 65, teaching.ReasonIncoherentAccept},
		{free, true, teaching.Duplicate, "", 2, teaching.ReasonWrongVerb},
		{free, false, teaching.Coheres, "", 2, teaching.ReasonWrongVerb},
	} {
		id, _ := tc.p.Digest()
		d, err := teaching.Decide(tc.p, id, tc.accept, tc.reason, teaching.Judge(tc.p, k), reviewer(t, 1), at)
		if c, r := code(err); c != tc.exit || r != tc.code {
			t.Fatalf("%s accept=%v: exit %d %q, want %d %q (%v)", tc.reason, tc.accept, c, r, tc.exit, tc.code, err)
		}
		if err == nil && (d.EpistemicStatus != tc.status || d.Decision.Verdict != tc.reason.Verdict()) {
			t.Fatalf("%s: status %s verdict %s", tc.reason, d.EpistemicStatus, d.Decision.Verdict)
		}
	}
	if _, err := teaching.ParseReason("other"); err == nil {
		t.Fatal(`"other" parsed as a reason`)
	}
}

// Pruning drops the words of a decided record and keeps its id and
// decision; a proposal not yet decided is never pruned.
func TestPruned(t *testing.T) {
	p := relation("lens", "causes", "refraction", false)
	if _, err := teaching.Pruned(p, at); err == nil {
		t.Fatal("an undecided proposal was pruned")
	}
	id, _ := p.Digest()
	d, err := teaching.Decide(p, id, false, teaching.NotAClaim, teaching.Judge(p, reviewedKnowledge(t)), reviewer(t, 1), at)
	if err != nil {
		t.Fatal(err)
	}
	pr, err := teaching.Pruned(d, at.Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	if pr.Words != "" || pr.Proposal != id || pr.PrunedAt != "2026-06-01T13:00:00Z" || teaching.VerifyDecision(pr) != nil {
		t.Fatalf("pruned: %+v", pr)
	}
	if d.Words == "" {
		t.Fatal("pruning changed the decided record")
	}
}

// Decode accepts only the canonical form of a well-formed record.
func TestDecodeStrict(t *testing.T) {
	p := relation("lens", "causes", "refraction", false)
	raw, _ := p.Canonical()
	if _, err := teaching.Decode(raw); err != nil {
		t.Fatal(err)
	}
	for name, bad := range map[string]string{
		"spaced":      strings.Replace(string(raw), `","`, `", "`, 1),
		"unknown key": strings.Replace(string(raw), `{`, `{"extra":1,`, 1),
		"status":      strings.Replace(string(raw), `"speculative"`, `"coherent"`, 1),
		"kind":        strings.Replace(string(raw), `"relation"`, `"opinion"`, 1),
		"trace":       strings.Replace(string(raw), trace, "x", 1),
		"no words":    strings.Replace(string(raw), `"No, lens causes refraction."`, `""`, 1),
	} {
		if c, _ := code(func() error { _, err := teaching.Decode([]byte(bad)); return err }()); c != 65 {
			t.Errorf("%s: exit %d, want 65", name, c)
		}
	}
}

// The sentence a proposal is mined as says exactly what it proposes.
func TestSentence(t *testing.T) {
	for _, tc := range []struct {
		p    teaching.Proposal
		want string
	}{
		{relation("Lens", "is_caused_by", "the Sun", false), "lens is caused by sun."},
		{relation("lens", "causes", "heat", true), "It is not true that lens causes heat."},
		{teaching.NewDefinition("lens", "a curved glass.", "w", trace, "s1", 0), "lens is defined as a curved glass."},
	} {
		if got := tc.p.Sentence(); got != tc.want {
			t.Errorf("Sentence = %q, want %q", got, tc.want)
		}
	}
}

// A proposal keeps a term as a user's sentence reads it (text.NormalTerm):
// a name's trailing "+" stays, leading articles go.
func TestProposalTermsInTheReadersNormalForm(t *testing.T) {
	p := relation("The C++ compiler", "produces", "an object file", false)
	if p.Triple.Head != "c++ compiler" || p.Triple.Tail != "object file" || p.Check() != nil {
		t.Fatalf("triple %+v: %v", p.Triple, p.Check())
	}
}
