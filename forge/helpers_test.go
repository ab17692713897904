package forge

import (
	"context"
	"strings"
	"testing"

	"formation/artifact"
	"formation/canon"
)

// Digests of the test allow-list.
const (
	primarySHA   = "a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1"
	secondary1   = "b1b1b1b1b1b1b1b1b1b1b1b1b1b1b1b1b1b1b1b1b1b1b1b1b1b1b1b1b1b1b1b1"
	secondary2   = "b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2"
	secondary3   = "b3b3b3b3b3b3b3b3b3b3b3b3b3b3b3b3b3b3b3b3b3b3b3b3b3b3b3b3b3b3b3b3"
	llmSHA       = "c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1"
	curatedSHA   = "d1d1d1d1d1d1d1d1d1d1d1d1d1d1d1d1d1d1d1d1d1d1d1d1d1d1d1d1d1d1d1d1" // primary, curated
	curatedSec   = "d2d2d2d2d2d2d2d2d2d2d2d2d2d2d2d2d2d2d2d2d2d2d2d2d2d2d2d2d2d2d2d2" // secondary, curated
	unlistedSHA  = "e1e1e1e1e1e1e1e1e1e1e1e1e1e1e1e1e1e1e1e1e1e1e1e1e1e1e1e1e1e1e1e1"
	testRetrieve = "2026-05-16T00:00:00Z"
)

type fixture struct {
	texts MemoryTexts
	cfg   Config
}

func newFixture(t testing.TB) *fixture {
	t.Helper()
	allow, err := NewAllowlist([]artifact.AllowedSource{
		{SourceSHA: primarySHA, Tier: artifact.TierPrimary, Label: "textbook"},
		{SourceSHA: secondary1, Tier: artifact.TierSecondary, Label: "encyclopedia"},
		{SourceSHA: secondary2, Tier: artifact.TierSecondary, Label: "lecture notes"},
		{SourceSHA: secondary3, Tier: artifact.TierSecondary, Label: "forum"},
		{SourceSHA: llmSHA, Tier: artifact.TierLLM, Label: "ideation"},
		{SourceSHA: curatedSHA, Tier: artifact.TierPrimary, Label: "hand-written", Curated: true},
		{SourceSHA: curatedSec, Tier: artifact.TierSecondary, Label: "hand-written notes", Curated: true},
	})
	if err != nil {
		t.Fatal(err)
	}
	texts := MemoryTexts{}
	return &fixture{texts: texts, cfg: Config{Allowlist: allow, SpanChecker: texts}}
}

// cite stores a text holding sentence and returns a citation of its exact
// byte range, attributed to source.
func (f *fixture) cite(source, sentence string) artifact.SourceRef {
	text := "Some context comes first. " + sentence + " Then more follows."
	d := f.texts.Put([]byte(text))
	start := int64(strings.Index(text, sentence))
	end := start + int64(len(sentence))
	return artifact.SourceRef{SourceSHA: source, Span: sentence, Adapter: "file", RetrievedAt: testRetrieve,
		TextSHA: d, Start: &start, End: &end, Extractor: "smelter/pattern_v1"}
}

// plain is a citation without a byte range (a hand-written candidate).
func plain(source, span string) artifact.SourceRef {
	return artifact.SourceRef{SourceSHA: source, Span: span, Adapter: "hand", RetrievedAt: testRetrieve}
}

func rc(h, r, t string, refs ...artifact.SourceRef) artifact.RelationCandidate {
	return artifact.RelationCandidate{Head: h, Relation: r, Tail: t, Sources: refs, State: artifact.StateProposed}
}

func cc(term, def string, refs ...artifact.SourceRef) artifact.ConceptCandidate {
	return artifact.ConceptCandidate{CanonicalTerm: term, Definition: def, Sources: refs, State: artifact.StateProposed}
}

func oh(before, after string, refs ...artifact.SourceRef) artifact.OrderingHint {
	return artifact.OrderingHint{Before: before, After: after, Sources: refs}
}

func validate(t testing.TB, cfg Config, b artifact.SmeltedBundle) Result {
	t.Helper()
	res, err := Validate(context.Background(), cfg, "subject.test", b)
	if err != nil {
		t.Fatalf("Validate: %v", err)
	}
	return res
}

// findingFor returns the finding of the given kind, key and reason code.
func findingFor(res Result, kind, key, code string) (Finding, bool) {
	for _, f := range res.Findings {
		if f.Kind == kind && f.Key == key && f.ReasonCode == code {
			return f, true
		}
	}
	return Finding{}, false
}

func relKey(h, r, t string) string { return keyJSON(h, r, t) }

func hasRelation(vts artifact.ValidatedTripleSet, h, r, t string) bool {
	for _, c := range vts.Relations {
		if c.Head == h && c.Relation == r && c.Tail == t {
			return c.State == artifact.StateValidated
		}
	}
	return false
}

func quarantineReason(vts artifact.ValidatedTripleSet, h, r, t string) string {
	for _, c := range vts.Quarantined {
		if c.Head == h && c.Relation == r && c.Tail == t {
			return c.RejectionReason
		}
	}
	return ""
}

// encodeResult is the canonical form of a result, for byte comparisons.
func encodeResult(t testing.TB, res Result) []byte {
	t.Helper()
	b, err := canon.Marshal(map[string]any{"vts": res.VTS, "findings": res.Findings})
	if err != nil {
		t.Fatal(err)
	}
	return b
}
