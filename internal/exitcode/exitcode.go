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
	Unavailable = 75  // the store is unavailable or a race was lost: retry
	SealInvalid = 77  // a seal, signature or reviewer registry is invalid
	Interrupted = 130 // SIGINT or SIGTERM
)

// Error is an error that decides the exit code.
type Error struct {
	Code int
	Err  error
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
