package compose

import "fmt"

// Kind names why Compose refused its input. The values are stable: audit
// records and exit-code mapping key on them.
type Kind string

// The kinds of refusal.
const (
	// KindUnknownTemplate: the template id is not registered.
	KindUnknownTemplate Kind = "unknown_template"
	// KindVersionMismatch: the caller asked for another template version.
	KindVersionMismatch Kind = "version_mismatch"
	// KindPrecondition: the template cannot render this validated set.
	KindPrecondition Kind = "template_precondition"
	// KindInvalidInput: an argument is malformed (bundle digest, subject).
	KindInvalidInput Kind = "invalid_input"
	// KindUnsupportedValue: the emitter met a float or a type it cannot write.
	KindUnsupportedValue Kind = "unsupported_value"
	// KindInvalidUTF8: a string is not valid UTF-8.
	KindInvalidUTF8 Kind = "invalid_utf8"
	// KindKeyTooLong: a mapping key too long for a YAML implicit key.
	KindKeyTooLong Kind = "key_too_long"
)

// Error is every error this package returns.
type Error struct {
	Kind Kind
	Path string // where in the body, for emitter errors ("$.a[2].b")
	Msg  string
}

func (e *Error) Error() string {
	if e.Path != "" {
		return fmt.Sprintf("compose: %s at %s: %s", e.Kind, e.Path, e.Msg)
	}
	return fmt.Sprintf("compose: %s: %s", e.Kind, e.Msg)
}

// Is matches on kind: errors.Is(err, &compose.Error{Kind: compose.KindPrecondition}).
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Kind == e.Kind
}

func preconditionf(format string, args ...any) *Error {
	return &Error{Kind: KindPrecondition, Msg: fmt.Sprintf(format, args...)}
}
