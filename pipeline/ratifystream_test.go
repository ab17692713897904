package pipeline_test

import (
	"bytes"
	"context"
	"math/rand"
	"reflect"
	"testing"

	"formation/artifact"
	"formation/audit"
	"formation/internal/exitcode"
	"formation/ratify"
	"formation/stage"
)

// passCollector rebuilds the passes the streaming reader gives.
type passCollector struct{ runs []artifact.RunOutput }

func (c *passCollector) at(i int) *artifact.RunOutput {
	for len(c.runs) <= i {
		c.runs = append(c.runs, artifact.RunOutput{Results: []artifact.StepResult{}})
	}
	return &c.runs[i]
}

func (c *passCollector) Result(pass int, res artifact.StepResult) error {
	c.at(pass).Results = append(c.at(pass).Results, res)
	return nil
}

func (c *passCollector) EndPass(pass int, halted bool, at int, why string) error {
	p := c.at(pass)
	p.Halted, p.HaltStepIndex, p.HaltReason = halted, at, why
	return nil
}

// streamedRecord reads a run record through ratify's streaming reader.
func streamedRecord(raw []byte) (artifact.RunRecord, error) {
	r, err := ratify.OpenRunRecord(raw)
	if err != nil {
		return artifact.RunRecord{}, err
	}
	c := &passCollector{runs: []artifact.RunOutput{}}
	if err := r.Stream(c); err != nil {
		return artifact.RunRecord{}, err
	}
	h := r.Head()
	return artifact.RunRecord{CourseID: h.CourseID, CourseObject: h.CourseObject, CourseSHA256: h.CourseSHA256,
		PlanObject: h.PlanObject, PlanSHA256: h.PlanSHA256, Runs: c.runs, EventsObject: h.EventsObject,
		SchemaVersion: h.SchemaVersion}, nil
}

// Run records the pipeline writes (a course that ratifies, and a larger
// synthetic one): the streaming reader gives what artifact.Decode gives, on
// the record and on damaged copies of it (same refusals, same errors), and
// the stored report is byte for byte the one ratify.Ratify makes from the
// whole decode.
func TestRunRecordsStreamAsTheyDecode(t *testing.T) {
	ctx := context.Background()
	for name, bundle := range map[string]artifact.SmeltedBundle{"micro": microCourse(), "synthetic": syntheticBundle(60)} {
		t.Run(name, func(t *testing.T) {
			f := newFixture(t, bundle)
			for _, st := range []func(context.Context, string) (stage.Result, error){f.p.Forge, f.p.Compose, f.p.Run, f.p.Ratify} {
				if res, err := st(ctx, microSubject); err != nil {
					t.Fatalf("%s: %v", res.Stage, err)
				}
			}
			raw := stageBytes(t, f, "run")
			whole, err := artifact.Decode[artifact.RunRecord](raw)
			must(t, err)
			streamed, err := streamedRecord(raw)
			must(t, err)
			if !reflect.DeepEqual(streamed, whole) {
				t.Fatal("the streamed record differs from the decoded one")
			}
			checkDamagedRecords(t, raw)
			checkReportAsWhole(t, f, whole)
		})
	}
}

func stageBytes(t *testing.T, f fixture, name string) []byte {
	t.Helper()
	d, err := f.p.Env.ResolveRef(context.Background(), microSubject, name)
	must(t, err)
	raw, err := f.p.Env.Store.Get(context.Background(), d)
	must(t, err)
	return raw
}

