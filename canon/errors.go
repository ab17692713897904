package canon

import "fmt"

// Kind names why a value or a document was refused.
type Kind string

// The kinds of refusal. They are stable strings: audit records and tests key on them.
const (
	KindFloat           Kind = "float_forbidden"
	KindInvalidUTF8     Kind = "invalid_utf8"
	KindInvalidUnicode  Kind = "invalid_unicode" // a lone surrogate escape
	KindDuplicateKey    Kind = "duplicate_key"
	KindTrailingData    Kind = "trailing_data"
	KindDepth           Kind = "depth_exceeded"
	KindIntTooLong      Kind = "int_too_many_digits"
	KindSyntax          Kind = "syntax"
	KindUnsupportedType Kind = "unsupported_type"
	KindNonStringKey    Kind = "non_string_key"
	KindSchema          Kind = "schema" // Unmarshal: wrong type, unknown or missing field
)

// Error is every error this package returns.
type Error struct {
	Kind   Kind
	Offset int    // byte offset in the input for decode errors, -1 otherwise
	Path   string // JSON path of the offending value for encode/unmarshal errors
	Msg    string
}

func (e *Error) Error() string {
	switch {
	case e.Offset >= 0:
		return fmt.Sprintf("canonical_json: %s at byte %d: %s", e.Kind, e.Offset, e.Msg)
	case e.Path != "":
		return fmt.Sprintf("canonical_json: %s at %s: %s", e.Kind, e.Path, e.Msg)
	default:
		return fmt.Sprintf("canonical_json: %s: %s", e.Kind, e.Msg)
	}
}

// Is lets errors.Is match on kind: errors.Is(err, &canon.Error{Kind: canon.KindFloat}).
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Kind == e.Kind
}

func encodeErr(kind Kind, path, msg string) *Error {
	return &Error{Kind: kind, Offset: -1, Path: path, Msg: msg}
}

// IsKind reports whether err is a *Error of the given kind.
func IsKind(err error, kind Kind) bool {
	e, ok := asError(err)
	return ok && e.Kind == kind
}
