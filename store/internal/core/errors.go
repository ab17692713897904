// Package core holds what every object-store backend shares: the error kinds,
// the validation of digests, subject ids and ref names, the key layout and the
// envelope in which ref values are stored. It is internal so that the public
// surface stays in package store, which re-exports these names.
package core

import (
	"context"
	"errors"
	"strconv"
	"strings"

	"formation/internal/exitcode"
)

// Error kinds. Every error returned by a backend is an *Error whose Kind is one
// of these (or nil for an unclassified failure); callers match them with
// errors.Is.
var (
	ErrNotFound     = errors.New("not found")
	ErrCorrupt      = errors.New("corrupt")
	ErrPrecondition = errors.New("precondition failed")
	ErrUnavailable  = errors.New("store unavailable")
	ErrInvalid      = errors.New("invalid name")
	// ErrConfig: the store is set up wrongly and no retry can help: an
	// endpoint that is not an S3 server or does not hold the bucket, a TLS
	// mismatch, malformed or missing credentials, a folder that cannot be
	// written.
	ErrConfig = errors.New("store misconfigured")
	// ErrDenied: the server refused the credentials it was given.
	ErrDenied = errors.New("credentials refused")
	// ErrTooLarge: an object past the store's cap on an object's size.
	ErrTooLarge = errors.New("object too large")
)

// Error describes a failed store operation.
type Error struct {
	Op   string // operation, e.g. "get", "setref"
	Key  string // digest, ref name, prefix or store URL the operation was about
	Kind error  // one of the Err* kinds, or nil
	Err  error  // underlying cause, or nil
}

// maxKeyInMessage keeps error messages readable when a rejected name is huge.
const maxKeyInMessage = 128

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString("store: ")
	b.WriteString(e.Op)
	if e.Key != "" {
		key := e.Key
		if len(key) > maxKeyInMessage {
			key = key[:maxKeyInMessage] + "..."
		}
		b.WriteString(" ")
		b.WriteString(strconv.Quote(key))
	}
	if e.Kind != nil {
		b.WriteString(": ")
		b.WriteString(e.Kind.Error())
	}
	if e.Err != nil {
		b.WriteString(": ")
		b.WriteString(e.Err.Error())
	}
	return b.String()
}

// Unwrap exposes both the kind and the cause, so errors.Is matches either.
func (e *Error) Unwrap() []error {
	errs := make([]error, 0, 2)
	if e.Kind != nil {
		errs = append(errs, e.Kind)
	}
	if e.Err != nil {
		errs = append(errs, e.Err)
	}
	return errs
}

// E builds an *Error.
func E(op, key string, kind, err error) *Error {
	return &Error{Op: op, Key: key, Kind: kind, Err: err}
}

// Errorf builds an *Error whose cause is a formatted message.
func Errorf(op, key string, kind error, msg string) *Error {
	return &Error{Op: op, Key: key, Kind: kind, Err: errors.New(msg)}
}

// ExitCode is the process exit code of the failure (exitcode.Coder): this
// is the one place where store errors meet the exit-code table.
func (e *Error) ExitCode() int {
	switch e.Kind {
	case ErrNotFound:
		return exitcode.NotFound
	case ErrCorrupt, ErrInvalid, ErrTooLarge:
		return exitcode.Rejected
	case ErrPrecondition, ErrUnavailable:
		return exitcode.Unavailable
	case ErrConfig:
		return exitcode.Config
	case ErrDenied:
		return exitcode.SealInvalid
	}
	switch {
	case errors.Is(e.Err, context.Canceled):
		return exitcode.Interrupted
	case errors.Is(e.Err, context.DeadlineExceeded):
		return exitcode.Unavailable
	}
	return exitcode.Internal
}

// Reason is the error's reason code for machine-readable failures.
func (e *Error) ReasonCode() string {
	switch e.Kind {
	case ErrNotFound:
		return "store_not_found"
	case ErrCorrupt:
		return "corrupt_object"
	case ErrInvalid:
		return "invalid_name"
	case ErrTooLarge:
		return "object_too_large"
	case ErrPrecondition:
		return "ref_race_lost"
	case ErrUnavailable:
		return "store_unavailable"
	case ErrConfig:
		return "store_misconfigured"
	case ErrDenied:
		return "credentials_refused"
	}
	return "store_error"
}
