package packs

import (
	"encoding/json"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"formation/canon"
)

func shippedStylePack() *SafetyPack {
	return &SafetyPack{PackID: DefaultSafetyPackID, BoundaryIDs: slices.Clone(fiveBoundaries)}
}

func resultFor(t *testing.T, v SafetyVerdict, id string) SafetyCheckResult {
	t.Helper()
	for _, r := range v.Results {
		if r.BoundaryID == id {
			return r
		}
	}
	t.Fatalf("no result for %s in %+v", id, v)
	return SafetyCheckResult{}
}

func evidenceValues(r SafetyCheckResult, key string) []string {
	var out []string
	for _, e := range r.Evidence {
		if e.Key == key {
			out = append(out, e.Value)
		}
	}
	return out
}

const (
	shaA = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
	shaB = "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"
	shaC = "cccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccc"
)

// With no evidence every boundary is upheld, none is runtime-checkable, and
// each says why.
func TestCheckWithoutEvidence(t *testing.T) {
	v, err := NewSafetyCheck().Check(SafetyContext{}, shippedStylePack())
	if err != nil {
		t.Fatal(err)
	}
	if !v.Upheld || len(v.Violated) != 0 || v.RuntimeCheckableCount != 0 {
		t.Fatalf("verdict = %+v", v)
	}
	for _, r := range v.Results {
		if !r.Upheld || r.RuntimeCheckable || r.Reason == "" {
			t.Errorf("%s: %+v", r.BoundaryID, r)
		}
	}
}

func TestPreserveVersorClosure(t *testing.T) {
	cases := []struct {
		vc     float64
		upheld bool
		shown  string
	}{
		{0, true, "0.000000e+00"},
		{3.2e-13, true, "3.200000e-13"},
		{9.99e-7, true, "9.990000e-07"},
		{1e-6, false, "1.000000e-06"}, // strict: at the threshold is a violation
		{0.5, false, "5.000000e-01"},
		{math.NaN(), false, "NaN"},
		{math.Inf(1), false, "+Inf"},
	}
	for _, c := range cases {
		v, _ := NewSafetyCheck().Check(SafetyContext{HasFieldState: true, VersorCondition: c.vc}, shippedStylePack())
		r := resultFor(t, v, BoundaryPreserveVersorClosure)
		if r.Upheld != c.upheld || !r.RuntimeCheckable {
			t.Errorf("vc %v: %+v", c.vc, r)
		}
		if got := evidenceValues(r, "versor_condition"); !slices.Equal(got, []string{c.shown}) {
			t.Errorf("vc %v: evidence %v", c.vc, got)
		}
		if v.Upheld != c.upheld {
			t.Errorf("vc %v: verdict upheld %v", c.vc, v.Upheld)
		}
	}
}

func TestNoFabricatedSource(t *testing.T) {
	cases := []struct {
		name      string
		ctx       SafetyContext
		upheld    bool
		checkable bool
		fabricate []string
	}{
		{"no allowlist", SafetyContext{CitedSourceSHAs: []string{shaA}}, true, false, nil},
		{"no citations", SafetyContext{HasAllowlist: true, AllowedSourceSHAs: []string{shaA}}, true, true, nil},
		{"all allowed", SafetyContext{HasAllowlist: true, AllowedSourceSHAs: []string{shaA, shaB}, CitedSourceSHAs: []string{shaB, shaA, shaA}}, true, true, nil},
		{"one fabricated", SafetyContext{HasAllowlist: true, AllowedSourceSHAs: []string{shaA}, CitedSourceSHAs: []string{shaC, shaA, shaC}}, false, true, []string{shaC}},
		{"empty allowlist allows nothing", SafetyContext{HasAllowlist: true, CitedSourceSHAs: []string{shaB, shaA}}, false, true, []string{shaA, shaB}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v, _ := NewSafetyCheck().Check(c.ctx, shippedStylePack())
			r := resultFor(t, v, BoundaryNoFabricatedSource)
			if r.Upheld != c.upheld || r.RuntimeCheckable != c.checkable {
				t.Errorf("%+v", r)
			}
			if got := evidenceValues(r, "fabricated_source_sha"); !slices.Equal(got, c.fabricate) {
				t.Errorf("fabricated evidence = %v, want %v", got, c.fabricate)
			}
			if !c.upheld && !slices.Equal(v.Violated, []string{BoundaryNoFabricatedSource}) {
				t.Errorf("violated = %v", v.Violated)
			}
		})
	}
}

