package ratify

import (
	"bytes"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"formation/artifact"
	"formation/canon"
)

func samplePlan(t testing.TB) artifact.FormationPlan {
	t.Helper()
	p := planOf(allGreen().Results)
	p.Steps = append(p.Steps, artifact.PlanStep{StepType: "walk_step", Payload: map[string]any{
		"s": "é\n\"\\\u2028<>", "n": canon.Number("-12345678901234567890"), "l": []any{nil, true, map[string]any{}}}})
	p.Steps = append(p.Steps, artifact.PlanStep{StepType: "seed_concept"})
	p.Steps = append(p.Steps, artifact.PlanStep{StepType: "walk_step", Payload: map[string]any{
		"head": "a\"b", "relation": "é\u001f", "tail": "", "utterance": map[string]any{"x": []any{}}}})
	p.Steps = append(p.Steps, artifact.PlanStep{StepType: "walk_step", Payload: map[string]any{"head": "a", "relation": "b", "tail": nil}})
	d, err := artifact.PlanDigest(p.CourseID, p.CourseSHA256, p.Steps)
	if err != nil {
		t.Fatal(err)
	}
	p.PlanSHA256 = d
	return p
}

// planView is what a Plan holds as its readers see it: the header, each
// step's type, payload bytes and refusal, each step's walk triple, the
// nesting and the digest's refusal; not where the bytes are kept.
func planView(p Plan) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s %s %s nesting %d digestErr %v\n", p.CourseID, p.CourseSHA256, p.PlanSHA256, p.SchemaVersion, p.nesting, p.digestErr)
	for i := range p.Len() {
		typ, payload, err := p.step(i)
		walk, isWalk := p.walk(i)
		fmt.Fprintf(&b, "%d %s %s %v walk %v %+v\n", i, typ, payload, err, isWalk, walk)
	}
	return b.String()
}

// samePlan reports whether two plans read alike.
func samePlan(a, b Plan) bool { return planView(a) == planView(b) }

// agreeOnPlan fails t unless ReadPlan and the whole decode accept the same
// bytes with the same plan, or refuse them with the same error.
func agreeOnPlan(t testing.TB, data []byte) {
	t.Helper()
	want, wantErr := artifact.Decode[artifact.FormationPlan](data)
	got, err := ReadPlan(data)
	switch {
	case (err == nil) != (wantErr == nil):
		t.Fatalf("reader %v, decode %v:\n%q", err, wantErr, data)
	case err != nil && err.Error() != wantErr.Error():
		t.Fatalf("errors differ:\nreader %v\ndecode %v\n%q", err, wantErr, data)
	case err == nil && !samePlan(got, PlanOf(want)):
		t.Fatalf("plans differ:\n%s\n%s", planView(got), planView(PlanOf(want)))
	}
	agreeOnCanonicalPlan(t, data)
}

// agreeOnCanonicalPlan fails t unless the one-pass reading of a canonical
// plan, when it accepts data, reads it as decoding each step does.
func agreeOnCanonicalPlan(t testing.TB, data []byte) bool {
	t.Helper()
	fast, ok := readCanonicalPlan(data)
	if !ok {
		return false
	}
	slow, err := readPlanSteps(data)
	if err != nil {
		t.Fatalf("one pass read what decoding refuses (%v):\n%q", err, data)
	}
	if !samePlan(fast, slow) {
		t.Fatalf("plans differ:\none pass %s\nby step %s", planView(fast), planView(slow))
	}
	return true
}

// The stored plan is canonical, and read in one pass; the plan written any
// other way is read by decoding its steps, to the same Plan.
func TestCanonicalPlanAgreesWithSteps(t *testing.T) {
	data, err := artifact.Encode(samplePlan(t))
	if err != nil {
		t.Fatal(err)
	}
	if !agreeOnCanonicalPlan(t, data) {
		t.Fatal("the canonical plan was not read in one pass")
	}
	p, _ := readCanonicalPlan(data)
	if w, ok := p.walk(7); len(p.walks) != 2 || !ok || w != (artifact.Triple{Head: "a\"b", Relation: "é\u001f", Tail: ""}) {
		t.Fatalf("walks %v at steps %v", p.walks, p.walkSteps)
	}
	s := string(data)
	for _, c := range []struct {
		doc     string
		onePass bool
	}{
		{strings.Replace(s, `{"course_id"`, ` { "course_id" `, 1), true},
		{strings.Replace(s, `"steps":[`, `"steps":[ `, 1), true},
		{strings.Replace(s, `{"canonical_term"`, `{ "canonical_term"`, 1), false},
		{strings.Replace(s, `"s":"é`, `"s":"\u00e9`, 1), false},
		{strings.Replace(s, `"n":-12345678901234567890`, `"n":-0`, 1), false},
		{strings.Replace(s, `"payload":{}`, `"payload":null`, 1), false},
		{strings.Replace(s, `"payload":{}`, `"payload":[]`, 1), false},
		{strings.Replace(s, `"payload":{}`, `"payload":{},"payload":{}`, 1), false},
		{strings.Replace(s, `"payload":{}`, `"payload":{},"x":1`, 1), false},
		{strings.Replace(s, `"payload":{},"step_type":"seed_concept"`, `"step_type":"seed_concept","payload":{}`, 1), true},
		{strings.Replace(s, `"step_type":"seed_concept"}`, `"step_type":"seed_concept","step_type":"x"}`, 1), false},
		{strings.Replace(s, `"schema_version"`, `"schema_version":"x","schema_version"`, 1), false},
		{s + "x", false},
	} {
		if got := agreeOnCanonicalPlan(t, []byte(c.doc)); got != c.onePass {
			t.Errorf("read in one pass %v, want %v:\n%s", got, c.onePass, c.doc)
		}
		agreeOnPlan(t, []byte(c.doc))
	}
}

