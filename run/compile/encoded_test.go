package compile_test

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"formation/artifact"
	"formation/internal/testutil"
	"formation/run/compile"
)

// sameAsCompile fails unless CompileEncoded gives what Compile gives for
// the course: the same refusal, or a plan whose canonical bytes, digest
// included, are the same when written from the encoded payloads.
func sameAsCompile(t testing.TB, course artifact.Course, y []byte) {
	t.Helper()
	plan, err := compile.Compile(course, y)
	encPlan, payloads, encErr := compile.CompileEncoded(course, y)
	if err != nil || encErr != nil {
		if err == nil || encErr == nil || err.Error() != encErr.Error() {
			t.Fatalf("Compile: %v; CompileEncoded: %v", err, encErr)
		}
		return
	}
	for _, s := range encPlan.Steps {
		if s.Payload != nil {
			t.Fatal("an encoded plan's step holds its payload map")
		}
	}
	mapPayloads, err := artifact.EncodePayloads(plan.Steps)
	if err != nil {
		t.Fatal(err)
	}
	var want, got bytes.Buffer
	if err := artifact.WritePlan(&want, plan, mapPayloads); err != nil {
		t.Fatal(err)
	}
	if err := artifact.WritePlan(&got, encPlan, payloads); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got.Bytes(), want.Bytes()) {
		t.Fatalf("the encoded plan differs:\n got %.300s\nwant %.300s", got.Bytes(), want.Bytes())
	}
}

// TestCompileEncodedIsCompile holds CompileEncoded to Compile on every
// compose vector course and on refusals.
func TestCompileEncodedIsCompile(t *testing.T) {
	courses, err := filepath.Glob(filepath.Join(testutil.Vector(t, "compose"), "*.course.yaml"))
	if err != nil || len(courses) < 10 {
		t.Fatalf("%d vector courses (%v)", len(courses), err)
	}
	for _, path := range courses {
		name := strings.TrimSuffix(filepath.Base(path), ".course.yaml")
		t.Run(name, func(t *testing.T) {
			course, y := vectorCourse(t, name)
			sameAsCompile(t, course, y)
			sameAsCompile(t, withBytes(course, y), append(y, "bad: [\n"...))
			wrong := course
			wrong.CourseID = "course.someone.else"
			sameAsCompile(t, wrong, y)
		})
	}
}
