package packs

import (
	"errors"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"formation/canon"
)

// The original's three identity packs load in production mode: they hold
// floats and carry verified companion reports.
func TestLoadOriginalIdentityPacks(t *testing.T) {
	want := map[string]struct {
		threshold float64
		weights   [3]float64
		extra     []string
		claim     string
	}{
		"default_general_v1":  {0.45, [3]float64{1, 1, 1}, nil, ClaimBalanced},
		"precision_first_v1":  {0.55, [3]float64{2, 0.7, 0.7}, []string{"no_overstatement"}, ClaimQualified},
		"generosity_first_v1": {0.4, [3]float64{}, nil, ClaimAffirmative},
	}
	ids, err := AvailableIdentityPacks(t.Context(), []string{originalIdentityDir(t)})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(ids, []string{"default_general_v1", "generosity_first_v1", "precision_first_v1"}) {
		t.Fatalf("available = %v", ids)
	}
	for id, w := range want {
		pack, err := LoadIdentityPack(t.Context(), id, prodOptions(originalIdentityDir(t)))
		if err != nil {
			t.Fatalf("%s: %v", id, err)
		}
		if !pack.Ratified || pack.AlignmentThreshold != w.threshold || pack.SurfacePreferences.ClaimStrength != w.claim {
			t.Errorf("%s: ratified %v threshold %v claim %s", id, pack.Ratified, pack.AlignmentThreshold, pack.SurfacePreferences.ClaimStrength)
		}
		var axisIDs []string
		for _, a := range pack.ValueAxes {
			axisIDs = append(axisIDs, a.AxisID)
		}
		if !slices.Equal(axisIDs, []string{"truthfulness", "coherence", "reverence"}) {
			t.Errorf("%s: axes %v", id, axisIDs)
		}
		if id != "generosity_first_v1" {
			for i, a := range pack.ValueAxes {
				if a.Weight != w.weights[i] {
					t.Errorf("%s: axis %s weight %v, want %v", id, a.AxisID, a.Weight, w.weights[i])
				}
			}
		}
		for _, b := range w.extra {
			if !slices.Contains(pack.BoundaryIDs, b) {
				t.Errorf("%s lacks boundary %s", id, b)
			}
		}
		if got := len(pack.SurfacePreferences.AxisHedges); got != 3 {
			t.Errorf("%s: %d axis hedges", id, got)
		}
	}
}

func TestPrecisionPackValues(t *testing.T) {
	pack, err := LoadIdentityPack(t.Context(), "precision_first_v1", prodOptions(originalIdentityDir(t)))
	if err != nil {
		t.Fatal(err)
	}
	if pack.ValueAxes[1].Direction != [3]float64{0, 0.7, 0} {
		t.Errorf("coherence direction = %v", pack.ValueAxes[1].Direction)
	}
	p := pack.SurfacePreferences
	if p.HedgeThresholdStrong != 0.55 || p.HedgeThresholdSoft != 0.7 || p.QualifiedBandHigh != 0.85 ||
		p.PreferredHedgeStrong != "Arguably," || p.PreferredQualifier != "Under certain conditions," {
		t.Errorf("preferences = %+v", p)
	}
	hedgeIDs := []string{}
	for _, h := range p.AxisHedges {
		hedgeIDs = append(hedgeIDs, h.AxisID)
	}
	if !slices.Equal(hedgeIDs, []string{"coherence", "reverence", "truthfulness"}) {
		t.Errorf("axis hedges not sorted by axis id: %v", hedgeIDs)
	}
	if p.AxisHedges[2].Strong != "The evidence does not support that" {
		t.Errorf("truthfulness hedge = %+v", p.AxisHedges[2])
	}
}