func TestPlanDigestIsPlanSHA(t *testing.T) {
	p := samplePlan(t)
	compact := PlanOf(p)
	if d, err := compact.digest(); err != nil || d != p.PlanSHA256 {
		t.Fatalf("digest %s (%v), plan_sha256 %s", d, err, p.PlanSHA256)
	}
	empty := PlanOf(artifact.FormationPlan{CourseID: "c", CourseSHA256: "s"})
	want, _ := artifact.PlanDigest("c", "s", nil)
	if d, err := empty.digest(); err != nil || d != want {
		t.Fatalf("empty plan: %s (%v), want %s", d, err, want)
	}
	bad := p
	bad.Steps = append([]artifact.PlanStep{}, p.Steps...)
	bad.Steps[0] = artifact.PlanStep{StepType: "x", Payload: map[string]any{"f": 1.5}}
	if badPlan := PlanOf(bad); badPlan.Len() != len(bad.Steps) {
		t.Fatal("steps lost")
	} else if _, err := badPlan.digest(); err == nil {
		t.Fatal("a plan with a float payload hashes")
	}
}

func TestReadPlanAgreesWithDecode(t *testing.T) {
	data, err := artifact.Encode(samplePlan(t))
	if err != nil {
		t.Fatal(err)
	}
	agreeOnPlan(t, data)
	got, err := ReadPlan(data)
	if err != nil || got.Len() != 9 || got.PlanSHA256 != samplePlan(t).PlanSHA256 {
		t.Fatalf("read %d steps (%v)", got.Len(), err)
	}
	for i := 0; i <= len(data); i++ {
		agreeOnPlan(t, data[:i])
	}
	for i := range data {
		for _, c := range []byte("{}[],:\"\\ 1.x\xff") {
			m := bytes.Clone(data)
			m[i] = c
			agreeOnPlan(t, m)
		}
	}
	s := string(data)
	for _, c := range []string{
		strings.Replace(s, `"steps":[`, `"steps":[1,`, 1),
		strings.Replace(s, `"steps":[`, `"steps":null,"x":[`, 1),
		strings.Replace(s, `"steps":[`, `"":0,"steps":[`, 1),
		strings.Replace(s, `"course_id":"x.v1"`, `"course_id":"x.v1","course_id":"x.v1"`, 1),
		strings.Replace(s, `"step_type":"seed_concept"`, `"step_type":7`, 1),
		" " + strings.ReplaceAll(s, ",", " ,\n") + " ",
	} {
		agreeOnPlan(t, []byte(c))
	}
}

// FuzzReadPlan: ReadPlan never panics and agrees with the whole decode.
func FuzzReadPlan(f *testing.F) {
	data, err := artifact.Encode(samplePlan(f))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(data)
	f.Fuzz(func(t *testing.T, data []byte) { agreeOnPlan(t, data) })
}

// A Gauge takes the first pass whole, then the second, and reports only
// after both; anything else is an error, never a report.
func TestGaugeOrder(t *testing.T) {
	in := originalInput([]artifact.RelationCandidate{relation("wisdom", "is", "judgment")}, allGreen(), allGreen())
	g := newGauge(in, PlanOf(in.Plan))
	step := allGreen().Results[0]
	if err := g.Result(1, step); err == nil {
		t.Fatal("the second pass was fed before the first")
	}
	if err := g.Result(2, step); err == nil {
		t.Fatal("a third pass was fed")
	}
	if _, err := g.Report(); err == nil {
		t.Fatal("a report before the passes ended")
	}
	for pass := 0; pass < 2; pass++ {
		for _, r := range allGreen().Results {
			if err := g.Result(pass, r); err != nil {
				t.Fatal(err)
			}
		}
		if err := g.EndPass(pass, false, -1, ""); err != nil {
			t.Fatal(err)
		}
	}
	if err := g.Result(0, step); err == nil {
		t.Fatal("a pass was fed after its end")
	}
	got, err := g.Report()
	if err != nil {
		t.Fatal(err)
	}
	if want := mustAssemble(t, in); !reflect.DeepEqual(got, want) {
		t.Fatalf("fed step by step %+v, whole %+v", got, want)
	}
}
