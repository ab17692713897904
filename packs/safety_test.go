package packs

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"formation/canon"
	"formation/seal"
)

var fiveBoundaries = []string{
	"no_fabricated_source",
	"no_hot_path_repair",
	"no_identity_override",
	"no_silent_correction",
	"preserve_versor_closure",
}

// The shipping (ratified) pack loads with its five boundaries.
func TestLoadsShippingPack(t *testing.T) {
	pack, err := LoadSafetyPack(t.Context(), DefaultSafetyPackID, prodOptions(originalSafetyDir(t)))
	if err != nil {
		t.Fatal(err)
	}
	if pack.PackID != DefaultSafetyPackID {
		t.Errorf("pack id = %q", pack.PackID)
	}
	if !slices.Equal(pack.BoundaryIDs, fiveBoundaries) {
		t.Errorf("boundaries = %v, want %v", pack.BoundaryIDs, fiveBoundaries)
	}
	if !pack.Ratified {
		t.Error("a pack whose companion report verified must be Ratified")
	}
	for _, b := range pack.BoundaryIDs {
		if pack.BoundaryDescriptions[b] == "" {
			t.Errorf("boundary %s has no description", b)
		}
	}
	const wantSHA = "ee1249acdf8c273aeb656d803c37ef915e536d85f177f5cc18c6e2f6c995ce29"
	if pack.MasteryReportSHA256 != wantSHA {
		t.Errorf("mastery report sha = %s", pack.MasteryReportSHA256)
	}
}

// The zero-value options are production mode, and they accept the ratified
// pack.
func TestLoadsInProductionModeByDefault(t *testing.T) {
	var opts LoadOptions
	if opts.AllowUnratified {
		t.Fatal("zero-value options must require ratification")
	}
	opts.SearchPaths = []string{originalSafetyDir(t)}
	pack, err := LoadSafetyPack(t.Context(), DefaultSafetyPackID, opts)
	if err != nil {
		t.Fatal(err)
	}
	if !pack.Ratified {
		t.Error("production load must verify the report")
	}
}

// A missing pack file fails closed: the error refuses to start without an
// operative safety pack and names the directory searched.
func TestMissingPackFailsClosed(t *testing.T) {
	empty := t.TempDir()
	_, err := LoadSafetyPack(t.Context(), DefaultSafetyPackID, devOptions(empty))
	wantSafetyError(t, err, ReasonNotFound, "not found", "refusing to start without an operative safety pack", pyRepr(empty))
}

// An id with a path separator or a parent-directory step is refused before it
// reaches the file system, and so is every other id outside the id rule (for
// example empty, hidden, or holding a NUL byte or a space).
func TestPathTraversalRejected(t *testing.T) {
	for _, id := range []string{"../../etc/passwd", "", "a/b", "..", "a..b", ".hidden", `a\b`, "a\x00b", "sp ace"} {
		_, err := LoadSafetyPack(t.Context(), id, devOptions(originalSafetyDir(t)))
		wantSafetyError(t, err, ReasonInvalidPackID, "invalid safety pack_id")
	}
}

// A pack with an empty mastery_report_sha256 is not ratified, and production
// mode refuses it.
func TestUnratifiedPackRefusedInProduction(t *testing.T) {
	dir := originalSafetyCopy(t, func(p *canon.Object) { p.Set("mastery_report_sha256", "") })
	_, err := LoadSafetyPack(t.Context(), DefaultSafetyPackID, prodOptions(dir))
	wantSafetyError(t, err, ReasonNotRatified, "not ratified", "mastery_report_sha256 empty")
}

