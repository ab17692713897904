package signing

import "fmt"

// Error is every refusal of this package: a stable reason code, the exit
// code it maps to and a human detail.
type Error struct {
	Code   int
	Reason string
	Detail string
}

func (e *Error) Error() string {
	if e.Detail == "" {
		return "signing: " + e.Reason
	}
	return "signing: " + e.Reason + ": " + e.Detail
}

// ExitCode is the refusal's exit code (exitcode.Coder).
func (e *Error) ExitCode() int { return e.Code }

// ReasonCode is the refusal's reason code (exitcode.Reasoner).
func (e *Error) ReasonCode() string { return e.Reason }

func refuse(code int, reason, format string, args ...any) *Error {
	return &Error{Code: code, Reason: reason, Detail: fmt.Sprintf(format, args...)}
}

// Reason codes.
const (
	ReasonKeyFileExists    = "key_file_exists"
	ReasonKeyFileInvalid   = "key_file_invalid"
	ReasonKeyFileExposed   = "key_file_permissions"
	ReasonTrustedKeysBad   = "trusted_keys_invalid"
	ReasonUntrustedKey     = "untrusted_key"
	ReasonEnvelopeBad      = "envelope_malformed"
	ReasonPayloadType      = "payload_type_mismatch"
	ReasonNoSignatures     = "no_signatures"
	ReasonSignatureInvalid = "signature_invalid"
)
