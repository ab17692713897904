package packs

import (
	"errors"
	"path/filepath"
	"testing"

	"formation/canon"
)

// FuzzLoadSafetyPack feeds arbitrary bytes to the loader as the default
// safety pack, beside the original's real companion report, in development
// and production mode. The loader must never panic, must fail only with a
// *SafetyPackError, and every pack it accepts must satisfy every bound.
func FuzzLoadSafetyPack(f *testing.F) {
	original := readFile(f, filepath.Join(originalSafetyDir(f), DefaultSafetyPackID+".json"))
	f.Add(original)
	f.Add(readFile(f, filepath.Join(shippedPacks(f), SafetyDir, DefaultSafetyPackID+".json")))
	f.Add([]byte(`{"pack_id":"core_safety_axes_v1","version":"1","description":"d","schema_version":"1.0.0","boundary_ids":["a"]}`))
	f.Add([]byte(`{"pack_id":"core_safety_axes_v1","version":"1","description":"d","schema_version":"1.0.0","boundary_ids":["a","a"]}`))
	f.Add([]byte(`{"pack_id":"core_safety_axes_v1","version":1.5,"description":"d","schema_version":"1.0.0","boundary_ids":[""]}`))
	f.Add([]byte(`{"pack_id":"../x","schema_version":"1.0.0"}`))
	f.Add([]byte(`[1,2,3]`))
	f.Add([]byte{})

	dir := f.TempDir()
	report := readFile(f, filepath.Join(originalSafetyDir(f), DefaultSafetyPackID+".mastery_report.json"))
	writeFile(f, dir, DefaultSafetyPackID+".mastery_report.json", report)
	declared, _ := decodeObject(f, original).String("mastery_report_sha256")

	f.Fuzz(func(t *testing.T, data []byte) {
		writeFile(t, dir, DefaultSafetyPackID+".json", data)
		for _, allow := range []bool{true, false} {
			pack, err := LoadSafetyPack(t.Context(), DefaultSafetyPackID, LoadOptions{SearchPaths: []string{dir}, AllowUnratified: allow})
			if err != nil {
				var spe *SafetyPackError
				if !errors.As(err, &spe) || spe.Reason == "" || spe.Error() == "" {
					t.Fatalf("untyped or empty refusal: %T %v", err, err)
				}
				continue
			}
			assertSafetyBounds(t, data, pack)
			if !allow && (!pack.Ratified || pack.MasteryReportSHA256 != declared) {
				t.Fatalf("production accepted an unverified pack: %+v", pack)
			}
			if allow && pack.Ratified {
				t.Fatal("development load claims ratification")
			}
		}
	})
}

// assertSafetyBounds checks that an accepted pack is within the loader's
// bounds (the default pack id, the schema version, non-empty sorted unique
// boundaries, one description for each and no other), re-reading the raw
// bytes independently of the loader.
func assertSafetyBounds(t *testing.T, data []byte, pack *SafetyPack) {
	t.Helper()
	doc, err := canon.DecodeTolerant(data)
	if err != nil {
		t.Fatalf("accepted bytes that do not decode: %v", err)
	}
	obj, ok := doc.(*canon.Object)
	if !ok {
		t.Fatal("accepted a non-object")
	}
	if id, _ := obj.String("pack_id"); id != DefaultSafetyPackID || pack.PackID != id || !validPackID(id) {
		t.Fatalf("pack id %q / %q", id, pack.PackID)
	}
	if v, _ := obj.String("schema_version"); v != SchemaVersion || pack.SchemaVersion != SchemaVersion {
		t.Fatalf("schema version %q", v)
	}
	raw, _ := obj.Get("boundary_ids")
	list, _ := raw.([]any)
	if len(pack.BoundaryIDs) == 0 || len(list) != len(pack.BoundaryIDs) {
		t.Fatalf("boundaries %v from %v", pack.BoundaryIDs, raw)
	}
	for i, b := range pack.BoundaryIDs {
		if b == "" || (i > 0 && pack.BoundaryIDs[i-1] >= b) {
			t.Fatalf("boundaries not non-empty, unique and sorted: %q", pack.BoundaryIDs)
		}
		if _, ok := pack.BoundaryDescriptions[b]; !ok {
			t.Fatalf("no description entry for %q", b)
		}
	}
	if len(pack.BoundaryDescriptions) != len(pack.BoundaryIDs) {
		t.Fatalf("descriptions for undeclared boundaries: %v", pack.BoundaryDescriptions)
	}
}