// A pack that declares a report digest but has no companion report beside it
// is refused in production mode.
func TestMissingCompanionReportRefused(t *testing.T) {
	dir := originalSafetyCopy(t, func(p *canon.Object) { p.Set("mastery_report_sha256", strings.Repeat("0", 64)) })
	if err := os.Remove(filepath.Join(dir, DefaultSafetyPackID+".mastery_report.json")); err != nil {
		t.Fatal(err)
	}
	_, err := LoadSafetyPack(t.Context(), DefaultSafetyPackID, prodOptions(dir))
	wantSafetyError(t, err, ReasonReportMissing, "companion report", "'core_safety_axes_v1.mastery_report.json' is missing")
}

// The report carries the digest the pack declares, but the
// digest is not the seal of the report's content.
func TestCompanionSealFailureRefused(t *testing.T) {
	dir := originalSafetyCopy(t, nil)
	reportPath := filepath.Join(dir, DefaultSafetyPackID+".mastery_report.json")
	report := decodeObject(t, readFile(t, reportPath))
	report.Set("issued_at", "2030-01-01T00:00:00Z")
	writeFile(t, dir, filepath.Base(reportPath), marshal(t, report))
	_, err := LoadSafetyPack(t.Context(), DefaultSafetyPackID, prodOptions(dir))
	wantSafetyError(t, err, ReasonReportSealInvalid, "self-seal", "seal mismatch")
}

// A pack with an empty boundary list is refused.
func TestEmptyBoundariesRefused(t *testing.T) {
	dir := t.TempDir()
	p := minimalSafety("x_v1")
	p.Set("boundary_ids", []any{})
	writeFile(t, dir, "x_v1.json", marshal(t, p))
	_, err := LoadSafetyPack(t.Context(), "x_v1", devOptions(dir))
	wantSafetyError(t, err, ReasonInvalidBoundaries, "boundary_ids", "must be a non-empty list")
}

// A pack that lists a boundary twice is refused.
func TestDuplicateBoundaryRefused(t *testing.T) {
	dir := t.TempDir()
	p := minimalSafety("x_v1")
	p.Set("boundary_ids", []any{"a", "b", "a"})
	writeFile(t, dir, "x_v1.json", marshal(t, p))
	_, err := LoadSafetyPack(t.Context(), "x_v1", devOptions(dir))
	wantSafetyError(t, err, ReasonDuplicateBoundary, "duplicate", "duplicate boundary_id 'a'")
}

