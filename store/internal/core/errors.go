// Package core holds what every object-store backend shares: the error kinds,
// the validation of digests, subject ids and ref names, the key layout and the
// envelope in which ref values are stored. It is internal so that the public
// surface stays in package store, which re-exports these names.
package core

import (
	"errors"
	"strconv"
	"strings"
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