// FuzzLoadIdentityPack does the same for identity packs, whose numbers come
// in three spellings: accepted packs respect every range and compose into a
// manifold with a real hash.
func FuzzLoadIdentityPack(f *testing.F) {
	for _, id := range []string{"default_general_v1", "precision_first_v1", "generosity_first_v1"} {
		f.Add(readFile(f, filepath.Join(originalIdentityDir(f), id+".json")))
	}
	f.Add(readFile(f, filepath.Join(shippedPacks(f), IdentityDir, DefaultIdentityPackID+".json")))
	f.Add([]byte(`{"pack_id":"default_general_v1","version":"1","description":"d","schema_version":"1.0.0","alignment_threshold":"0.5","boundary_ids":[],"value_axes":[{"name":"a","direction":[1,0,0]}]}`))
	f.Add([]byte(`{"pack_id":"default_general_v1","version":"1","description":"d","schema_version":"1.0.0","alignment_threshold":1e-1,"boundary_ids":["x"],"value_axes":[{"name":"a","direction":["-1","0.5",0.25],"weight":"10"}]}`))

	dir := f.TempDir()
	safety := &SafetyPack{PackID: DefaultSafetyPackID, BoundaryIDs: DefaultBoundaryIDs()}
	f.Fuzz(func(t *testing.T, data []byte) {
		writeFile(t, dir, DefaultIdentityPackID+".json", data)
		pack, err := LoadIdentityPack(t.Context(), DefaultIdentityPackID, LoadOptions{SearchPaths: []string{dir}, AllowUnratified: true})
		if err != nil {
			var ipe *IdentityPackError
			if !errors.As(err, &ipe) || ipe.Reason == "" || ipe.Error() == "" {
				t.Fatalf("untyped or empty refusal: %T %v", err, err)
			}
			return
		}
		assertIdentityBounds(t, pack)
		m, err := Compose(pack, safety)
		if err != nil {
			t.Fatalf("accepted pack does not compose: %v", err)
		}
		if h := m.Hash(); len(h) != 64 || h != m.Hash() {
			t.Fatalf("manifold hash %q", h)
		}
	})
}

func assertIdentityBounds(t *testing.T, pack *IdentityPack) {
	t.Helper()
	if !inRange(pack.AlignmentThreshold, 0, 1) || len(pack.ValueAxes) == 0 {
		t.Fatalf("threshold %v axes %d", pack.AlignmentThreshold, len(pack.ValueAxes))
	}
	seen := map[string]bool{}
	for _, a := range pack.ValueAxes {
		if a.AxisID == "" || a.Name == "" || seen[a.AxisID] || !inRange(a.Weight, 0, MaxAxisWeight) {
			t.Fatalf("axis %+v", a)
		}
		seen[a.AxisID] = true
		for _, x := range a.Direction {
			if !inRange(x, -1, 1) {
				t.Fatalf("direction %v", a.Direction)
			}
		}
	}
	p := pack.SurfacePreferences
	if !(0 <= p.HedgeThresholdStrong && p.HedgeThresholdStrong <= p.HedgeThresholdSoft &&
		p.HedgeThresholdSoft <= p.QualifiedBandHigh && p.QualifiedBandHigh <= 1) {
		t.Fatalf("preferences %+v", p)
	}
	for _, h := range p.AxisHedges {
		if !seen[h.AxisID] {
			t.Fatalf("hedge for unknown axis %q", h.AxisID)
		}
	}
}