// checkDamagedRecords damages a record at seeded random places (cut short,
// one byte replaced, one inserted) and requires the reader to refuse what
// the decode refuses, with its error, and to accept what it accepts.
func checkDamagedRecords(t *testing.T, raw []byte) {
	t.Helper()
	rng := rand.New(rand.NewSource(12))
	for i := 0; i < 400; i++ {
		at := rng.Intn(len(raw))
		c := "{}[],:\"\\ 1-tx\x00\xff"[rng.Intn(15)]
		for _, m := range [][]byte{raw[:at], replaced(raw, at, c), append(append(bytes.Clone(raw[:at]), c), raw[at:]...)} {
			want, wantErr := artifact.Decode[artifact.RunRecord](m)
			got, err := streamedRecord(m)
			switch {
			case (err == nil) != (wantErr == nil):
				t.Fatalf("damage at %d (%q): reader %v, decode %v", at, c, err, wantErr)
			case err != nil && err.Error() != wantErr.Error():
				t.Fatalf("damage at %d (%q):\nreader %v\ndecode %v", at, c, err, wantErr)
			case err == nil && !reflect.DeepEqual(got, want):
				t.Fatalf("damage at %d (%q): contents differ", at, c)
			}
		}
	}
}

func replaced(b []byte, at int, c byte) []byte {
	m := bytes.Clone(b)
	m[at] = c
	return m
}

// checkReportAsWhole recomputes the report with ratify.Ratify from the
// whole decoded record and compares it with the one the stage stored.
func checkReportAsWhole(t *testing.T, f fixture, rec artifact.RunRecord) {
	t.Helper()
	ctx := context.Background()
	cd, err := f.p.Env.ResolveRef(ctx, microSubject, "compose")
	must(t, err)
	in, err := f.p.LoadCourse(ctx, microSubject, cd)
	must(t, err)
	rep, err := ratify.Ratify(ratify.Input{CourseID: in.Course.CourseID, SourceBundleSHA: in.Course.SourceBundleSHA,
		ValidatedSetSHA: in.Course.ValidatedSetSHA, CourseSHA256: in.Course.CourseSHA256, Plan: in.Plan, ValidatedSet: in.VTS,
		FirstRun: rec.Runs[0], SecondRun: rec.Runs[1],
		Index:        artifact.MasteredCoursesIndex{Entries: []artifact.MasteredCourseEntry{}, SchemaVersion: artifact.SchemaVersion},
		PriorCourses: []ratify.PriorCourse{}, IssuedAt: "2026-05-16T00:00:00Z"})
	must(t, err)
	want, err := artifact.Encode(rep)
	must(t, err)
	if got := stageBytes(t, f, "ratify"); !bytes.Equal(got, want) {
		t.Fatalf("the stored report is not the whole-decode report:\n%.300s\n%.300s", got, want)
	}
}

// A run record that is stored intact but is no record (a pass's halted flag
// is a number) halts ratify with exit 65 and one undecodable_input audit
// record carrying the decode's own error, as a whole decode did.
func TestMalformedRunRecordHaltsRatify(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t, microCourse())
	for _, st := range []func(context.Context, string) (stage.Result, error){f.p.Forge, f.p.Compose, f.p.Run} {
		if res, err := st(ctx, microSubject); err != nil {
			t.Fatalf("%s: %v", res.Stage, err)
		}
	}
	raw := stageBytes(t, f, "run")
	cut := bytes.LastIndex(raw, []byte(`"halted":false`))
	if cut < 0 {
		t.Fatal("no halted flag in the record")
	}
	bad := append(append(bytes.Clone(raw[:cut]), `"halted":0`...), raw[cut+len(`"halted":false`):]...)
	_, decodeErr := artifact.Decode[artifact.RunRecord](bad)
	if decodeErr == nil {
		t.Fatal("the damaged record decodes")
	}
	d, err := f.p.Env.Store.Put(ctx, bad)
	must(t, err)
	must(t, f.p.Env.MoveRef(ctx, stage.Ref(microSubject, "run"), d))
	_, err = f.p.Ratify(ctx, microSubject)
	if exitcode.Of(err) != exitcode.Rejected {
		t.Fatalf("ratify over a malformed record: exit %d (%v)", exitcode.Of(err), err)
	}
	recs, err := audit.List(ctx, f.p.Env.Store, audit.Filter{Subject: microSubject, Stage: "ratify"})
	must(t, err)
	if len(recs) != 1 || recs[0].ReasonCode != "undecodable_input" || recs[0].Detail != d+": "+decodeErr.Error() {
		t.Fatalf("want one undecodable_input record with the decode's error, got %+v\nwant detail %s: %v", recs, d, decodeErr)
	}
}