func TestNoSilentCorrection(t *testing.T) {
	for _, c := range []struct {
		ctx               SafetyContext
		upheld, checkable bool
	}{
		{SafetyContext{}, true, false},
		{SafetyContext{HasRefusalEvidence: true, LastRefusalWasTyped: true}, true, true},
		{SafetyContext{HasRefusalEvidence: true, LastRefusalWasTyped: false}, false, true},
	} {
		v, _ := NewSafetyCheck().Check(c.ctx, shippedStylePack())
		r := resultFor(t, v, BoundaryNoSilentCorrection)
		if r.Upheld != c.upheld || r.RuntimeCheckable != c.checkable {
			t.Errorf("%+v: %+v", c.ctx, r)
		}
	}
}

func TestNoIdentityOverride(t *testing.T) {
	for _, c := range []struct {
		before, after     string
		upheld, checkable bool
	}{
		{"", "", true, false},
		{shaA, "", true, false},
		{"", shaA, true, false},
		{shaA, shaA, true, true},
		{shaA, shaB, false, true},
	} {
		v, _ := NewSafetyCheck().Check(SafetyContext{IdentityHashBefore: c.before, IdentityHashAfter: c.after}, shippedStylePack())
		r := resultFor(t, v, BoundaryNoIdentityOverride)
		if r.Upheld != c.upheld || r.RuntimeCheckable != c.checkable {
			t.Errorf("%q→%q: %+v", c.before, c.after, r)
		}
	}
}

// no_hot_path_repair is honest: whatever the evidence, it never claims a check.
func TestNoHotPathRepairNotRuntimeCheckable(t *testing.T) {
	full := SafetyContext{HasFieldState: true, VersorCondition: 0.9, HasAllowlist: true, CitedSourceSHAs: []string{shaA},
		HasRefusalEvidence: true, IdentityHashBefore: shaA, IdentityHashAfter: shaB}
	v, _ := NewSafetyCheck().Check(full, shippedStylePack())
	r := resultFor(t, v, BoundaryNoHotPathRepair)
	if !r.Upheld || r.RuntimeCheckable || !strings.Contains(r.Reason, "code-path") {
		t.Errorf("%+v", r)
	}
	if want := []string{"no_fabricated_source", "no_identity_override", "no_silent_correction", "preserve_versor_closure"}; !slices.Equal(v.Violated, want) {
		t.Errorf("violated = %v, want %v", v.Violated, want)
	}
	if v.RuntimeCheckableCount != 4 || v.Upheld {
		t.Errorf("verdict = %+v", v)
	}
}

func TestUnknownBoundaryUpheldNotCheckable(t *testing.T) {
	v := NewSafetyCheck().CheckBoundaries(SafetyContext{}, "p", []string{"zeta", "no_overstatement", "zeta"})
	if len(v.Results) != 2 {
		t.Fatalf("results = %+v", v.Results)
	}
	for _, r := range v.Results {
		if !r.Upheld || r.RuntimeCheckable || r.Reason != "no predicate registered for boundary" {
			t.Errorf("%+v", r)
		}
	}
}

func TestResultsInBoundaryIDOrder(t *testing.T) {
	ids := []string{"preserve_versor_closure", "b", "no_fabricated_source", "a", "Z", "é"}
	v := NewSafetyCheck().CheckBoundaries(SafetyContext{}, "p", ids)
	var got []string
	for _, r := range v.Results {
		got = append(got, r.BoundaryID)
	}
	want := []string{"Z", "a", "b", "no_fabricated_source", "preserve_versor_closure", "é"}
	if !slices.Equal(got, want) {
		t.Errorf("order = %v, want %v", got, want)
	}
}

