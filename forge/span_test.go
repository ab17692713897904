package forge

import (
	"context"
	"errors"
	"strings"
	"testing"

	"formation/artifact"
)

func ptr(n int64) *int64 { return &n }

func TestSpanRules(t *testing.T) {
	f := newFixture(t)
	good := f.cite(primarySHA, "Lens has focus.")

	altered := good
	altered.Span = "Lens has fokus."
	shortSpan := good
	shortSpan.Span = "Lens has focus"
	missingText := good
	missingText.TextSHA = strings.Repeat("f0", 32)
	corrupt := f.cite(primarySHA, "Lens has curvature.")
	f.texts[corrupt.TextSHA] = []byte("Some context comes first. Lens has curvature? Then more follows.")
	outside := good
	outside.Start, outside.End = ptr(1000), ptr(1000+int64(len(good.Span)))
	partial := good
	partial.End = nil
	badText := good
	badText.TextSHA = "../text"
	empty := good
	empty.Span, empty.Start, empty.End = "", ptr(3), ptr(3)
	unrangedPrimary := plain(primarySHA, "Lens has focus.")
	unrangedCurated := plain(curatedSHA, "Lens has focus.")

	cases := []struct {
		tail   string
		ref    artifact.SourceRef
		reason string // "" = validated
	}{
		{"checked", good, ""},
		{"altered", altered, ReasonSpanMismatch},
		{"short", shortSpan, ReasonSpanMismatch},
		{"missing-text", missingText, ReasonSpanUnverifiable},
		{"corrupt-text", corrupt, ReasonSpanUnverifiable},
		{"outside", outside, ReasonSpanUnverifiable},
		{"partial", partial, ReasonSpanMalformed},
		{"bad-text-sha", badText, ReasonSpanMalformed},
		{"empty-range", empty, ReasonSpanMalformed},
		{"unranged", unrangedPrimary, ReasonSpanMissing},
		{"curated", unrangedCurated, ""},
	}
	var cs []artifact.RelationCandidate
	for _, c := range cases {
		cs = append(cs, rc("lens", "has", c.tail, c.ref))
	}
	res := validate(t, f.cfg, artifact.SmeltedBundle{Relations: cs})
	for _, c := range cases {
		if c.reason == "" {
			if !hasRelation(res.VTS, "lens", "has", c.tail) {
				t.Errorf("%s: not validated (%q)", c.tail, quarantineReason(res.VTS, "lens", "has", c.tail))
			}
			continue
		}
		if got := quarantineReason(res.VTS, "lens", "has", c.tail); got != c.reason {
			t.Errorf("%s: reason %q, want %q", c.tail, got, c.reason)
		}
		if fd, ok := findingFor(res, KindRelation, relKey("lens", "has", c.tail), c.reason); !ok || fd.SpanChecked {
			t.Errorf("%s: finding %+v %v", c.tail, fd, ok)
		}
	}
	fd, ok := findingFor(res, KindRelation, relKey("lens", "has", "curated"), ReasonSpanNotByteChecked)
	if !ok || fd.SpanChecked || !strings.Contains(fd.Detail, curatedSHA) {
		t.Errorf("curated citation: finding %+v %v", fd, ok)
	}
	if _, ok := findingFor(res, KindRelation, relKey("lens", "has", "checked"), ReasonSpanNotByteChecked); ok {
		t.Error("a byte-checked citation reported as unchecked")
	}
}

// The cheap checks of every citation run before any byte is read, so an
// unlisted second citation decides before a mismatching first one is read.
func TestCheapSourceChecksFirst(t *testing.T) {
	f := newFixture(t)
	bad := f.cite(primarySHA, "Lens has focus.")
	bad.Span = "Lens has fokus."
	counter := &countingChecker{inner: f.texts}
	f.cfg.SpanChecker = counter
	res := validate(t, f.cfg, artifact.SmeltedBundle{Relations: []artifact.RelationCandidate{
		rc("lens", "has", "focus", bad, plain(unlistedSHA, "x")),
	}})
	if got := quarantineReason(res.VTS, "lens", "has", "focus"); got != "invalid_source:not_in_allowlist:"+unlistedSHA {
		t.Errorf("reason %q", got)
	}
	if counter.calls != 0 {
		t.Errorf("%d byte checks for a candidate rejected on cheap grounds", counter.calls)
	}
}

