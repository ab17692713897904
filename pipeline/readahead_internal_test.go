package pipeline

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"formation/artifact"
	"formation/audit"
	"formation/compose/fixtures"
	"formation/stage"
	"formation/store"
)

// aheadStore is a store holding one course (its validated set and a plan
// object beside it), and a course object whose set does not decode.
func aheadStore(t *testing.T) (p *Pipeline, spec stage.Spec, course, broken, plan string) {
	t.Helper()
	ctx := context.Background()
	s, err := store.Open(ctx, "file://"+t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	p = &Pipeline{Env: stage.NewEnv(s, &audit.Writer{Store: s, Now: func() time.Time { return time.Date(2026, 5, 16, 0, 0, 0, 0, time.UTC) }, CodeVersion: "test"})}
	put := func(v any) string {
		b, err := artifact.Encode(v)
		if err != nil {
			t.Fatal(err)
		}
		d, err := s.Put(ctx, b)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	vts := fixtures.MicroCourse().VTS
	sha, err := artifact.ValidatedSetSHA(vts)
	if err != nil {
		t.Fatal(err)
	}
	c := artifact.Course{CourseID: "course.micro", CourseSHA256: strings.Repeat("a", 64), SourceBundleSHA: strings.Repeat("b", 64),
		ValidatedSetSHA: sha, TemplateID: "definition", TemplateVersion: "1.0.0", SchemaVersion: artifact.SchemaVersion,
		ValidatedSetObject: put(vts)}
	course = put(c)
	c.ValidatedSetObject = put(map[string]any{"not": "a set"})
	broken = put(c)
	plan = put(artifact.FormationPlan{CourseID: "course.micro", CourseSHA256: c.CourseSHA256, PlanSHA256: strings.Repeat("c", 64),
		Steps: []artifact.PlanStep{}, SchemaVersion: artifact.SchemaVersion})
	return p, stage.Spec{Stage: "ratify", Version: "1", Subject: "micro", Inputs: []string{}}, course, broken, plan
}

// What ratify reads ahead of the opened record is what it reads once the
// record is open: a read of the digest the head names is used, a read of
// another digest is not (nor audited), and without one the read is made
// then.
func TestReadAheadIsReadThen(t *testing.T) {
	ctx := context.Background()
	for _, name := range []string{"course", "broken"} {
		var results []string
		for _, ahead := range []string{"none", "same", "other"} {
			p, spec, course, broken, plan := aheadStore(t)
			want := map[string]string{"course": course, "broken": broken}[name]
			guess := map[string]string{"none": "", "same": want, "other": map[string]string{"course": broken, "broken": course}[name]}[ahead]
			var r recordReads
			if guess != "" {
				r = recordReads{courseDigest: guess, course: p.startCourseData(ctx, guess)}
			}
			in, err := (<-r.courseData(ctx, p, want)).take(ctx, p.Env, spec)
			recs, lerr := audit.List(ctx, p.Env.Store, audit.Filter{Subject: "micro", Stage: "ratify"})
			if lerr != nil {
				t.Fatal(lerr)
			}
			var reasons []string
			for _, rec := range recs {
				reasons = append(reasons, rec.ReasonCode)
			}
			results = append(results, fmt.Sprintf("%s %d relations, %v, audit %v", in.CourseObject, len(in.VTS.Relations), err, reasons))

			var pr recordReads
			if ahead != "none" {
				pr = recordReads{planDigest: map[string]string{"same": plan, "other": course}[ahead], plan: make(chan planRead, 1)}
				pr.plan <- readStoredPlan(ctx, p.Env.Store, pr.planDigest)
			}
			if got := pr.storedPlan(ctx, p.Env.Store, plan); got.err != nil || got.planErr != nil || got.plan.PlanSHA256 != strings.Repeat("c", 64) {
				t.Fatalf("%s ahead: the plan read is %+v", ahead, got)
			}
		}
		if name == "broken" && !strings.Contains(results[0], "audit [undecodable_input]") {
			t.Fatalf("broken: %s", results[0])
		}
		for _, r := range results[1:] {
			if r != results[0] {
				t.Fatalf("%s: read then %s; read ahead %q", name, results[0], results[1:])
			}
		}
	}
}

// headDigest finds the digests a run record's head names, and nothing in
// bytes that hold none.
func TestHeadDigest(t *testing.T) {
	d := func(c string) string { return strings.Repeat(c, 64) }
	rec := artifact.RunRecord{CourseID: `c"ourse_object":"` + d("1"), CourseObject: d("2"), CourseSHA256: d("3"), EventsObject: d("4"),
		PlanObject: d("5"), PlanSHA256: d("6"), SchemaVersion: artifact.SchemaVersion,
		Runs: []artifact.RunOutput{{Results: []artifact.StepResult{}, HaltStepIndex: -1}}}
	raw, err := artifact.Encode(rec)
	if err != nil {
		t.Fatal(err)
	}
	if got := headDigest(raw, "course_object"); got != d("2") {
		t.Fatalf("course_object: %q", got)
	}
	if got := headDigest(raw, "plan_object"); got != d("5") {
		t.Fatalf("plan_object: %q", got)
	}
	for _, b := range []string{"", `{"course_object":"` + d("2"), `{"course_object":"` + d("x") + `"}`, `{"course_object":"abc"}`,
		strings.Repeat(" ", headPeekBytes) + `{"course_object":"` + d("2") + `"}`} {
		if got := headDigest([]byte(b), "course_object"); got != "" {
			t.Fatalf("%.40q: %q", b, got)
		}
	}
}

// FuzzHeadDigest: headDigest finds nothing or a digest, and in a record
// that decodes it finds nothing or the head's own.
func FuzzHeadDigest(f *testing.F) {
	rec := artifact.RunRecord{CourseID: "c", CourseObject: strings.Repeat("2", 64), CourseSHA256: strings.Repeat("3", 64),
		EventsObject: strings.Repeat("4", 64), PlanObject: strings.Repeat("5", 64), PlanSHA256: strings.Repeat("6", 64),
		SchemaVersion: artifact.SchemaVersion, Runs: []artifact.RunOutput{}}
	raw, err := artifact.Encode(rec)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(raw)
	f.Add([]byte(`{"course_object":"` + strings.Repeat("a", 64) + `"}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		got := map[string]string{"course_object": headDigest(b, "course_object"), "plan_object": headDigest(b, "plan_object")}
		for k, d := range got {
			if d != "" && !store.ValidDigest(d) {
				t.Fatalf("%s: %q is no digest", k, d)
			}
		}
		r, err := artifact.Decode[artifact.RunRecord](b)
		if err != nil {
			return
		}
		if d := got["course_object"]; d != "" && d != r.CourseObject {
			t.Fatalf("course_object: found %s, the record holds %s", d, r.CourseObject)
		}
		if d := got["plan_object"]; d != "" && d != r.PlanObject {
			t.Fatalf("plan_object: found %s, the record holds %s", d, r.PlanObject)
		}
	})
}
