package core

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"

	"formation/ident"
)

// MaxRefNameLen bounds a whole ref name. Each segment follows the id rule
// of package ident (at most 255 bytes: it becomes a file or folder name on
// the file backend, and on posix-backed S3 servers, so it must fit NAME_MAX).
const MaxRefNameLen = 512

// Key layout shared by both backends (relative to the store root or prefix).
const (
	ObjectsDir = "objects/sha256"
	RefsDir    = "refs"
)

// ValidDigest reports whether s is a digest (ident.ValidDigest).
func ValidDigest(s string) bool { return ident.ValidDigest(s) }

// DigestOf returns the lowercase hex SHA-256 of data.
func DigestOf(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// CheckDigest returns an ErrInvalid *Error when s is not a digest.
func CheckDigest(op, s string) error {
	if !ValidDigest(s) {
		return Errorf(op, s, ErrInvalid, "digest must be 64 lowercase hex characters")
	}
	return nil
}

// ObjectKey is the slash-separated key of an object: objects/sha256/ab/abcd….
// The digest must already be valid.
func ObjectKey(digest string) string {
	return ObjectsDir + "/" + digest[:2] + "/" + digest
}

// RefKey is the slash-separated key of a ref: refs/<name>. The name must
// already be valid.
func RefKey(name string) string {
	return RefsDir + "/" + name
}

// refRoot reports whether seg may start a ref name: the store's top-level
// ref namespaces.
func refRoot(seg string) bool {
	switch seg {
	case "subjects", "index", "knowledge", "lanes", "audit", "cache", "packs", "proposals":
		return true
	}
	return false
}

// checkSegment applies the id rule shared by subject ids and ref segments.
func checkSegment(seg string) error { return ident.CheckID(seg) }

// ValidSubjectID checks a subject id: [A-Za-z0-9._-]+, not starting with '.',
// never containing "..", at most MaxSegmentLen bytes.
func ValidSubjectID(s string) error {
	if err := checkSegment(s); err != nil {
		return E("subject id", s, ErrInvalid, err)
	}
	return nil
}

// ValidRefName checks a ref name: at least two slash-separated segments, each
// a valid segment (see ValidSubjectID), the first one a known root, no empty
// segment, no leading or trailing slash, at most MaxRefNameLen bytes.
func ValidRefName(name string) error {
	if err := checkRefName(name); err != nil {
		return E("ref name", name, ErrInvalid, err)
	}
	return nil
}

func checkRefName(name string) error {
	if err := checkShape(name); err != nil {
		return err
	}
	if strings.HasSuffix(name, "/") {
		return errors.New("trailing slash")
	}
	segs := strings.Split(name, "/")
	if len(segs) < 2 {
		return errors.New("a ref name needs a root and at least one more segment")
	}
	return checkSegments(segs)
}

// checkShape applies the whole-string rules shared by names and prefixes.
func checkShape(s string) error {
	switch {
	case s == "":
		return errors.New("empty name")
	case len(s) > MaxRefNameLen:
		return fmt.Errorf("longer than %d bytes", MaxRefNameLen)
	case s[0] == '/':
		return errors.New("leading slash")
	}
	return nil
}

func checkSegments(segs []string) error {
	if !refRoot(segs[0]) {
		return fmt.Errorf("unknown root %q (want subjects, index, knowledge, lanes, audit, cache, packs or proposals)", segs[0])
	}
	for _, seg := range segs[1:] {
		if err := checkSegment(seg); err != nil {
			return err
		}
	}
	return nil
}

// ValidRefPrefix checks a listing prefix: empty, or a string every complete
// segment of which is valid (the first one a known root) and whose last,
// possibly partial, segment uses only name characters and does not start with
// '.'. "subjects/", "subjects/ab" and "sub" are valid prefixes.
func ValidRefPrefix(prefix string) error {
	if prefix == "" {
		return nil
	}
	if err := checkPrefix(prefix); err != nil {
		return E("ref prefix", prefix, ErrInvalid, err)
	}
	return nil
}

func checkPrefix(prefix string) error {
	if err := checkShape(prefix); err != nil {
		return err
	}
	segs := strings.Split(prefix, "/")
	complete, partial := segs[:len(segs)-1], segs[len(segs)-1]
	if len(complete) > 0 {
		if err := checkSegments(complete); err != nil {
			return err
		}
	}
	if partial == "" {
		return nil
	}
	// A partial segment only filters names, but it must still be something a
	// name could start with.
	if err := checkSegment(partial); err != nil {
		return err
	}
	return nil
}
