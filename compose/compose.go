package compose

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"

	"formation/artifact"
	"formation/ident"
)

// Template ids, all at version 1.0.0.
const (
	TemplateComposedRelation = "composed_relation"
	TemplateDefinition       = "definition"
	TemplateFalsification    = "falsification"
	TemplateIdentityAnchor   = "identity_anchor"
	TemplateProcedural       = "procedural"
)

// input is what every template renders from.
type input struct {
	vts       artifact.ValidatedTripleSet
	spec      artifact.SubjectSpec
	bundleSHA string
	t         template
}

type template struct {
	id, version, paradigm string
	render                func(input) (map[string]any, error)
}

// lookup is the registry. A switch rather than a package-level map keeps
// the package free of mutable state.
func lookup(id string) (template, bool) {
	switch id {
	case TemplateDefinition:
		return template{id, "1.0.0", "five_phase_versor_formation", renderDefinition}, true
	case TemplateComposedRelation:
		return template{id, "1.0.0", "chained_relation_composition", renderComposedRelation}, true
	case TemplateProcedural:
		return template{id, "1.0.0", "ordered_state_transitions", renderProcedural}, true
	case TemplateFalsification:
		return template{id, "1.0.0", "counter_example_polarity", renderFalsification}, true
	case TemplateIdentityAnchor:
		return template{id, "1.0.0", "identity_axis_seeding", renderIdentityAnchor}, true
	}
	return template{}, false
}

// TemplateIDs lists the registered templates in sorted order.
func TemplateIDs() []string {
	return []string{TemplateComposedRelation, TemplateDefinition, TemplateFalsification, TemplateIdentityAnchor, TemplateProcedural}
}

// TemplateVersion is the registered version of a template.
func TemplateVersion(id string) (string, error) {
	t, ok := lookup(id)
	if !ok {
		return "", unknownTemplate(id)
	}
	return t.version, nil
}

func unknownTemplate(id string) *Error {
	return &Error{Kind: KindUnknownTemplate, Msg: fmt.Sprintf("unknown template_id: %q", id)}
}

// Render checks the template id and version and renders the course body: a
// tree of map[string]any, []any and strings that EmitYAML writes.
func Render(vts artifact.ValidatedTripleSet, spec artifact.SubjectSpec, sourceBundleSHA, templateID, templateVersion string) (map[string]any, error) {
	t, ok := lookup(templateID)
	if !ok {
		return nil, unknownTemplate(templateID)
	}
	if templateVersion != t.version {
		return nil, &Error{Kind: KindVersionMismatch, Msg: fmt.Sprintf(
			"template_version mismatch — caller asked for %q but registry has %q", templateVersion, t.version)}
	}
	if !ident.ValidDigest(sourceBundleSHA) {
		return nil, &Error{Kind: KindInvalidInput, Msg: fmt.Sprintf("source_bundle_sha %q is not 64 lowercase hex characters", sourceBundleSHA)}
	}
	body, err := t.render(input{vts: vts, spec: spec, bundleSHA: sourceBundleSHA, t: t})
	if err != nil {
		return nil, err
	}
	// Checked after the template so that a template's own refusal, which
	// names the real problem, is reported first.
	if spec.SubjectID != vts.SubjectID {
		return nil, &Error{Kind: KindInvalidInput, Msg: fmt.Sprintf(
			"subject spec %q does not match the validated set's subject %q", spec.SubjectID, vts.SubjectID)}
	}
	return body, nil
}

// Compose renders the course, writes its canonical YAML and returns the
// Course record with the YAML bytes. course_sha256 is the SHA-256 of those
// bytes; validated_set_sha is the compose projection of the set.
func Compose(vts artifact.ValidatedTripleSet, spec artifact.SubjectSpec, sourceBundleSHA, templateID, templateVersion string) (artifact.Course, []byte, error) {
	body, err := Render(vts, spec, sourceBundleSHA, templateID, templateVersion)
	if err != nil {
		return artifact.Course{}, nil, err
	}
	yaml, err := EmitYAML(body)
	if err != nil {
		return artifact.Course{}, nil, err
	}
	setSHA, err := artifact.ValidatedSetSHA(vts)
	if err != nil {
		return artifact.Course{}, nil, fmt.Errorf("compose: validated_set_sha: %w", err)
	}
	sum := sha256.Sum256(yaml)
	course := artifact.Course{
		CourseID:        body["course_id"].(string),
		CourseSHA256:    hex.EncodeToString(sum[:]),
		SourceBundleSHA: sourceBundleSHA,
		ValidatedSetSHA: setSHA,
		TemplateID:      templateID,
		TemplateVersion: templateVersion,
		SchemaVersion:   artifact.SchemaVersion,
	}
	return course, yaml, nil
}
