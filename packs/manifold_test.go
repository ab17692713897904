package packs

import (
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"formation/canon"
)

// loadOriginal runs the start-up sequence on the original's packs in
// production mode.
func loadOriginal(t *testing.T, identity string) *Loaded {
	t.Helper()
	l, err := Load(t.Context(), Options{Dir: originalPacks(t), IdentityPackID: identity})
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func containsAll(have, want []string) bool {
	for _, w := range want {
		if !slices.Contains(have, w) {
			return false
		}
	}
	return true
}

// The runtime starts with the default safety pack.
func TestDefaultRuntimeHasSafetyPack(t *testing.T) {
	l := loadOriginal(t, "")
	if l.Safety == nil || l.Safety.PackID != DefaultSafetyPackID || !l.Safety.Ratified {
		t.Fatalf("safety = %+v", l.Safety)
	}
	if !slices.Equal(l.Safety.BoundaryIDs, fiveBoundaries) {
		t.Errorf("boundaries = %v", l.Safety.BoundaryIDs)
	}
	if l.Manifold.SafetyPackID() != DefaultSafetyPackID || l.Identity.PackID != DefaultIdentityPackID || l.Fallback != nil {
		t.Errorf("manifold %s/%s fallback %v", l.Manifold.SafetyPackID(), l.Identity.PackID, l.Fallback)
	}
}

// The five safety boundaries are in the manifold whatever identity is
// selected.
func TestSafetyBoundariesPresentUnderEveryIdentity(t *testing.T) {
	for _, id := range []string{"default_general_v1", "precision_first_v1", "generosity_first_v1"} {
		t.Run(id, func(t *testing.T) {
			l := loadOriginal(t, id)
			if l.Manifold.IdentityPackID() != id || l.Fallback != nil {
				t.Fatalf("loaded %s, fallback %v", l.Manifold.IdentityPackID(), l.Fallback)
			}
			if !containsAll(l.Manifold.BoundaryIDs(), fiveBoundaries) {
				t.Errorf("manifold boundaries %v lack some of %v", l.Manifold.BoundaryIDs(), fiveBoundaries)
			}
			for _, b := range fiveBoundaries {
				if !l.Manifold.HasBoundary(b) {
					t.Errorf("HasBoundary(%s) false", b)
				}
			}
		})
	}
}

// An identity boundary is added on top of the safety ones.
func TestPrecisionPackAddsBoundaryOnTop(t *testing.T) {
	m := loadOriginal(t, "precision_first_v1").Manifold
	want := append(slices.Clone(fiveBoundaries), "no_overstatement")
	slices.Sort(want)
	if !slices.Equal(m.BoundaryIDs(), want) {
		t.Errorf("boundaries = %v, want %v", m.BoundaryIDs(), want)
	}
}

// Safety contributes no axes.
func TestIdentityAxesUnchangedBySafetyPack(t *testing.T) {
	l := loadOriginal(t, "")
	if got := l.Manifold.AxisIDs(); !slices.Equal(got, []string{"truthfulness", "coherence", "reverence"}) {
		t.Errorf("axes = %v", got)
	}
	if !slices.Equal(l.Manifold.ValueAxes(), l.Identity.ValueAxes) {
		t.Error("manifold axes differ from the identity pack's")
	}
	if l.Manifold.AlignmentThreshold() != 0.45 {
		t.Errorf("threshold = %v", l.Manifold.AlignmentThreshold())
	}
}

// A named identity pack that fails falls back to the default, with the
// failure returned as a value.
func TestIdentityFallbackToDefault(t *testing.T) {
	for name, requested := range map[string]string{"unknown": "no_such_pack_v1", "traversal": "../safety/core_safety_axes_v1"} {
		t.Run(name, func(t *testing.T) {
			l, err := Load(t.Context(), Options{Dir: originalPacks(t), IdentityPackID: requested})
			if err != nil {
				t.Fatal(err)
			}
			w := l.Fallback
			if w == nil || w.RequestedID != requested || w.LoadedID != DefaultIdentityPackID || w.Cause == nil {
				t.Fatalf("fallback = %+v", w)
			}
			if l.Identity.PackID != DefaultIdentityPackID || l.Manifold.IdentityPackID() != DefaultIdentityPackID {
				t.Errorf("loaded %s", l.Identity.PackID)
			}
			if !strings.Contains(w.String(), "using 'default_general_v1' instead") || !strings.Contains(w.String(), pyRepr(requested)) {
				t.Errorf("warning = %q", w.String())
			}
		})
	}
}

// An unratified named pack in production falls back; the cause says why.
func TestIdentityFallbackOnUnratified(t *testing.T) {
	dir := t.TempDir()
	copyTree(t, originalPacks(t), dir, SafetyDir, IdentityDir)
	writeFile(t, filepath.Join(dir, IdentityDir), "draft_v1.json", marshal(t, minimalIdentity("draft_v1")))
	l, err := Load(t.Context(), Options{Dir: dir, IdentityPackID: "draft_v1"})
	if err != nil {
		t.Fatal(err)
	}
	if l.Fallback == nil || l.Fallback.Cause.Reason != ReasonNotRatified {
		t.Fatalf("fallback = %+v", l.Fallback)
	}
	// With the identity override the draft loads as asked.
	l, err = Load(t.Context(), Options{Dir: dir, IdentityPackID: "draft_v1", AllowUnratifiedIdentity: true})
	if err != nil {
		t.Fatal(err)
	}
	if l.Fallback != nil || l.Identity.PackID != "draft_v1" {
		t.Errorf("loaded %s, fallback %+v", l.Identity.PackID, l.Fallback)
	}
}

// The default pack has nothing to fall back to; its failure is returned.
func TestDefaultIdentityFailureIsAnError(t *testing.T) {
	dir := t.TempDir()
	copyTree(t, originalPacks(t), dir, SafetyDir)
	if err := os.Mkdir(filepath.Join(dir, IdentityDir), 0o755); err != nil {
		t.Fatal(err)
	}
	_, err := Load(t.Context(), Options{Dir: dir})
	wantIdentityError(t, err, ReasonNotFound, "identity pack 'default_general_v1' not found")
	_, err = Load(t.Context(), Options{Dir: dir, IdentityPackID: "precision_first_v1"})
	wantIdentityError(t, err, ReasonNotFound, "'default_general_v1'")
}

// The safety pack never falls back, whatever the identity.
func TestLoadFailsClosedOnSafety(t *testing.T) {
	dir := t.TempDir()
	copyTree(t, originalPacks(t), dir, IdentityDir)
	if err := os.Mkdir(filepath.Join(dir, SafetyDir), 0o755); err != nil {
		t.Fatal(err)
	}
	_, err := Load(t.Context(), Options{Dir: dir})
	wantSafetyError(t, err, ReasonNotFound, "refusing to start")
	var ipe *IdentityPackError
	if errors.As(err, &ipe) {
		t.Error("a safety failure must not be an identity error")
	}
}

// The packs this project ships are ratified by `formation pack ratify`, so
// they load in production; they also load under the development override.
func TestShippedPacksLoadUnderOverride(t *testing.T) {
	prod, err := Load(t.Context(), Options{Dir: shippedPacks(t)})
	if err != nil || !prod.Safety.Ratified {
		t.Fatalf("shipped packs in production: %v", err)
	}
	l, err := Load(t.Context(), Options{Dir: shippedPacks(t), AllowUnratifiedSafety: true, AllowUnratifiedIdentity: true})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(l.Manifold.BoundaryIDs(), fiveBoundaries) || l.Manifold.AlignmentThreshold() != 0.45 {
		t.Errorf("manifold %v %v", l.Manifold.BoundaryIDs(), l.Manifold.AlignmentThreshold())
	}
}

func TestComposeNilFailsClosed(t *testing.T) {
	id := loadOriginal(t, "").Identity
	_, err := Compose(id, nil)
	wantSafetyError(t, err, ReasonPackMissing)
	_, err = Compose(id, &SafetyPack{PackID: "x"})
	wantSafetyError(t, err, ReasonPackMissing)
	_, err = Compose(nil, &SafetyPack{PackID: "x", BoundaryIDs: []string{"a"}})
	wantIdentityError(t, err, ReasonPackMissing)
}

// The hash is pinned so that any change to what it covers is deliberate.
func TestManifoldHashGolden(t *testing.T) {
	m := loadOriginal(t, "").Manifold
	const want = "492e0c79cd43732b6b1bd70f66108703eb49767113fd0f07a2132beca16d0c1f" // checked against Python's json.dumps(sort_keys=True, separators=(",", ":"), ensure_ascii=False)
	if got := m.Hash(); got != want {
		t.Errorf("hash = %s, want %s\ncanonical: %s", got, want, marshalManifold(t, m))
	}
}

func marshalManifold(t *testing.T, m *Manifold) string {
	b, err := m.CanonicalJSON()
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestManifoldHashProperties(t *testing.T) {
	hexHash := regexp.MustCompile(`^[0-9a-f]{64}$`)
	a := loadOriginal(t, "").Manifold
	b := loadOriginal(t, "").Manifold
	if !hexHash.MatchString(a.Hash()) || a.Hash() != b.Hash() {
		t.Fatalf("hashes %s %s", a.Hash(), b.Hash())
	}
	p := loadOriginal(t, "precision_first_v1").Manifold
	if p.Hash() == a.Hash() {
		t.Error("different identities hash alike")
	}
	// The canonical form holds no floats and parses strictly.
	js := marshalManifold(t, a)
	if _, err := canon.Decode([]byte(js)); err != nil {
		t.Errorf("canonical manifold is not strict canonical JSON: %v", err)
	}
	for _, frag := range []string{`"alignment_threshold":"0.45"`, `"direction":["1","0","0"]`, `"weight":"1"`, `"hedge_threshold_strong":"0.4"`} {
		if !strings.Contains(js, frag) {
			t.Errorf("canonical manifold lacks %s: %s", frag, js)
		}
	}
}

// Accessors hand out copies: editing them cannot change the manifold.
func TestManifoldImmutable(t *testing.T) {
	m := loadOriginal(t, "").Manifold
	before := m.Hash()
	axes := m.ValueAxes()
	axes[0].Direction[0] = -1
	axes[0].AxisID = "obedience"
	ids := m.BoundaryIDs()
	ids[0] = "nothing"
	prefs := m.SurfacePreferences()
	prefs.AxisHedges[0].Strong = "Obviously"
	prefs.HedgeThresholdStrong = 0
	if m.Hash() != before {
		t.Error("editing an accessor's result changed the manifold")
	}
	if m.ValueAxes()[0].AxisID != "truthfulness" || m.BoundaryIDs()[0] != "no_fabricated_source" {
		t.Error("manifold contents changed")
	}
}

// Composition copies the packs: later edits to them do not reach the manifold.
func TestComposeCopiesPacks(t *testing.T) {
	l := loadOriginal(t, "")
	before := l.Manifold.Hash()
	l.Identity.ValueAxes[0].Weight = 9
	l.Identity.BoundaryIDs[0] = "x"
	l.Safety.BoundaryIDs[0] = "y"
	l.Identity.SurfacePreferences.AxisHedges[0].Soft = "z"
	if l.Manifold.Hash() != before {
		t.Error("editing a pack after composition changed the manifold")
	}
}

// 0.45 as a float, "0.45" and "0.450" are one value and hash alike.
func TestManifoldHashIgnoresNumberSpelling(t *testing.T) {
	safety := loadOriginal(t, "").Safety
	var hashes []string
	for _, spelling := range []string{`0.45`, `"0.45"`, `"0.450"`, `4.5e-1`} {
		dir := t.TempDir()
		o := minimalIdentity("i_v1")
		o.Set("alignment_threshold", "PLACEHOLDER")
		data := strings.Replace(string(marshal(t, o)), `"PLACEHOLDER"`, spelling, 1)
		writeFile(t, dir, "i_v1.json", []byte(data))
		id, err := LoadIdentityPack(t.Context(), "i_v1", devOptions(dir))
		if err != nil {
			t.Fatalf("%s: %v", spelling, err)
		}
		m, err := Compose(id, safety)
		if err != nil {
			t.Fatal(err)
		}
		hashes = append(hashes, m.Hash())
	}
	for _, h := range hashes[1:] {
		if h != hashes[0] {
			t.Errorf("hashes differ by spelling: %v", hashes)
		}
	}
}

// The runtime's per-turn use: hash before and after, feed the check.
func TestManifoldHashFeedsIdentityPredicate(t *testing.T) {
	m := loadOriginal(t, "precision_first_v1").Manifold
	before := m.Hash()
	v, err := NewSafetyCheck().CheckManifold(SafetyContext{IdentityHashBefore: before, IdentityHashAfter: m.Hash()}, m)
	if err != nil {
		t.Fatal(err)
	}
	if !v.Upheld || v.PackID != DefaultSafetyPackID || len(v.Results) != 6 {
		t.Fatalf("verdict = %+v", v)
	}
	r := resultFor(t, v, BoundaryNoIdentityOverride)
	if !r.RuntimeCheckable {
		t.Error("identity predicate did not check")
	}
	if o := resultFor(t, v, "no_overstatement"); o.RuntimeCheckable || !o.Upheld {
		t.Errorf("identity-declared boundary: %+v", o)
	}
	other := loadOriginal(t, "generosity_first_v1").Manifold
	v, _ = NewSafetyCheck().CheckManifold(SafetyContext{IdentityHashBefore: before, IdentityHashAfter: other.Hash()}, m)
	if v.Upheld || !slices.Equal(v.Violated, []string{BoundaryNoIdentityOverride}) {
		t.Errorf("swapped manifold not caught: %+v", v.Violated)
	}
}

// copyTree copies the named sub-folders of src into dst.
func copyTree(t *testing.T, src, dst string, subs ...string) {
	t.Helper()
	for _, sub := range subs {
		if err := os.MkdirAll(filepath.Join(dst, sub), 0o755); err != nil {
			t.Fatal(err)
		}
		entries, err := os.ReadDir(filepath.Join(src, sub))
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			if e.Type().IsRegular() {
				writeFile(t, filepath.Join(dst, sub), e.Name(), readFile(t, filepath.Join(src, sub, e.Name())))
			}
		}
	}
}
