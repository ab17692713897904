// Package exitcode holds Formation's process exit codes and the error type
// that carries one from a command to main.
package exitcode

import (
	"context"
	"errors"
	"fmt"
)

// The exit codes. They are part of the product's contract: schedulers and CI
// decide on them, so they never change meaning.
const (
	OK          = 0   // success, a cache hit included
	Internal    = 1   // a bug or an unexpected condition
	Usage       = 2   // the command line was wrong
	GatesFailed = 3   // ratification gates failed
	Rejected    = 65  // bad input, a corrupt object or a hard halt: never retry
	NotFound    = 66  // a named input does not exist
	Unavailable = 75  // what a retry can fix: timeouts, 5xx, refused connections, throttling, a lost race
	SealInvalid = 77  // a seal, signature or reviewer registry is invalid; credentials refused
	Config      = 78  // a configuration error: wrong endpoint, TLS mismatch, unwritable folder, bad credentials
	Interrupted = 130 // SIGINT or SIGTERM
)

// Row is one line of the exit-code table.
type Row struct {
	Code    int
	Meaning string
}

// Table is the exit-code table as users read it. The README, `formation
// --help` and the deployment files print these rows; a test compares them.
func Table() []Row {
	return []Row{
		{OK, "ok (a cache hit included)"},
		{Internal, "internal error (a bug or an unexpected condition)"},
		{Usage, "usage error: the command line was wrong"},
		{GatesFailed, "ratification gates failed"},
		{Rejected, "input rejected: bad input, a corrupt object, a hard halt (never retry)"},
		{NotFound, "missing input: a subject, file, object or store that does not exist"},
		{Unavailable, "retry: a timeout, a 5xx reply, a refused connection, throttling, a compare-and-swap lost after the retry policy"},
		{SealInvalid, "seal, signature or reviewer registry invalid; a reviewed state that is not the pinned one; credentials refused by the server"},
		{Config, "configuration error: wrong endpoint, not an S3 server, TLS mismatch, unwritable folder, missing or malformed credentials"},
		{Interrupted, "interrupted (SIGINT or SIGTERM)"},
	}
}

// Error is an error that decides the exit code.
type Error struct {
	Code int
	Err  error
}

// Reasoner is an error that names its machine-readable reason code (a
// stage halt's, a promotion refusal's, a store error's kind).
type Reasoner interface {
	error
	ReasonCode() string
}

// ReasonOf is the reason code of err: the outermost Reasoner's, else the
// name of its exit code (usage, not_found, …).
func ReasonOf(err error) string {
	var r Reasoner
	if errors.As(err, &r) && r.ReasonCode() != "" {
		return r.ReasonCode()
	}
	return Name(Of(err))
}

// Name is a short machine-readable name of an exit code.
func Name(code int) string {
	switch code {
	case OK:
		return "ok"
	case Internal:
		return "internal"
	case Usage:
		return "usage"
	case GatesFailed:
		return "gates_failed"
	case Rejected:
		return "rejected"
	case NotFound:
		return "not_found"
	case Unavailable:
		return "unavailable"
	case SealInvalid:
		return "seal_invalid"
	case Config:
		return "config"
	case Interrupted:
		return "interrupted"
	}
	return "exit_" + fmt.Sprint(code)
}

func (e *Error) Error() string { return e.Err.Error() }
func (e *Error) Unwrap() error { return e.Err }

// ExitCode is the code the error decides.
func (e *Error) ExitCode() int { return e.Code }

// Coder is an error that decides its own exit code. Of finds the outermost
// one in an error's chain with errors.As, so a package's typed refusal (a
// stage halt, a promotion refusal) carries its code without wrapping.
type Coder interface {
	error
	ExitCode() int
}

// With wraps err so that it exits with code. A nil err stays nil.
func With(code int, err error) error {
	if err == nil {
		return nil
	}
	return &Error{Code: code, Err: err}
}

// Newf is With(code, fmt.Errorf(format, args...)).
func Newf(code int, format string, args ...any) error {
	return &Error{Code: code, Err: fmt.Errorf(format, args...)}
}

// Classifier maps an error of some package (the store, say) to an exit code,
// or returns 0 when it does not recognise the error.
type Classifier func(error) int

// Of returns the exit code for err: the code of the first Coder in its
// chain, else the first
// classifier that recognises it, else Interrupted for a cancelled context,
// else Internal.
func Of(err error, classifiers ...Classifier) int {
	if err == nil {
		return OK
	}
	var c Coder
	if errors.As(err, &c) {
		return c.ExitCode()
	}
	for _, c := range classifiers {
		if code := c(err); code != 0 {
			return code
		}
	}
	if errors.Is(err, context.Canceled) {
		return Interrupted
	}
	return Internal
}