// Every other refusal of the safety-pack loader, with its reason code and the
// original's text.
func TestSafetyLoaderRefusals(t *testing.T) {
	type tc struct {
		name   string
		data   string // raw file content; "" means build from edit
		edit   func(*canon.Object)
		reason Reason
		frags  []string
	}
	cases := []tc{
		{name: "malformed json", data: `{"pack_id": `, reason: ReasonUnreadable, frags: []string{"failed to read safety pack"}},
		{name: "trailing data", data: `{} {}`, reason: ReasonUnreadable, frags: []string{"failed to read safety pack"}},
		{name: "duplicate key", data: `{"a":1,"a":2}`, reason: ReasonUnreadable, frags: []string{"duplicate_key"}},
		{name: "not an object", data: `["x"]`, reason: ReasonNotObject, frags: []string{"did not deserialize to a dict"}},
		{name: "missing fields", edit: func(o *canon.Object) { o.Delete("version"); o.Delete("boundary_ids") },
			reason: ReasonMissingFields, frags: []string{"safety pack 'x_v1' missing required fields: ['version', 'boundary_ids']"}},
		{name: "schema", edit: func(o *canon.Object) { o.Set("schema_version", "2.0.0") },
			reason: ReasonUnsupportedSchema, frags: []string{"unsupported schema_version '2.0.0'"}},
		{name: "schema not string", edit: func(o *canon.Object) { o.Set("schema_version", canon.Number("1")) },
			reason: ReasonUnsupportedSchema, frags: []string{"unsupported schema_version 1"}},
		{name: "declared id", edit: func(o *canon.Object) { o.Set("pack_id", "other_v1") },
			reason: ReasonPackIDMismatch, frags: []string{"safety pack file declares pack_id='other_v1' but was requested as 'x_v1'"}},
		{name: "version type", edit: func(o *canon.Object) { o.Set("version", canon.Number("1")) },
			reason: ReasonInvalidField, frags: []string{"version must be a string"}},
		{name: "sha type", edit: func(o *canon.Object) { o.Set("mastery_report_sha256", nil) },
			reason: ReasonInvalidField, frags: []string{"mastery_report_sha256 must be a string"}},
		{name: "boundaries not list", edit: func(o *canon.Object) { o.Set("boundary_ids", "a") },
			reason: ReasonInvalidBoundaries, frags: []string{"boundary_ids must be a non-empty list"}},
		{name: "empty boundary", edit: func(o *canon.Object) { o.Set("boundary_ids", []any{"a", ""}) },
			reason: ReasonInvalidBoundaries, frags: []string{"boundary_ids[1] must be a non-empty string"}},
		{name: "boundary not string", edit: func(o *canon.Object) { o.Set("boundary_ids", []any{canon.Number("3")}) },
			reason: ReasonInvalidBoundaries, frags: []string{"boundary_ids[0] must be a non-empty string"}},
		{name: "descriptions not dict", edit: func(o *canon.Object) { o.Set("boundary_descriptions", []any{}) },
			reason: ReasonInvalidDescriptions, frags: []string{"boundary_descriptions must be a dict"}},
		{name: "description not string", edit: func(o *canon.Object) {
			d := canon.NewObject()
			d.Set("a", true)
			o.Set("boundary_descriptions", d)
		}, reason: ReasonInvalidDescriptions, frags: []string{"boundary_descriptions['a'] must be a string"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			data := []byte(c.data)
			if c.edit != nil {
				p := minimalSafety("x_v1")
				c.edit(p)
				data = marshal(t, p)
			}
			writeFile(t, dir, "x_v1.json", data)
			_, err := LoadSafetyPack(t.Context(), "x_v1", devOptions(dir))
			wantSafetyError(t, err, c.reason, c.frags...)
		})
	}
}

// The ratification block's remaining refusals, each on a copy of the
// original's ratified pack.
func TestSafetyRatificationRefusals(t *testing.T) {
	cases := []struct {
		name   string
		pack   func(*canon.Object)
		report func(dir string)
		reason Reason
		frags  []string
	}{
		{name: "digest mismatch",
			pack:   func(p *canon.Object) { p.Set("mastery_report_sha256", strings.Repeat("ab", 32)) },
			reason: ReasonReportSHAMismatch,
			frags:  []string{"companion report SHA ee1249acdf8c... does not match pack's declared abababababab..."}},
		{name: "report not json",
			report: func(dir string) { writeFile(t, dir, reportName, []byte("{")) },
			reason: ReasonReportUnreadable, frags: []string{"failed to read companion report"}},
		{name: "report not object",
			report: func(dir string) { writeFile(t, dir, reportName, []byte(`"x"`)) },
			reason: ReasonReportNotObject, frags: []string{"companion report is not a JSON object"}},
		{name: "report holds a float",
			report: func(dir string) { addFloatToReport(t, dir) },
			reason: ReasonReportSealInvalid, frags: []string{"self-seal", "not canonicalisable"}},
		{name: "report not ratified",
			report: func(dir string) {
				editReport(t, dir, func(r *canon.Object) { r.Set("ratified", false) })
				resealReport(t, dir)
			},
			reason: ReasonNotRatified, frags: []string{"companion report has ratified=False"}},
		{name: "report lacks ratified",
			report: func(dir string) {
				editReport(t, dir, func(r *canon.Object) { r.Delete("ratified") })
				resealReport(t, dir)
			},
			reason: ReasonNotRatified, frags: []string{"ratified=None"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := originalSafetyCopy(t, c.pack)
			if c.report != nil {
				c.report(dir)
			}
			_, err := LoadSafetyPack(t.Context(), DefaultSafetyPackID, prodOptions(dir))
			wantSafetyError(t, err, c.reason, c.frags...)
		})
	}
}

