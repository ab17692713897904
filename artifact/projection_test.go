package artifact_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"formation/artifact"
	"formation/canon"
	"formation/internal/testutil"
)

func TestProjectionLiterals(t *testing.T) {
	src := []artifact.SourceRef{{SourceSHA: strings.Repeat("a", 64), Span: "span", Adapter: "wikipedia", RetrievedAt: "2026-05-16T00:00:00Z"}}
	vts := artifact.ValidatedTripleSet{
		SubjectID: "subject.x", SchemaVersion: artifact.SchemaVersion,
		Concepts: []artifact.ConceptCandidate{
			{CanonicalTerm: "wisdom", Definition: "judgment grounded in experience", Sources: src},
			{CanonicalTerm: "judgment", Definition: "reasoned decision", Sources: src},
		},
		Relations: []artifact.RelationCandidate{{Head: "wisdom", Relation: "is", Tail: "judgment", Sources: src}},
		Counters:  []artifact.CounterCandidate{{Head: "wisdom", Relation: "is", Tail: "folly", Sources: src}},
	}
	got, err := artifact.ValidatedSetSHA(vts)
	if err != nil || got != "1543a927a4189d1a0fd2e9545b798eeb212504db79580e87318261c2c3d90ab0" {
		t.Fatalf("validated_set_sha = %s, %v", got, err)
	}
	got, err = artifact.Digest(artifact.ForgeProjection(vts))
	if err != nil || got != "7efe4d66dfa66ea4aaf5f213c4642a529c8b465d8156f1bb97a5bd64425ac0e6" {
		t.Fatalf("forge projection = %s, %v", got, err)
	}
}

// A declared vocabulary is part of both projections, and only when there is
// one: an empty or nil declaration keeps the original's digests above.
func TestProjectionsCarryDeclaredRelations(t *testing.T) {
	src := []artifact.SourceRef{{SourceSHA: strings.Repeat("a", 64), Span: "span", Adapter: "file", RetrievedAt: "2026-05-16T00:00:00Z"}}
	base := artifact.ValidatedTripleSet{SubjectID: "s", SchemaVersion: artifact.SchemaVersion,
		Relations: []artifact.RelationCandidate{{Head: "package x", Relation: "defines", Tail: "y type", Sources: src}}}
	digests := func(v artifact.ValidatedTripleSet) [3]string {
		a, _ := artifact.ValidatedSetSHA(v)
		b, _ := artifact.Digest(artifact.ForgeProjection(v))
		c, _ := artifact.Digest(v)
		return [3]string{a, b, c}
	}
	none := digests(base)
	empty := base
	empty.DeclaredRelations = []string{}
	if digests(empty) != none {
		t.Fatal("an empty declaration changes a digest")
	}
	raw, _ := artifact.Encode(empty)
	if strings.Contains(string(raw), "declared_relations") {
		t.Fatalf("empty declared_relations written: %s", raw)
	}
	one, two := base, base
	one.DeclaredRelations = []string{"defines", "provides"}
	two.DeclaredRelations = []string{"provides", "defines"}
	d1, d2 := digests(one), digests(two)
	if d1[0] != d2[0] || d1[1] != d2[1] {
		t.Fatal("the projections depend on the order of the declaration")
	}
	if d1[0] == none[0] || d1[1] == none[1] {
		t.Fatal("a declaration does not change the projections")
	}
	back, err := artifact.Decode[artifact.ValidatedTripleSet](mustEncode(t, one))
	if err != nil || len(back.DeclaredRelations) != 2 {
		t.Fatalf("round trip: %+v %v", back, err)
	}
}