// The shipped default identity pack: no floats, thresholds as decimal strings,
// unratified until the pipeline ratifies it.
func TestShippedIdentityPack(t *testing.T) {
	dir := filepath.Join(shippedPacks(t), IdentityDir)
	data := readFile(t, filepath.Join(dir, DefaultIdentityPackID+".json"))
	if _, err := canon.Decode(data); err != nil {
		t.Fatalf("shipped identity pack must hold no floats: %v", err)
	}
	pack, err := LoadIdentityPack(t.Context(), DefaultIdentityPackID, devOptions(dir))
	if err != nil {
		t.Fatal(err)
	}
	if pack.AlignmentThreshold != 0.45 || pack.Ratified {
		t.Errorf("threshold %v ratified %v", pack.AlignmentThreshold, pack.Ratified)
	}
	if d := pack.ValueAxes[0].Direction; d != [3]float64{1, 0, 0} {
		t.Errorf("truthfulness direction = %v", d)
	}
	p := pack.SurfacePreferences
	if p.HedgeThresholdStrong != 0.4 || p.HedgeThresholdSoft != 0.5 || p.QualifiedBandHigh != 0.75 {
		t.Errorf("preferences = %+v", p)
	}
	// `formation pack ratify` wrote its companion report: production loads it.
	ratified, err := LoadIdentityPack(t.Context(), DefaultIdentityPackID, prodOptions(dir))
	if err != nil || !ratified.Ratified {
		t.Fatalf("the shipped identity pack, ratified by the pipeline, does not load in production: %v", err)
	}
}

// minimalIdentity is a valid unratified identity pack whose numbers use all
// three spellings.
func minimalIdentity(id string) *canon.Object {
	axis := canon.NewObject()
	axis.Set("name", "truthfulness")
	axis.Set("direction", []any{canon.Number("1"), "0", canon.Number("0")})
	o := canon.NewObject()
	o.Set("pack_id", id)
	o.Set("version", "1.0.0")
	o.Set("description", "test identity")
	o.Set("schema_version", "1.0.0")
	o.Set("alignment_threshold", "0.5")
	o.Set("boundary_ids", []any{})
	o.Set("value_axes", []any{axis})
	return o
}

func TestIdentityDefaults(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "i_v1.json", marshal(t, minimalIdentity("i_v1")))
	pack, err := LoadIdentityPack(t.Context(), "i_v1", devOptions(dir))
	if err != nil {
		t.Fatal(err)
	}
	a := pack.ValueAxes[0]
	if a.AxisID != "truthfulness" || a.Weight != DefaultAxisWeight || a.TheologicalNote != "" {
		t.Errorf("axis defaults: %+v", a)
	}
	d := DefaultSurfacePreferences()
	p := pack.SurfacePreferences
	if p.HedgeThresholdStrong != d.HedgeThresholdStrong || p.PreferredHedgeSoft != d.PreferredHedgeSoft || p.ClaimStrength != ClaimBalanced || len(p.AxisHedges) != 0 {
		t.Errorf("preference defaults: %+v", p)
	}
	if len(pack.BoundaryIDs) != 0 {
		t.Errorf("boundaries = %v", pack.BoundaryIDs)
	}
}