// The development override skips the whole ratification block, exactly as
// the original's code did (its documentation claims it skips only the seal
// check).
func TestOverrideSkipsRatificationBlock(t *testing.T) {
	for name, edit := range map[string]func(*canon.Object){
		"empty sha":      func(p *canon.Object) { p.Set("mastery_report_sha256", "") },
		"absent sha":     func(p *canon.Object) { p.Delete("mastery_report_sha256") },
		"missing report": func(p *canon.Object) { p.Set("mastery_report_sha256", strings.Repeat("0", 64)) },
	} {
		t.Run(name, func(t *testing.T) {
			dir := originalSafetyCopy(t, edit)
			_ = os.Remove(filepath.Join(dir, DefaultSafetyPackID+".mastery_report.json"))
			pack, err := LoadSafetyPack(t.Context(), DefaultSafetyPackID, devOptions(dir))
			if err != nil {
				t.Fatal(err)
			}
			if pack.Ratified {
				t.Error("a pack loaded without verification must not claim Ratified")
			}
			if !slices.Equal(pack.BoundaryIDs, fiveBoundaries) {
				t.Errorf("boundaries = %v", pack.BoundaryIDs)
			}
		})
	}
}

// The override never rescues a missing file, empty boundaries or bad JSON.
func TestOverrideStillFailsClosed(t *testing.T) {
	dir := t.TempDir()
	_, err := LoadSafetyPack(t.Context(), "absent_v1", devOptions(dir))
	wantSafetyError(t, err, ReasonNotFound)
	writeFile(t, dir, "bad_v1.json", []byte("{not json"))
	_, err = LoadSafetyPack(t.Context(), "bad_v1", devOptions(dir))
	wantSafetyError(t, err, ReasonUnreadable)
	p := minimalSafety("empty_v1")
	p.Set("boundary_ids", []any{})
	writeFile(t, dir, "empty_v1.json", marshal(t, p))
	_, err = LoadSafetyPack(t.Context(), "empty_v1", devOptions(dir))
	wantSafetyError(t, err, ReasonInvalidBoundaries)
}

// The shipped pack: the original's five boundaries in this project's words,
// free of floats, and unratified until the pipeline ratifies it.
func TestShippedSafetyPack(t *testing.T) {
	dir := filepath.Join(shippedPacks(t), SafetyDir)
	data := readFile(t, filepath.Join(dir, DefaultSafetyPackID+".json"))
	if _, err := canon.Decode(data); err != nil {
		t.Fatalf("shipped pack must be strict canonical-JSON input (no floats): %v", err)
	}
	pack, err := LoadSafetyPack(t.Context(), DefaultSafetyPackID, devOptions(dir))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(pack.BoundaryIDs, fiveBoundaries) {
		t.Errorf("boundaries = %v", pack.BoundaryIDs)
	}
	original, err := LoadSafetyPack(t.Context(), DefaultSafetyPackID, prodOptions(originalSafetyDir(t)))
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range pack.BoundaryIDs {
		if pack.BoundaryDescriptions[b] == "" {
			t.Errorf("%s has no description", b)
		}
		if pack.BoundaryDescriptions[b] == original.BoundaryDescriptions[b] {
			t.Errorf("%s: description copied from the original", b)
		}
	}
	// The companion report comes from `formation pack ratify`: it names the
	// pack's identity_anchor course, and production loads the pack with it.
	ratified, err := LoadSafetyPack(t.Context(), DefaultSafetyPackID, prodOptions(dir))
	if err != nil || !ratified.Ratified {
		t.Fatalf("the shipped safety pack does not load in production: %v", err)
	}
	report := readFile(t, filepath.Join(dir, DefaultSafetyPackID+".mastery_report.json"))
	if !bytes.Contains(report, []byte(`"course_id": "course.subject.safety.core_safety_axes_v1.identity_anchor.1.0.0"`)) {
		t.Error("the companion report is not the pipeline's identity_anchor report for this pack")
	}
}

