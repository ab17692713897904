package compile

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"

	yaml "go.yaml.in/yaml/v3"

	"formation/artifact"
)

// Compile turns the course's YAML bytes into its plan. The bytes must be the
// ones the Course names (their SHA-256 is course.CourseSHA256) and must agree
// with its course_id, template and bundle digest.
func Compile(course artifact.Course, yamlBytes []byte) (artifact.FormationPlan, error) {
	plan, _, err := compile(course, yamlBytes, newPlan())
	return plan, err
}

// CompileEncoded is Compile for a holder of the plan's payloads as bytes
// (the run stage): the plan is the same, digest included, but its steps
// have no payload maps; payloads holds each step's canonical payload
// bytes. A large course's plan is then never held as a map per step (at a
// million steps, a gigabyte of fresh memory touched and let go).
func CompileEncoded(course artifact.Course, yamlBytes []byte) (artifact.FormationPlan, artifact.PlanPayloads, error) {
	return compile(course, yamlBytes, newEncodingPlan())
}

func compile(course artifact.Course, yamlBytes []byte, p *plan) (artifact.FormationPlan, artifact.PlanPayloads, error) {
	fail := func(err error) (artifact.FormationPlan, artifact.PlanPayloads, error) {
		return artifact.FormationPlan{}, artifact.PlanPayloads{}, err
	}
	sum := sha256.Sum256(yamlBytes)
	if got := hex.EncodeToString(sum[:]); got != course.CourseSHA256 {
		return fail(errorf(KindCourseDigest, "", "the YAML hashes to %s, the course names %s", got, course.CourseSHA256))
	}
	body, err := parse(yamlBytes)
	if err != nil {
		return fail(err)
	}
	t, err := header(body, course)
	if err != nil {
		return fail(err)
	}
	if err := t.compile(body, p); err != nil {
		return fail(err)
	}
	if p.encodeErr != nil {
		// What PlanDigest would have refused, as Compile refuses it.
		return fail(&Error{Kind: KindPlanDigest, Msg: p.encodeErr.Error()})
	}
	steps, payloads := p.steps()
	var digest string
	if p.encoded != nil {
		digest, err = payloads.PlanDigest(course.CourseID, course.CourseSHA256)
	} else {
		digest, err = artifact.PlanDigest(course.CourseID, course.CourseSHA256, steps)
	}
	if err != nil {
		return fail(&Error{Kind: KindPlanDigest, Msg: err.Error()})
	}
	return artifact.FormationPlan{
		CourseID:      course.CourseID,
		CourseSHA256:  course.CourseSHA256,
		Steps:         steps,
		PlanSHA256:    digest,
		SchemaVersion: artifact.SchemaVersion,
	}, payloads, nil
}

// parse reads exactly one YAML document holding a mapping. The compose
// emitter's block YAML takes the one-pass reader of fastyaml.go; anything
// it does not take is read by yaml.v3, with yaml.v3's result and errors.
func parse(b []byte) (map[string]any, error) {
	doc, ok := fastParse(b)
	if !ok {
		var err error
		if doc, err = parseYAML(b); err != nil {
			return nil, err
		}
	}
	m, ok := doc.(map[string]any)
	if !ok {
		return nil, errorf(KindWrongType, "$", "course body must be a mapping, got %s", typeName(doc))
	}
	return m, nil
}

// parseYAML reads exactly one YAML document with yaml.v3, which refuses
// duplicate keys while decoding into a map.
func parseYAML(b []byte) (doc any, err error) {
	// The parser is third-party code fed untrusted bytes; a panic inside it
	// must surface as a refusal of the input, never crash the stage.
	defer func() {
		if r := recover(); r != nil {
			doc, err = nil, errorf(KindYAML, "", "the YAML parser failed: %v", r)
		}
	}()
	dec := yaml.NewDecoder(bytes.NewReader(b))
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, errorf(KindYAML, "", "empty document")
		}
		return nil, errorf(KindYAML, "", "%v", err)
	}
	var extra any
	switch err := dec.Decode(&extra); {
	case err == nil:
		return nil, errorf(KindYAML, "", "a course is one YAML document; found a second one")
	case !errors.Is(err, io.EOF):
		return nil, errorf(KindYAML, "", "after the course document: %v", err)
	}
	return doc, nil
}

// header checks the keys every template writes and picks the compiler.
func header(body map[string]any, course artifact.Course) (template, error) {
	if _, ok := body["template_id"]; !ok {
		return template{}, errorf(KindMissingKey, "$", "missing key %q", "template_id")
	}
	id, err := text(body, "$", "template_id")
	if err != nil {
		return template{}, err
	}
	t, ok := lookup(id)
	if !ok {
		return template{}, errorf(KindUnknownTemplate, "$.template_id", "no compiler for template %q", id)
	}
	if err := fields(body, "$", t.keys()...); err != nil {
		return template{}, err
	}
	for _, c := range []struct{ key, want string }{
		{"template_id", course.TemplateID},
		{"template_version", course.TemplateVersion},
		{"template_version", t.version},
		{"course_id", course.CourseID},
		{"source_bundle_sha", course.SourceBundleSHA},
		{"paradigm", t.paradigm},
	} {
		got, err := str(body, "$", c.key)
		if err != nil {
			return template{}, err
		}
		if got != c.want {
			return template{}, errorf(KindHeader, child("$", c.key), "%q, expected %q", got, c.want)
		}
	}
	subjectID, err := subject(body)
	if err != nil {
		return template{}, err
	}
	if want := fmt.Sprintf("course.%s.%s.%s", subjectID, t.id, t.version); course.CourseID != want {
		return template{}, errorf(KindHeader, "$.course_id", "%q does not name subject %q under %s %s", course.CourseID, subjectID, t.id, t.version)
	}
	return t, invariants(body)
}

// subject checks the subject block and returns its id.
func subject(body map[string]any) (string, error) {
	m, err := object(body["subject"], "$.subject", "subject_id", "title", "target_depth",
		"requires_courses", "anti_requisites", "identity_axis_constraints")
	if err != nil {
		return "", err
	}
	id, err := text(m, "$.subject", "subject_id")
	if err != nil {
		return "", err
	}
	for _, k := range []string{"title", "target_depth"} {
		if _, err := str(m, "$.subject", k); err != nil {
			return "", err
		}
	}
	for _, k := range []string{"requires_courses", "anti_requisites", "identity_axis_constraints"} {
		if _, err := stringList(m, "$.subject", k); err != nil {
			return "", err
		}
	}
	return id, nil
}

// invariants checks the substrate_invariants block's shape. Its values are
// the runtime's business (the run stage enforces the versor bound itself).
func invariants(body map[string]any) error {
	const path = "$.substrate_invariants"
	m, err := object(body["substrate_invariants"], path, "max_versor_condition", "normalization_forbidden_sites", "exact_recall_required")
	if err != nil {
		return err
	}
	for _, k := range []string{"max_versor_condition", "exact_recall_required"} {
		if _, err := text(m, path, k); err != nil {
			return err
		}
	}
	_, err = stringList(m, path, "normalization_forbidden_sites")
	return err
}
