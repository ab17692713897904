package core

import (
	"context"
	"fmt"
	"io"
)

// CtxReader stops a copy when the context ends and marks the caller's read
// errors as SourceError: a failing source says nothing about the store's
// health, so both backends keep it apart from their own I/O errors.
type CtxReader struct {
	Ctx context.Context
	R   io.Reader
}

func (c CtxReader) Read(p []byte) (int, error) {
	if err := c.Ctx.Err(); err != nil {
		return 0, err
	}
	n, err := c.R.Read(p)
	if err != nil && err != io.EOF {
		err = &SourceError{Err: err}
	}
	return n, err
}

// SourceError is a failure of the reader handed to PutReader.
type SourceError struct{ Err error }

func (e *SourceError) Error() string { return fmt.Sprintf("reading source: %v", e.Err) }
func (e *SourceError) Unwrap() error { return e.Err }