func TestFirstSearchPathWins(t *testing.T) {
	first, second := t.TempDir(), t.TempDir()
	a := minimalSafety("x_v1")
	a.Set("boundary_ids", []any{"from_first"})
	writeFile(t, first, "x_v1.json", marshal(t, a))
	writeFile(t, second, "x_v1.json", marshal(t, minimalSafety("x_v1")))
	pack, err := LoadSafetyPack(t.Context(), "x_v1", LoadOptions{SearchPaths: []string{t.TempDir(), first, second}, AllowUnratified: true})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(pack.BoundaryIDs, []string{"from_first"}) {
		t.Errorf("boundaries = %v", pack.BoundaryIDs)
	}
}

func TestDescriptionsDefaultAndExtrasDropped(t *testing.T) {
	dir := t.TempDir()
	p := minimalSafety("x_v1")
	d := canon.NewObject()
	d.Set("a", "kept")
	d.Set("zzz", "not a boundary")
	p.Set("boundary_descriptions", d)
	writeFile(t, dir, "x_v1.json", marshal(t, p))
	pack, err := LoadSafetyPack(t.Context(), "x_v1", devOptions(dir))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"a": "kept", "b": ""}
	if len(pack.BoundaryDescriptions) != 2 || pack.BoundaryDescriptions["a"] != want["a"] || pack.BoundaryDescriptions["b"] != "" {
		t.Errorf("descriptions = %v, want %v", pack.BoundaryDescriptions, want)
	}
	if !pack.HasBoundary("a") || pack.HasBoundary("zzz") {
		t.Error("HasBoundary disagrees with the declared boundaries")
	}
}

func TestOversizedPackRefused(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "x_v1.json", []byte(`"`+strings.Repeat("a", MaxPackBytes)+`"`))
	_, err := LoadSafetyPack(t.Context(), "x_v1", devOptions(dir))
	wantSafetyError(t, err, ReasonUnreadable, "larger than")
}

func TestCanceledContext(t *testing.T) {
	ctx, cancel := contextWithCancel(t)
	cancel()
	_, err := LoadSafetyPack(ctx, DefaultSafetyPackID, prodOptions(originalSafetyDir(t)))
	wantSafetyError(t, err, ReasonCanceled)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("cause not exposed: %v", err)
	}
}

const reportName = DefaultSafetyPackID + ".mastery_report.json"

func editReport(t testing.TB, dir string, edit func(*canon.Object)) {
	t.Helper()
	r := decodeObject(t, readFile(t, filepath.Join(dir, reportName)))
	edit(r)
	writeFile(t, dir, reportName, marshal(t, r))
}

// resealReport seals the (test-made) report again and makes the pack declare
// the new digest, so that only the edit under test is wrong.
func resealReport(t testing.TB, dir string) {
	t.Helper()
	r := decodeObject(t, readFile(t, filepath.Join(dir, reportName)))
	sealed, digest, err := seal.SelfSeal(r, seal.DefaultField)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, dir, reportName, marshal(t, sealed))
	p := decodeObject(t, readFile(t, filepath.Join(dir, DefaultSafetyPackID+".json")))
	p.Set("mastery_report_sha256", digest)
	writeFile(t, dir, DefaultSafetyPackID+".json", marshal(t, p))
}

// addFloatToReport puts a float into the report while keeping its declared
// digest: the original's verifier threw here; this one must refuse the seal.
func addFloatToReport(t testing.TB, dir string) {
	t.Helper()
	data := readFile(t, filepath.Join(dir, reportName))
	withFloat := strings.Replace(string(data), "{", `{"score": 0.5,`, 1)
	writeFile(t, dir, reportName, []byte(withFloat))
}

func contextWithCancel(t testing.TB) (context.Context, context.CancelFunc) {
	return context.WithCancel(t.Context())
}
