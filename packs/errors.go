package packs

import (
	"errors"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"formation/internal/exitcode"
)

// Reason is a stable code naming why a pack was refused. Audit records and
// tests key on it; the human text lives in the error message.
type Reason string

// The reasons a pack load can fail.
const (
	ReasonInvalidPackID       Reason = "invalid_pack_id"
	ReasonNotFound            Reason = "pack_not_found"
	ReasonUnreadable          Reason = "pack_unreadable"
	ReasonNotObject           Reason = "pack_not_object"
	ReasonMissingFields       Reason = "missing_required_fields"
	ReasonUnsupportedSchema   Reason = "unsupported_schema_version"
	ReasonPackIDMismatch      Reason = "pack_id_mismatch"
	ReasonInvalidField        Reason = "invalid_field"
	ReasonNotRatified         Reason = "pack_not_ratified" // no report digest declared, or the report says ratified=false
	ReasonReportMissing       Reason = "companion_report_missing"
	ReasonReportUnreadable    Reason = "companion_report_unreadable"
	ReasonReportNotObject     Reason = "companion_report_not_object"
	ReasonReportSHAMismatch   Reason = "companion_report_sha_mismatch"
	ReasonReportSealInvalid   Reason = "companion_report_seal_invalid"
	ReasonReportOtherPack     Reason = "companion_report_other_pack"
	ReasonReportStale         Reason = "companion_report_stale" // the pack changed after its report was sealed
	ReasonInvalidBoundaries   Reason = "invalid_boundary_ids"
	ReasonDuplicateBoundary   Reason = "duplicate_boundary_id"
	ReasonInvalidDescriptions Reason = "invalid_boundary_descriptions"
	ReasonInvalidThreshold    Reason = "invalid_alignment_threshold"
	ReasonInvalidAxes         Reason = "invalid_value_axes"
	ReasonInvalidPreferences  Reason = "invalid_surface_preferences"
	ReasonPackMissing         Reason = "pack_missing" // a nil pack handed to Compose or Check
	ReasonCanceled            Reason = "canceled"
)

// ReasonOf returns the reason of a pack refusal anywhere in err's chain: a
// *SignatureError, *SafetyPackError, *IdentityPackError or *RatificationError.
func ReasonOf(err error) (Reason, bool) {
	var s *SafetyPackError
	var i *IdentityPackError
	var r *RatificationError
	var g *SignatureError
	switch {
	case errors.As(err, &g):
		return g.Reason, true
	case errors.As(err, &s):
		return s.Reason, true
	case errors.As(err, &i):
		return i.Reason, true
	case errors.As(err, &r):
		return r.Reason, true
	}
	return "", false
}

// SafetyPackError is the only error the safety pack loader returns. It is
// deliberately not an input-validation error: without an operative safety pack
// the runtime must not start, so callers report it and stop. Do not catch it
// and continue, and do not fall back to another pack.
type SafetyPackError struct {
	Reason Reason
	PackID string
	Detail string // the full message, worded as in the original where it had one
	Err    error  // the underlying cause, when there is one
}

func (e *SafetyPackError) Error() string { return e.Detail }

// Unwrap exposes the cause (an I/O or decode error) to errors.Is and errors.As.
func (e *SafetyPackError) Unwrap() error { return e.Err }

// ExitCode is 77 for every safety pack failure: the runtime refuses to start.
func (e *SafetyPackError) ExitCode() int { return exitcode.SealInvalid }

// ReasonCode is the refusal's reason code (exitcode.Reasoner).
func (e *SafetyPackError) ReasonCode() string { return string(e.Reason) }

// IdentityPackError is returned when an identity pack cannot be loaded. Unlike
// a safety pack failure it is recoverable: SelectIdentity falls back to the
// default pack and reports the failure as an IdentityFallback.
type IdentityPackError struct {
	Reason Reason
	PackID string
	Detail string
	Err    error
}

func (e *IdentityPackError) Error() string { return e.Detail }

// Unwrap exposes the cause to errors.Is and errors.As.
func (e *IdentityPackError) Unwrap() error { return e.Err }

// ExitCode is 77, as for a safety pack: it reaches a caller only when no
// identity pack can be loaded (the default failed too), and the runtime
// refuses to start without one.
func (e *IdentityPackError) ExitCode() int { return exitcode.SealInvalid }

// ReasonCode is the refusal's reason code (exitcode.Reasoner).
func (e *IdentityPackError) ReasonCode() string { return string(e.Reason) }

// fault is a refusal found by code shared between the two loaders; each
// loader turns it into its own error type.
type fault struct {
	reason Reason
	detail string
	cause  error
}

func newFault(reason Reason, cause error, format string, args ...any) *fault {
	return &fault{reason: reason, detail: fmt.Sprintf(format, args...), cause: cause}
}

func (f *fault) safety(packID string) *SafetyPackError {
	return &SafetyPackError{Reason: f.reason, PackID: packID, Detail: f.detail, Err: f.cause}
}

func (f *fault) identity(packID string) *IdentityPackError {
	return &IdentityPackError{Reason: f.reason, PackID: packID, Detail: f.detail, Err: f.cause}
}

// pyRepr quotes s the way Python's repr() does, because the original's error
// messages embed ids and paths with repr and its tests match on that text.
func pyRepr(s string) string {
	quote := byte('\'')
	if strings.Contains(s, "'") && !strings.Contains(s, `"`) {
		quote = '"'
	}
	var b strings.Builder
	b.WriteByte(quote)
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			fmt.Fprintf(&b, `\x%02x`, s[i])
			i++
			continue
		}
		i += size
		writeReprRune(&b, r, quote)
	}
	b.WriteByte(quote)
	return b.String()
}

func writeReprRune(b *strings.Builder, r rune, quote byte) {
	switch {
	case r == '\\' || r == rune(quote):
		b.WriteByte('\\')
		b.WriteRune(r)
	case r == '\n':
		b.WriteString(`\n`)
	case r == '\r':
		b.WriteString(`\r`)
	case r == '\t':
		b.WriteString(`\t`)
	case unicode.IsPrint(r):
		b.WriteRune(r)
	case r < 0x100:
		fmt.Fprintf(b, `\x%02x`, r)
	case r < 0x10000:
		fmt.Fprintf(b, `\u%04x`, r)
	default:
		fmt.Fprintf(b, `\U%08x`, r)
	}
}

// pyList renders a list of strings as Python prints a list: ['a', 'b'].
func pyList(items []string) string {
	quoted := make([]string, len(items))
	for i, s := range items {
		quoted[i] = pyRepr(s)
	}
	return "[" + strings.Join(quoted, ", ") + "]"
}