func TestCustomPredicates(t *testing.T) {
	c := NewSafetyCheck()
	if err := c.Register("", func(SafetyContext) SafetyCheckResult { return SafetyCheckResult{} }); err == nil {
		t.Error("empty boundary id accepted")
	}
	if err := c.Register("x", nil); err == nil {
		t.Error("nil predicate accepted")
	}
	// A custom predicate sees the evidence and its result is relabelled.
	err := c.Register("no_overstatement", func(e SafetyContext) SafetyCheckResult {
		return SafetyCheckResult{BoundaryID: "wrong", Upheld: len(e.CitedSourceSHAs) < 3, Reason: "citation budget"}
	})
	if err != nil {
		t.Fatal(err)
	}
	// Replacing a default predicate is allowed.
	err = c.Register(BoundaryNoHotPathRepair, func(SafetyContext) SafetyCheckResult {
		return SafetyCheckResult{Upheld: true, RuntimeCheckable: true, Reason: "build stamp verified"}
	})
	if err != nil {
		t.Fatal(err)
	}
	ids := append(slices.Clone(fiveBoundaries), "no_overstatement")
	v := c.CheckBoundaries(SafetyContext{CitedSourceSHAs: []string{shaA, shaB, shaC}}, "p", ids)
	r := resultFor(t, v, "no_overstatement")
	if r.Upheld || !r.RuntimeCheckable || r.Evidence == nil {
		t.Errorf("custom violation: %+v", r)
	}
	if h := resultFor(t, v, BoundaryNoHotPathRepair); !h.RuntimeCheckable || h.Reason != "build stamp verified" {
		t.Errorf("replaced default: %+v", h)
	}
	if !slices.Equal(v.Violated, []string{"no_overstatement"}) {
		t.Errorf("violated = %v", v.Violated)
	}
	// Registration is per instance: a fresh check has no such predicate.
	fresh := NewSafetyCheck().CheckBoundaries(SafetyContext{}, "p", []string{"no_overstatement"})
	if fresh.Results[0].Reason != "no predicate registered for boundary" {
		t.Errorf("registration leaked between instances: %+v", fresh.Results[0])
	}
}

// A predicate that panics has not upheld its boundary.
func TestPanickingPredicateFailsClosed(t *testing.T) {
	c := NewSafetyCheck()
	if err := c.Register("fragile", func(SafetyContext) SafetyCheckResult { panic("boom") }); err != nil {
		t.Fatal(err)
	}
	v := c.CheckBoundaries(SafetyContext{}, "p", []string{"fragile"})
	r := v.Results[0]
	if v.Upheld || r.Upheld || !r.RuntimeCheckable || !strings.Contains(r.Reason, "boom") || r.BoundaryID != "fragile" {
		t.Errorf("%+v", v)
	}
}

func TestZeroValueCheckHasDefaults(t *testing.T) {
	var c SafetyCheck
	v := c.CheckBoundaries(SafetyContext{HasFieldState: true, VersorCondition: 1}, "p", fiveBoundaries)
	if !slices.Equal(v.Violated, []string{BoundaryPreserveVersorClosure}) {
		t.Errorf("violated = %v", v.Violated)
	}
	if err := c.Register("x", func(SafetyContext) SafetyCheckResult { return SafetyCheckResult{Upheld: true} }); err != nil {
		t.Fatal(err)
	}
}

func TestCheckNilPackFailsClosed(t *testing.T) {
	_, err := NewSafetyCheck().Check(SafetyContext{}, nil)
	wantSafetyError(t, err, ReasonPackMissing)
	_, err = NewSafetyCheck().CheckManifold(SafetyContext{}, nil)
	wantSafetyError(t, err, ReasonPackMissing)
}

func TestRefusalSurface(t *testing.T) {
	up := NewSafetyCheck().CheckBoundaries(SafetyContext{}, "p", fiveBoundaries)
	if up.RefusalSurface() != "" {
		t.Errorf("upheld verdict refuses: %q", up.RefusalSurface())
	}
	down := NewSafetyCheck().CheckBoundaries(SafetyContext{
		HasFieldState: true, VersorCondition: 1,
		HasRefusalEvidence: true, LastRefusalWasTyped: false,
	}, "p", fiveBoundaries)
	want := "I cannot proceed — boundary violated: safety:no_silent_correction, safety:preserve_versor_closure"
	if got := down.RefusalSurface(); got != want {
		t.Errorf("surface = %q, want %q", got, want)
	}
}

