package compile

import "fmt"

// Kind names why a course did not compile. The values are stable strings.
type Kind string

// The kinds of compile failure.
const (
	// KindCourseDigest: the bytes are not the ones the Course record names.
	KindCourseDigest Kind = "course_digest_mismatch"
	// KindYAML: the bytes are not one well-formed YAML document.
	KindYAML Kind = "yaml_syntax"
	// KindHeader: course_id, template, bundle or paradigm disagree with the
	// Course record or with each other.
	KindHeader Kind = "header_mismatch"
	// KindUnknownTemplate: no compiler for this template id and version.
	KindUnknownTemplate Kind = "unknown_template"
	// KindUnknownKey: a key the template does not write (an unknown phase included).
	KindUnknownKey Kind = "unknown_key"
	// KindMissingKey: a key the template always writes is absent.
	KindMissingKey Kind = "missing_key"
	// KindWrongType: a value of the wrong YAML type.
	KindWrongType Kind = "wrong_type"
	// KindUnusable: an entry that cannot become a step (an empty triple part,
	// an empty walk, a probe that does not expect rejection, …).
	KindUnusable Kind = "unusable_entry"
	// KindInconsistent: an entry disagrees with the entry that carries it.
	KindInconsistent Kind = "inconsistent"
	// KindPlanDigest: the plan could not be hashed.
	KindPlanDigest Kind = "plan_digest"
)

// Error is every error Compile returns.
type Error struct {
	Kind Kind
	Path string // "$.phase_2_axiomatic_rotor_scaffolding.relations[3].head"
	Msg  string
}

func (e *Error) Error() string {
	if e.Path != "" {
		return fmt.Sprintf("compile: %s at %s: %s", e.Kind, e.Path, e.Msg)
	}
	return fmt.Sprintf("compile: %s: %s", e.Kind, e.Msg)
}

// Is matches on kind: errors.Is(err, &compile.Error{Kind: compile.KindUnknownKey}).
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Kind == e.Kind
}

func errorf(kind Kind, path, format string, args ...any) *Error {
	return &Error{Kind: kind, Path: path, Msg: fmt.Sprintf(format, args...)}
}