func TestIdentityLoaderRefusals(t *testing.T) {
	axisWith := func(edit func(*canon.Object)) func(*canon.Object) {
		return func(o *canon.Object) {
			a := canon.NewObject()
			a.Set("name", "truthfulness")
			a.Set("direction", []any{canon.Number("1"), canon.Number("0"), canon.Number("0")})
			edit(a)
			o.Set("value_axes", []any{a})
		}
	}
	prefsWith := func(key string, v any) func(*canon.Object) {
		return func(o *canon.Object) {
			p := canon.NewObject()
			p.Set(key, v)
			o.Set("surface_preferences", p)
		}
	}
	hedge := func(strong any) *canon.Object {
		h := canon.NewObject()
		h.Set("strong", strong)
		h.Set("soft", "a")
		h.Set("qualifier", "b")
		return h
	}
	hedgesFor := func(axis string, h any) func(*canon.Object) {
		m := canon.NewObject()
		m.Set(axis, h)
		return prefsWith("axis_hedges", m)
	}
	cases := []struct {
		name   string
		edit   func(*canon.Object)
		reason Reason
		frag   string
	}{
		{"missing threshold", func(o *canon.Object) { o.Delete("alignment_threshold") }, ReasonMissingFields, "missing required fields: ['alignment_threshold']"},
		{"missing axes", func(o *canon.Object) { o.Delete("value_axes") }, ReasonMissingFields, "['value_axes']"},
		{"schema", func(o *canon.Object) { o.Set("schema_version", "1.0") }, ReasonUnsupportedSchema, "unsupported schema_version '1.0'"},
		{"declared id", func(o *canon.Object) { o.Set("pack_id", "j_v1") }, ReasonPackIDMismatch, "declares pack_id='j_v1'"},
		{"threshold above 1", func(o *canon.Object) { o.Set("alignment_threshold", canon.Float("1.5")) }, ReasonInvalidThreshold, "alignment_threshold"},
		{"threshold negative", func(o *canon.Object) { o.Set("alignment_threshold", "-0.1") }, ReasonInvalidThreshold, "[0, 1]"},
		{"threshold exponent string", func(o *canon.Object) { o.Set("alignment_threshold", "4.5e-1") }, ReasonInvalidThreshold, "alignment_threshold"},
		{"threshold word", func(o *canon.Object) { o.Set("alignment_threshold", "NaN") }, ReasonInvalidThreshold, "alignment_threshold"},
		{"threshold bool", func(o *canon.Object) { o.Set("alignment_threshold", true) }, ReasonInvalidThreshold, "alignment_threshold"},
		{"boundaries not list", func(o *canon.Object) { o.Set("boundary_ids", "x") }, ReasonInvalidBoundaries, "boundary_ids must be a list"},
		{"duplicate boundary", func(o *canon.Object) { o.Set("boundary_ids", []any{"x", "x"}) }, ReasonDuplicateBoundary, "duplicate boundary_id 'x'"},
		{"no axes", func(o *canon.Object) { o.Set("value_axes", []any{}) }, ReasonInvalidAxes, "value_axes must be a non-empty list"},
		{"axis not object", func(o *canon.Object) { o.Set("value_axes", []any{"x"}) }, ReasonInvalidAxes, "value_axes[0] must be an object"},
		{"axis without name", axisWith(func(a *canon.Object) { a.Delete("name") }), ReasonInvalidAxes, "value_axes[0].name"},
		{"axis id empty", axisWith(func(a *canon.Object) { a.Set("axis_id", "") }), ReasonInvalidAxes, "value_axes[0].axis_id"},
		{"direction short", axisWith(func(a *canon.Object) { a.Set("direction", []any{canon.Number("1"), canon.Number("0")}) }), ReasonInvalidAxes, "exactly 3 numbers"},
		{"direction out of range", axisWith(func(a *canon.Object) {
			a.Set("direction", []any{canon.Float("1.01"), canon.Number("0"), canon.Number("0")})
		}), ReasonInvalidAxes, "[-1, 1]"},
		{"direction huge float", axisWith(func(a *canon.Object) {
			a.Set("direction", []any{canon.Float("1e999"), canon.Number("0"), canon.Number("0")})
		}), ReasonInvalidAxes, "direction"},
		{"weight too big", axisWith(func(a *canon.Object) { a.Set("weight", canon.Number("11")) }), ReasonInvalidAxes, "weight must be a number in [0, 10]"},
		{"note not string", axisWith(func(a *canon.Object) { a.Set("theological_note", canon.Number("1")) }), ReasonInvalidAxes, "theological_note"},
		{"duplicate axis", func(o *canon.Object) {
			v, _ := o.Get("value_axes")
			o.Set("value_axes", append(v.([]any), v.([]any)[0]))
		}, ReasonInvalidAxes, "duplicate axis_id 'truthfulness'"},
		{"prefs not object", func(o *canon.Object) { o.Set("surface_preferences", []any{}) }, ReasonInvalidPreferences, "surface_preferences must be an object"},
		{"pref out of range", prefsWith("hedge_threshold_soft", canon.Number("2")), ReasonInvalidPreferences, "hedge_threshold_soft must be a number in [0, 1]"},
		{"prefs disordered", prefsWith("hedge_threshold_strong", "0.9"), ReasonInvalidPreferences, "must order"},
		{"hedge empty", prefsWith("preferred_hedge_soft", ""), ReasonInvalidPreferences, "preferred_hedge_soft must be a string of 1 to 64 characters"},
		{"hedge long", prefsWith("preferred_qualifier", strings.Repeat("é", 65)), ReasonInvalidPreferences, "preferred_qualifier"},
		{"claim strength", prefsWith("claim_strength", "bold"), ReasonInvalidPreferences, "claim_strength must be one of ['balanced', 'qualified', 'affirmative']"},
		{"axis hedges not object", prefsWith("axis_hedges", "x"), ReasonInvalidPreferences, "axis_hedges must be an object"},
		{"axis hedge unknown axis", hedgesFor("candour", hedge("x")), ReasonInvalidPreferences, "axis_hedges['candour'] names no value axis"},
		{"axis hedge not object", hedgesFor("truthfulness", "x"), ReasonInvalidPreferences, "axis_hedges['truthfulness'] must be an object"},
		{"axis hedge phrase", hedgesFor("truthfulness", hedge(canon.Number("1"))), ReasonInvalidPreferences, "axis_hedges['truthfulness'].strong"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			o := minimalIdentity("i_v1")
			c.edit(o)
			data, err := canon.Marshal(o)
			if err != nil { // canon.Float cannot be marshalled; write the float by hand
				data = []byte(floatText(t, o))
			}
			writeFile(t, dir, "i_v1.json", data)
			_, err = LoadIdentityPack(t.Context(), "i_v1", devOptions(dir))
			wantIdentityError(t, err, c.reason, c.frag)
		})
	}
}

