// Package ident holds the two kinds of name every other package builds keys,
// refs and paths from, each with its one validator: a Digest (the SHA-256
// of an object's canonical bytes, 64 lowercase hex) and a SubjectID (the
// safe-name rule shared by subject, course, source, domain and lane ids and
// by every ref segment). Nothing else in the module checks either by hand; a
// test of the module's sources keeps it so.
package ident

import (
	"errors"
	"fmt"
	"strings"
)

// DigestLen is the length of a digest in hex.
const DigestLen = 64

// MaxIDLen bounds an id so that it fits in a store key and a file name.
const MaxIDLen = 255

// Digest is a SHA-256 digest in lowercase hex.
type Digest string

// ValidDigest reports whether s is a digest: exactly 64 lowercase hex
// characters.
func ValidDigest(s string) bool {
	if len(s) != DigestLen {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// ErrNotDigest is the error ParseDigest wraps.
var ErrNotDigest = errors.New("not a digest (64 lowercase hex characters)")

// ParseDigest checks s and returns it as a Digest.
func ParseDigest(s string) (Digest, error) {
	if !ValidDigest(s) {
		return "", fmt.Errorf("%q: %w", truncate(s), ErrNotDigest)
	}
	return Digest(s), nil
}

func (d Digest) String() string { return string(d) }

// SubjectID is a safe name: [A-Za-z0-9._-]+, at most MaxIDLen bytes, never
// starting with '.' and never containing "..".
type SubjectID string

// CheckID applies the safe-name rule to s and says what is wrong, or nil.
func CheckID(s string) error {
	switch {
	case s == "":
		return errors.New("empty id")
	case len(s) > MaxIDLen:
		return fmt.Errorf("id longer than %d bytes", MaxIDLen)
	case s[0] == '.':
		return fmt.Errorf("id %q starts with '.'", truncate(s))
	case strings.Contains(s, ".."):
		return fmt.Errorf("id %q contains \"..\"", truncate(s))
	}
	for i := 0; i < len(s); i++ {
		if !IDByte(s[i]) {
			return fmt.Errorf("id %q has the character %q, outside [A-Za-z0-9._-]", truncate(s), s[i])
		}
	}
	return nil
}

// ParseSubjectID checks s and returns it as a SubjectID.
func ParseSubjectID(s string) (SubjectID, error) {
	if err := CheckID(s); err != nil {
		return "", err
	}
	return SubjectID(s), nil
}

func (s SubjectID) String() string { return string(s) }

// IDByte reports whether c may appear in an id.
func IDByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '.' || c == '_' || c == '-'
}

// truncate keeps error messages short when an untrusted value is huge.
func truncate(s string) string {
	if len(s) > 80 {
		return s[:80] + "…"
	}
	return s
}
