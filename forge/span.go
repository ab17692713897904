package forge

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"

	"formation/artifact"
)

// SpanChecker compares a citation's span with the bytes of the text object
// it names. Check is called only for refs with HasSpanRange, a clean
// TextSHA and 0 <= Start < End. It returns nil when text[Start:End] is
// exactly ref.Span; an error wrapping ErrSpanMismatch when the bytes differ;
// an error wrapping ErrSpanUnverifiable when the evidence cannot be read as
// stated (object missing or corrupt, range outside the text, text not
// belonging to the source). Any other error (store unreachable, context
// cancelled) is not a verdict on the evidence and aborts Validate.
type SpanChecker interface {
	Check(ctx context.Context, ref artifact.SourceRef) error
}

// Verdicts a SpanChecker reports by wrapping these.
var (
	ErrSpanMismatch     = errors.New("span bytes differ from the text object")
	ErrSpanUnverifiable = errors.New("span cannot be verified against a text object")
)

// MemoryTexts is an in-memory SpanChecker: text objects by the SHA-256 of
// their bytes. It re-hashes the object on every check, as the store does, so
// a corrupted entry is unverifiable rather than trusted.
type MemoryTexts map[string][]byte

// Put stores text under its digest and returns the digest.
func (m MemoryTexts) Put(text []byte) string {
	sum := sha256.Sum256(text)
	d := hex.EncodeToString(sum[:])
	m[d] = bytes.Clone(text)
	return d
}

// Check implements SpanChecker.
func (m MemoryTexts) Check(ctx context.Context, ref artifact.SourceRef) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if !ref.HasSpanRange() {
		return fmt.Errorf("%w: no byte range", ErrSpanUnverifiable)
	}
	text, ok := m[ref.TextSHA]
	if !ok {
		return fmt.Errorf("%w: no such text object", ErrSpanUnverifiable)
	}
	sum := sha256.Sum256(text)
	var digest [2 * sha256.Size]byte
	hex.Encode(digest[:], sum[:])
	if string(digest[:]) != ref.TextSHA {
		return fmt.Errorf("%w: the text object is corrupt", ErrSpanUnverifiable)
	}
	start, end := *ref.Start, *ref.End
	if start < 0 || end < start || end > int64(len(text)) {
		return fmt.Errorf("%w: the range lies outside the %d-byte text", ErrSpanUnverifiable, len(text))
	}
	if string(text[start:end]) != ref.Span {
		return ErrSpanMismatch
	}
	return nil
}
