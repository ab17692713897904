package compile_test

import (
	"bufio"
	"bytes"
	"errors"
	"strings"
	"testing"

	"formation/artifact"
	"formation/run/compile"
)

// headerGuess reads the top-level header lines of a YAML text without a
// YAML parser, so the fuzz harness can name the bytes it hands to Compile
// and mutations get past the header checks into the template compilers.
func headerGuess(data []byte) artifact.Course {
	c := artifact.Course{SchemaVersion: artifact.SchemaVersion}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		key, val, ok := strings.Cut(sc.Text(), ": ")
		if !ok {
			continue
		}
		val = strings.Trim(val, `"`)
		switch key {
		case "course_id":
			c.CourseID = val
		case "template_id":
			c.TemplateID = val
		case "template_version":
			c.TemplateVersion = val
		case "source_bundle_sha":
			c.SourceBundleSHA = val
		}
	}
	return c
}

// FuzzCompile: arbitrary bytes give either a typed *compile.Error or a plan
// whose digest checks out and that ends in its replay step; never a panic.
func FuzzCompile(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		course := withBytes(headerGuess(data), data)
		sameAsCompile(t, course, data)
		plan, err := compile.Compile(course, data)
		if err != nil {
			var ce *compile.Error
			if !errors.As(err, &ce) || ce.Kind == "" {
				t.Fatalf("untyped error %T: %v", err, err)
			}
			return
		}
		digest, err := artifact.PlanDigest(course.CourseID, course.CourseSHA256, plan.Steps)
		if err != nil || digest != plan.PlanSHA256 {
			t.Fatalf("plan digest %s, recomputed %s (%v)", plan.PlanSHA256, digest, err)
		}
		if n := len(plan.Steps); n == 0 || plan.Steps[n-1].StepType != artifact.StepReplayAssertion {
			t.Fatalf("plan does not end in its replay step: %v", plan.Steps)
		}
		for _, s := range plan.Steps {
			switch s.StepType {
			case artifact.StepSeedConcept, artifact.StepIntroduceRelation, artifact.StepWalk, artifact.StepAdversarialProbe, artifact.StepReplayAssertion:
			default:
				t.Fatalf("step type %q", s.StepType)
			}
		}
	})
}
