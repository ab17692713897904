package packs

import (
	"math"
	"slices"
	"strings"
	"testing"
)

// TestBriefIsCheckManifold holds the brief check to the full one: over
// every combination of evidence the default predicates read (supplied or
// not, holding or not, lists sorted or not, repeated or not), and a
// boundary no predicate knows, the outcome is the full check's.
func TestBriefIsCheckManifold(t *testing.T) {
	a, b, z := strings.Repeat("a", 64), strings.Repeat("b", 64), strings.Repeat("f", 64)
	ids := append(DefaultBoundaryIDs(), "unregistered_boundary")
	slices.Sort(ids)
	conditions := []float64{0, 1e-9, 9.99e-7, 1e-6, 2, math.Inf(1), math.NaN()}
	lists := [][]string{nil, {}, {a}, {a, b}, {b, a}, {a, a}, {z}, {a, z}, {z, b, a, a}}
	hashes := [][2]string{{"", ""}, {"x", ""}, {"", "x"}, {"x", "x"}, {"x", "y"}}
	check := NewSafetyCheck()
	n := 0
	for _, field := range []bool{false, true} {
		for _, cond := range conditions {
			for _, hasAllow := range []bool{false, true} {
				for _, allowed := range lists {
					for _, cited := range lists {
						for _, refusal := range [][2]bool{{false, false}, {true, false}, {true, true}} {
							for _, h := range hashes {
								e := SafetyContext{HasFieldState: field, VersorCondition: cond,
									HasAllowlist: hasAllow, AllowedSourceSHAs: allowed, CitedSourceSHAs: cited,
									HasRefusalEvidence: refusal[0], LastRefusalWasTyped: refusal[1],
									IdentityHashBefore: h[0], IdentityHashAfter: h[1]}
								full := check.CheckBoundaries(e, "p", ids)
								brief := briefBoundaries(e, "p", ids)
								if brief.PackID != full.PackID || brief.Upheld != full.Upheld ||
									!slices.Equal(brief.Violated, full.Violated) || brief.RuntimeCheckableCount != full.RuntimeCheckableCount ||
									brief.Results == nil || len(brief.Results) != 0 || brief.Violated == nil {
									t.Fatalf("%+v:\nbrief %+v\nfull  %+v", e, brief, full)
								}
								n++
							}
						}
					}
				}
			}
		}
	}
	if n < 10_000 {
		t.Fatalf("only %d combinations", n)
	}
}

// TestBriefDefersToRegisteredPredicates: with a predicate registered, the
// brief check is the full one without its results, so a registered
// predicate decides as it does in CheckManifold.
func TestBriefDefersToRegisteredPredicates(t *testing.T) {
	l, err := Load(t.Context(), Options{Dir: shippedPacks(t)})
	if err != nil {
		t.Fatal(err)
	}
	m := l.Manifold
	check := NewSafetyCheck()
	e := SafetyContext{HasFieldState: true, VersorCondition: 0, IdentityHashBefore: m.Hash(), IdentityHashAfter: m.Hash()}
	if v, err := check.CheckManifoldBrief(e, m); err != nil || !v.Upheld || v.PackID != m.SafetyPackID() || len(v.Results) != 0 {
		t.Fatalf("brief check of a held turn: %+v, %v", v, err)
	}
	if err := check.Register(BoundaryPreserveVersorClosure, func(SafetyContext) SafetyCheckResult {
		return SafetyCheckResult{Upheld: false, Reason: "registered"}
	}); err != nil {
		t.Fatal(err)
	}
	full, _ := check.CheckManifold(e, m)
	brief, err := check.CheckManifoldBrief(e, m)
	if err != nil || brief.Upheld || !slices.Equal(brief.Violated, []string{BoundaryPreserveVersorClosure}) ||
		brief.RuntimeCheckableCount != full.RuntimeCheckableCount || len(brief.Results) != 0 {
		t.Fatalf("brief %+v against full %+v (%v)", brief, full, err)
	}
	if _, err := check.CheckManifoldBrief(e, nil); err == nil {
		t.Fatal("a brief check without a manifold passed")
	}
}