// The verdict serialises with snake_case keys and no floats, so it can go
// into a TurnEvent and a trace hash as it is.
func TestVerdictJSON(t *testing.T) {
	v := NewSafetyCheck().CheckBoundaries(SafetyContext{HasFieldState: true, VersorCondition: 2e-7}, "core_safety_axes_v1",
		[]string{BoundaryPreserveVersorClosure, "zz"})
	got := string(marshal(t, v))
	want := `{"pack_id":"core_safety_axes_v1","results":[` +
		`{"boundary_id":"preserve_versor_closure","evidence":[{"key":"versor_condition","value":"2.000000e-07"},{"key":"threshold","value":"1.000000e-06"}],"reason":"versor condition 2.000000e-07 is below 1.000000e-06","runtime_checkable":true,"upheld":true},` +
		`{"boundary_id":"zz","evidence":[],"reason":"no predicate registered for boundary","runtime_checkable":false,"upheld":true}],` +
		`"runtime_checkable_count":1,"upheld":true,"violated":[]}`
	if got != want {
		t.Errorf("canonical verdict\n got %s\nwant %s", got, want)
	}
	std, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	back, err := canon.Decode(std)
	if err != nil {
		t.Fatalf("encoding/json form is not canonical input: %v", err)
	}
	if string(marshal(t, back)) != want {
		t.Error("encoding/json and canonical forms disagree")
	}
}

// One check serves many sessions at once.
func TestCheckConcurrentUse(t *testing.T) {
	c := NewSafetyCheck()
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_ = c.Register("extra", func(SafetyContext) SafetyCheckResult { return SafetyCheckResult{Upheld: i%2 == 0} })
			v := c.CheckBoundaries(SafetyContext{HasFieldState: true}, "p", append(slices.Clone(fiveBoundaries), "extra"))
			if len(v.Results) != 6 {
				t.Errorf("results = %d", len(v.Results))
			}
		}()
	}
	wg.Wait()
}

func TestDefaultBoundaryIDs(t *testing.T) {
	if !slices.Equal(DefaultBoundaryIDs(), fiveBoundaries) {
		t.Errorf("%v", DefaultBoundaryIDs())
	}
	for _, id := range DefaultBoundaryIDs() {
		v := NewSafetyCheck().CheckBoundaries(SafetyContext{}, "p", []string{id})
		if v.Results[0].Reason == "no predicate registered for boundary" {
			t.Errorf("%s has no default predicate", id)
		}
	}
}

// TestNoFabricatedSourceReadsSortedAllowlistInPlace holds the reading of an
// allowlist already in order (counted and searched in place) equal to the
// reading of the same list shuffled and repeated (sorted, deduplicated and
// hashed), and holds sortedUnique equal to a sort of a copy either way.
func TestNoFabricatedSourceReadsSortedAllowlistInPlace(t *testing.T) {
	shas := func(n, step int) []string {
		var out []string
		for i := 0; i < n; i++ {
			out = append(out, strings.Repeat(string(rune('0'+(i*step)%10)), 8)+strings.Repeat(string(rune('a'+(i*step)%6)), 56))
		}
		return out
	}
	allowed := sortedUnique(shas(40, 3))
	if !strictlyIncreasing(allowed) || len(allowed) < 10 {
		t.Fatalf("fixture allowlist not sorted and unique: %d", len(allowed))
	}
	messy := append(slices.Clone(allowed), allowed[:7]...)
	slices.Reverse(messy)
	for _, cited := range [][]string{nil, allowed[:3], {allowed[5], allowed[1], allowed[5]}, shas(25, 7), append(shas(4, 1), "ffff")} {
		fast := noFabricatedSource(SafetyContext{HasAllowlist: true, AllowedSourceSHAs: allowed, CitedSourceSHAs: cited})
		slow := noFabricatedSource(SafetyContext{HasAllowlist: true, AllowedSourceSHAs: messy, CitedSourceSHAs: cited})
		fb, _ := json.Marshal(fast)
		sb, _ := json.Marshal(slow)
		if string(fb) != string(sb) {
			t.Errorf("cited %v:\nsorted allowlist   %s\nunsorted allowlist %s", cited, fb, sb)
		}
		if got := evidenceValues(fast, "allowed_count"); !slices.Equal(got, []string{strconv.Itoa(len(allowed))}) {
			t.Errorf("allowed_count = %v, want %d", got, len(allowed))
		}
	}
	for _, ids := range [][]string{nil, {"a"}, {"b", "a"}, {"a", "a"}, {"a", "b", "b", "c"}, allowed, messy} {
		want := slices.Compact(slices.Sorted(slices.Values(ids)))
		if got := sortedUnique(ids); !slices.Equal(got, want) {
			t.Errorf("sortedUnique(%v) = %v, want %v", ids, got, want)
		}
	}
}