type countingChecker struct {
	inner SpanChecker
	calls int
	err   error
}

func (c *countingChecker) Check(ctx context.Context, ref artifact.SourceRef) error {
	c.calls++
	if c.err != nil {
		return c.err
	}
	return c.inner.Check(ctx, ref)
}

func TestIdenticalEvidenceCheckedOnce(t *testing.T) {
	f := newFixture(t)
	counter := &countingChecker{inner: f.texts}
	f.cfg.SpanChecker = counter
	shared := f.cite(primarySHA, "Light reveals shape and light has energy.")
	other := f.cite(secondary1, "Light reveals shape.")
	res := validate(t, f.cfg, artifact.SmeltedBundle{
		Relations: []artifact.RelationCandidate{
			rc("light", "reveals", "shape", shared, other),
			rc("light", "has", "energy", shared),
		},
		Concepts: []artifact.ConceptCandidate{cc("light", "what reveals shape", shared)},
	})
	if len(res.VTS.Relations) != 2 || len(res.VTS.Concepts) != 1 {
		t.Fatalf("vts %+v", res.VTS)
	}
	if counter.calls != 2 {
		t.Errorf("%d span checks for 2 distinct pieces of evidence", counter.calls)
	}
}

func TestSpanCheckerFailuresAbort(t *testing.T) {
	f := newFixture(t)
	ref := f.cite(primarySHA, "Lens has focus.")
	bundle := artifact.SmeltedBundle{Relations: []artifact.RelationCandidate{rc("lens", "has", "focus", ref)}}

	storeDown := errors.New("store unavailable")
	f.cfg.SpanChecker = &countingChecker{inner: f.texts, err: storeDown}
	if _, err := Validate(t.Context(), f.cfg, "s", bundle); !errors.Is(err, storeDown) {
		t.Errorf("an infrastructure error must abort, got %v", err)
	}

	f.cfg.SpanChecker = nil
	if _, err := Validate(t.Context(), f.cfg, "s", bundle); !errors.Is(err, ErrConfig) {
		t.Errorf("a ranged citation without a checker: %v", err)
	}

	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	f.cfg.SpanChecker = f.texts
	if _, err := Validate(ctx, f.cfg, "s", bundle); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled context: %v", err)
	}

	// Without ranged citations no checker is needed.
	unranged := artifact.SmeltedBundle{Relations: []artifact.RelationCandidate{rc("lens", "has", "focus", plain(curatedSHA, "x"))}}
	f.cfg.SpanChecker = nil
	if res, err := Validate(t.Context(), f.cfg, "s", unranged); err != nil || len(res.VTS.Relations) != 1 {
		t.Errorf("curated only: %v %+v", err, res.VTS)
	}
}

func TestMemoryTexts(t *testing.T) {
	m := MemoryTexts{}
	d := m.Put([]byte("hello world"))
	ok := artifact.SourceRef{TextSHA: d, Start: ptr(6), End: ptr(11), Span: "world"}
	if err := m.Check(t.Context(), ok); err != nil {
		t.Fatal(err)
	}
	bad := ok
	bad.Span = "World"
	if err := m.Check(t.Context(), bad); !errors.Is(err, ErrSpanMismatch) {
		t.Errorf("mismatch: %v", err)
	}
	neg := ok
	neg.Start = ptr(-1)
	if err := m.Check(t.Context(), neg); !errors.Is(err, ErrSpanUnverifiable) {
		t.Errorf("negative start: %v", err)
	}
	m[d][0] = 'H'
	if err := m.Check(t.Context(), ok); !errors.Is(err, ErrSpanUnverifiable) {
		t.Errorf("corrupt object: %v", err)
	}
}