func mustEncode(t *testing.T, v any) []byte {
	t.Helper()
	b, err := artifact.Encode(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// Every successful compose vector names the validated_set_sha of its input.
func TestComposeVectorsValidatedSetSHA(t *testing.T) {
	dir := testutil.Vector(t, "compose")
	matches, _ := filepath.Glob(filepath.Join(dir, "*.expected.json"))
	if len(matches) < 10 {
		t.Fatalf("only %d compose vectors", len(matches))
	}
	for _, exp := range matches {
		name := strings.TrimSuffix(filepath.Base(exp), ".expected.json")
		t.Run(name, func(t *testing.T) {
			in := readObject(t, filepath.Join(dir, name+".input.json"))
			want := readObject(t, exp)
			vtsRaw, _ := in.Get("vts")
			var vts artifact.ValidatedTripleSet
			if err := canon.Assign(vtsRaw, &vts); err != nil {
				t.Fatal(err)
			}
			got, err := artifact.ValidatedSetSHA(vts)
			if err != nil {
				t.Fatal(err)
			}
			if w, _ := want.Get("validated_set_sha"); got != w {
				t.Fatalf("got %s want %s", got, w)
			}
		})
	}
}

func readObject(t *testing.T, path string) *canon.Object {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	v, err := canon.Decode(raw)
	if err != nil {
		t.Fatal(err)
	}
	return v.(*canon.Object)
}

func TestDecodeStrictAndRoundTrip(t *testing.T) {
	start, end := int64(0), int64(4)
	b := artifact.OreBundle{SubjectID: "s", SchemaVersion: artifact.SchemaVersion, Entries: []artifact.OreEntry{{SourceSHA: strings.Repeat("1", 64), URL: "file:a.txt", Adapter: "file", RetrievedAt: "2026-01-01T00:00:00Z", ByteLength: 4}}}
	raw, err := artifact.Encode(b)
	if err != nil {
		t.Fatal(err)
	}
	back, err := artifact.Decode[artifact.OreBundle](raw)
	if err != nil || back.Entries[0].ByteLength != 4 {
		t.Fatalf("round trip: %+v %v", back, err)
	}
	if _, err := artifact.Decode[artifact.OreBundle]([]byte(`{"subject_id":"s","entries":[],"schema_version":"1.0.0","extra":1}`)); err == nil {
		t.Fatal("unknown field accepted")
	}
	ref := artifact.SourceRef{SourceSHA: "x", Span: "abcd", Adapter: "a", RetrievedAt: "t", TextSHA: "y", Start: &start, End: &end}
	enc, _ := artifact.Encode(ref)
	if string(enc) != `{"adapter":"a","end":4,"retrieved_at":"t","source_sha":"x","span":"abcd","start":0,"text_sha":"y"}` {
		t.Fatalf("span extension encoding: %s", enc)
	}
	enc, _ = artifact.Encode(artifact.SourceRef{SourceSHA: "x", Span: "s", Adapter: "a", RetrievedAt: "t"})
	if string(enc) != `{"adapter":"a","retrieved_at":"t","source_sha":"x","span":"s"}` {
		t.Fatalf("extension not omitted: %s", enc)
	}
}

func TestReportSealLiteral(t *testing.T) {
	r := artifact.MasteryReport{
		SchemaVersion: artifact.SchemaVersion, CourseID: "x.v1",
		SourceBundleSHA: strings.Repeat("0", 64), ValidatedSetSHA: strings.Repeat("1", 64),
		CourseSHA256: strings.Repeat("2", 64), PlanSHA256: strings.Repeat("3", 64),
		Gates:       []artifact.GateMeasurement{{Name: "g", Passed: true, Measurement: "1.0", Threshold: "1.0"}},
		TraceHashes: []string{"t1"}, Ratified: true, IssuedAt: "2026-05-16T00:00:00Z", FailureReasons: []string{},
	}
	s, err := r.Sealed()
	if err != nil || s.ReportSHA256 != "7ae1d62d51e142b41960a6a43cce4652a506b0326a41eda8f944305441b51b53" {
		t.Fatalf("sealed %s %v", s.ReportSHA256, err)
	}
}

// TestValidatedSetSHAIsCanon holds ValidatedSetSHA, which writes the compose
// projection's canonical bytes straight into the hash, equal to the digest
// of canon.Marshal(ComposeProjection(v)) over sets that exercise every part:
// unsorted concepts, relations, counters, hints and citations, ties in the
// stable sorts, declared relations with repeats, strings that need escapes
// and non-ASCII text, empty lists; and to the encoder's error on text that
// is not UTF-8.
func TestValidatedSetSHAIsCanon(t *testing.T) {
	ref := func(sha, span, adapter string) artifact.SourceRef {
		return artifact.SourceRef{SourceSHA: sha, Span: span, Adapter: adapter, RetrievedAt: "2026-05-16T00:00:00Z", TextSHA: "ignored", Extractor: "x"}
	}
	a, b := strings.Repeat("a", 64), strings.Repeat("b", 64)
	mixed := []artifact.SourceRef{ref(b, "later \"quoted\"", "file"), ref(a, "tab\there", "wikipedia"), ref(a, "same sha, earlier adapter", "file"), ref(a, "tie keeps order", "file")}
	full := artifact.ValidatedTripleSet{
		SubjectID: "subject.x", SchemaVersion: artifact.SchemaVersion,
		DeclaredRelations: []string{"orbits", "belongs_to", "orbits"},
		Concepts: []artifact.ConceptCandidate{
			{CanonicalTerm: "wisdom", Definition: "judgment — grounded\nin experience", Sources: mixed},
			{CanonicalTerm: "judgment", Definition: "reasoned decision", Sources: mixed[:1]},
			{CanonicalTerm: "judgment", Definition: "a tie on the term", Sources: nil},
		},
		Relations: []artifact.RelationCandidate{
			{Head: "wisdom", Relation: "is", Tail: "judgment", Sources: mixed},
			{Head: "café", Relation: "has", Tail: "crème \\ brûlée", Sources: mixed[1:3]},
			{Head: "wisdom", Relation: "is", Tail: "judgment", Sources: mixed[:2]},
		},
		Counters: []artifact.RelationCandidate{
			{Head: "z", Relation: "is", Tail: "a"}, {Head: "a", Relation: "is", Tail: "z"}, {Head: "a", Relation: "has", Tail: "z"},
		},
		OrderingHints: []artifact.OrderingHint{{Before: "wisdom", After: "judgment"}, {Before: "judgment", After: "wisdom"}, {Before: "judgment", After: "café"}},
	}
	for name, v := range map[string]artifact.ValidatedTripleSet{
		"full": full, "empty": {SubjectID: "s", SchemaVersion: artifact.SchemaVersion},
		"no declared": {SubjectID: "s", SchemaVersion: "1", Relations: full.Relations[:1]},
	} {
		want, err := canon.SHA256Hex(artifact.ComposeProjection(v))
		if err != nil {
			t.Fatal(err)
		}
		if got, err := artifact.ValidatedSetSHA(v); err != nil || got != want {
			t.Errorf("%s: ValidatedSetSHA = %s, %v; canon gives %s", name, got, err, want)
		}
	}
	bad := full
	bad.Relations = []artifact.RelationCandidate{{Head: "bad \xff", Relation: "is", Tail: "x"}}
	_, want := artifact.Digest(artifact.ComposeProjection(bad))
	if _, err := artifact.ValidatedSetSHA(bad); err == nil || want == nil || err.Error() != want.Error() {
		t.Errorf("invalid UTF-8: error %v, the encoder's is %v", err, want)
	}
}

// TestPlanDigestIsCanon holds PlanDigest, which writes a plan's canonical
// bytes straight into the hash, equal to the digest of the struct canon
// encodes: nested payloads, nil and empty payloads, escapes, non-ASCII
// text, integers and lists; and its error equal to the encoder's.
func TestPlanDigestIsCanon(t *testing.T) {
	steps := []artifact.PlanStep{
		{StepType: artifact.StepSeedConcept, Payload: map[string]any{"term": "wisdom", "definition": "judgment — \"grounded\"\n", "sources": []any{map[string]any{"source_sha": strings.Repeat("a", 64), "span": "tab\there"}}}},
		{StepType: artifact.StepWalk, Payload: nil},
		{StepType: artifact.StepReplayAssertion, Payload: map[string]any{}},
		{StepType: "café", Payload: map[string]any{"n": 3, "big": int64(-7), "ok": true, "none": nil, "list": []any{"b", "a", map[string]any{"z": 1, "a": []any{}}}}},
	}
	plan := struct {
		CourseID     string              `json:"course_id"`
		CourseSHA256 string              `json:"course_sha256"`
		Steps        []artifact.PlanStep `json:"steps"`
	}{"course.x", strings.Repeat("c", 64), steps}
	for _, n := range []int{0, 1, len(steps)} {
		plan.Steps = steps[:n]
		want, err := canon.SHA256Hex(plan)
		if err != nil {
			t.Fatal(err)
		}
		if got, err := artifact.PlanDigest(plan.CourseID, plan.CourseSHA256, plan.Steps); err != nil || got != want {
			t.Errorf("%d steps: PlanDigest = %s, %v; canon gives %s", n, got, err, want)
		}
	}
	bad := append(slices.Clone(steps), artifact.PlanStep{StepType: "x", Payload: map[string]any{"f": 1.5}})
	plan.Steps = bad
	_, want := artifact.Digest(plan)
	if _, err := artifact.PlanDigest(plan.CourseID, plan.CourseSHA256, bad); err == nil || want == nil || err.Error() != want.Error() {
		t.Errorf("a float: error %v, the encoder's is %v", err, want)
	}
}