// genericOnly hides a Gauge's knowledge of the plan, so the reader decodes
// every result as canon does.
type genericOnly struct{ g *ratify.Gauge }

func (v genericOnly) Result(pass int, res artifact.StepResult) error { return v.g.Result(pass, res) }
func (v genericOnly) EndPass(pass int, halted bool, at int, why string) error {
	return v.g.EndPass(pass, halted, at, why)
}

// counting counts the results the reader hands on as the plan's own.
type counting struct {
	*ratify.Gauge
	planned int
}

func (c *counting) ResultAsPlanned(pass int, res artifact.StepResult) error {
	c.planned++
	return c.Gauge.ResultAsPlanned(pass, res)
}

// The reader's shortcut for results that carry their plan step's payload
// gives the report the full decode gives: on a record the run stage wrote
// (where it takes every result) and on copies damaged inside results
// (where it must step aside for whatever no longer matches).
func TestPlannedResultsReportAsDecoded(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t, syntheticBundle(60))
	for _, st := range []func(context.Context, string) (stage.Result, error){f.p.Forge, f.p.Compose, f.p.Run} {
		if res, err := st(ctx, microSubject); err != nil {
			t.Fatalf("%s: %v", res.Stage, err)
		}
	}
	raw := stageBytes(t, f, "run")
	cd, err := f.p.Env.ResolveRef(ctx, microSubject, "compose")
	must(t, err)
	in, err := f.p.LoadCourse(ctx, microSubject, cd)
	must(t, err)
	plan := ratify.PlanOf(in.Plan)
	report := func(rec []byte, planned bool) (string, int, error) {
		g, err := ratify.Start(ratify.Input{CourseID: in.Course.CourseID, SourceBundleSHA: in.Course.SourceBundleSHA,
			ValidatedSetSHA: in.Course.ValidatedSetSHA, CourseSHA256: in.Course.CourseSHA256, ValidatedSet: in.VTS,
			Index:        artifact.MasteredCoursesIndex{Entries: []artifact.MasteredCourseEntry{}, SchemaVersion: artifact.SchemaVersion},
			PriorCourses: []ratify.PriorCourse{}, IssuedAt: "2026-05-16T00:00:00Z"}, plan)
		if err != nil {
			return "", 0, err
		}
		r, err := ratify.OpenRunRecord(rec)
		if err != nil {
			return "", 0, err
		}
		c := &counting{Gauge: g}
		if planned {
			err = r.Stream(c)
		} else {
			err = r.Stream(genericOnly{g})
		}
		if err != nil {
			return "", c.planned, err
		}
		rep, err := g.Report()
		if err != nil {
			return "", c.planned, err
		}
		b, err := artifact.Encode(rep)
		return string(b), c.planned, err
	}
	want, _, err := report(raw, false)
	must(t, err)
	got, planned, err := report(raw, true)
	must(t, err)
	if got != want {
		t.Fatal("the shortcut's report differs from the full decode's")
	}
	if steps := 2 * len(in.Plan.Steps); planned != steps {
		t.Fatalf("%d of %d results taken as the plan's", planned, steps)
	}
	rng := rand.New(rand.NewSource(5))
	start := bytes.Index(raw, []byte(`"runs":`))
	for i := 0; i < 600; i++ {
		at := start + rng.Intn(len(raw)-start)
		c := "{}[],:\"\\ 1-txfa\x00\xff"[rng.Intn(17)]
		for _, m := range [][]byte{replaced(raw, at, c), append(append(bytes.Clone(raw[:at]), c), raw[at:]...)} {
			want, _, wantErr := report(m, false)
			got, _, err := report(m, true)
			if (err == nil) != (wantErr == nil) || (err != nil && err.Error() != wantErr.Error()) || got != want {
				t.Fatalf("damage at %d (%q): shortcut %v, full decode %v", at, c, err, wantErr)
			}
		}
	}
}