// floatText writes an object holding canon.Float values as JSON text, the
// way the original's pack files carry floats.
func floatText(t *testing.T, v any) string {
	t.Helper()
	switch x := v.(type) {
	case canon.Float:
		return string(x)
	case *canon.Object:
		parts := []string{}
		for _, k := range x.Keys() {
			val, _ := x.Get(k)
			parts = append(parts, string(marshal(t, k))+":"+floatText(t, val))
		}
		return "{" + strings.Join(parts, ",") + "}"
	case []any:
		parts := []string{}
		for _, e := range x {
			parts = append(parts, floatText(t, e))
		}
		return "[" + strings.Join(parts, ",") + "]"
	}
	return string(marshal(t, v))
}

func TestIdentityPathAndRatification(t *testing.T) {
	_, err := LoadIdentityPack(t.Context(), "../identity/default_general_v1", prodOptions(originalIdentityDir(t)))
	wantIdentityError(t, err, ReasonInvalidPackID, "invalid identity pack_id")
	_, err = LoadIdentityPack(t.Context(), "absent_v1", prodOptions(originalIdentityDir(t)))
	wantIdentityError(t, err, ReasonNotFound, "identity pack 'absent_v1' not found")
	dir := t.TempDir()
	o := minimalIdentity("i_v1")
	o.Set("mastery_report_sha256", strings.Repeat("0", 64))
	writeFile(t, dir, "i_v1.json", marshal(t, o))
	_, err = LoadIdentityPack(t.Context(), "i_v1", prodOptions(dir))
	wantIdentityError(t, err, ReasonReportMissing, "companion report 'i_v1.mastery_report.json' is missing")
	if !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("cause not exposed: %v", err)
	}
}

func TestAvailableIdentityPacksSkipsNonPacks(t *testing.T) {
	first, second := t.TempDir(), t.TempDir()
	writeFile(t, first, "b_v1.json", marshal(t, minimalIdentity("b_v1")))
	writeFile(t, first, "b_v1.mastery_report.json", []byte(`{"schema_version":"1.0.0","value_axes":[]}`))
	writeFile(t, first, "notes.json", []byte(`{"schema_version":"1.0.0"}`))
	writeFile(t, first, "broken.json", []byte(`{`))
	writeFile(t, first, "readme.txt", []byte(`x`))
	writeFile(t, second, "a_v1.json", marshal(t, minimalIdentity("a_v1")))
	writeFile(t, second, "b_v1.json", marshal(t, minimalIdentity("b_v1")))
	ids, err := AvailableIdentityPacks(t.Context(), []string{first, second, filepath.Join(first, "absent")})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(ids, []string{"a_v1", "b_v1"}) {
		t.Errorf("available = %v", ids)
	}
}
