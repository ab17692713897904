package courses

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"formation/ident"
)

// Path reason codes, shared with the miner, which reports them as refusals.
const (
	CodePathEscapes = "path_escapes" // absolute, or climbs out with ".."
	CodeBadPath     = "bad_path"     // empty, not clean, backslashes, NUL, not UTF-8
)

// MaxIDLen bounds every id so that ids fit in store keys and file names.
const MaxIDLen = ident.MaxIDLen

// ValidSubjectID checks a subject id with the one id rule (ident.CheckID):
// [A-Za-z0-9._-]+, at most MaxIDLen bytes, not starting with '.', never
// containing "..". The same rule keeps source, question, domain and lane ids
// safe to use in keys and paths.
func ValidSubjectID(s string) error { return ident.CheckID(s) }

// validModel checks an LLM model name: the id alphabet plus ':' (as in
// "name:tag"), never '/', so that "llm_ideation/<model>" splits one way.
func validModel(s string) bool {
	if s == "" || len(s) > MaxIDLen {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !ident.IDByte(s[i]) && s[i] != ':' {
			return false
		}
	}
	return true
}

// ValidTime reports whether s is an ISO time of the form
// YYYY-MM-DDTHH:MM:SSZ with plausible field ranges (the form every
// retrieved_at and issued_at of the original takes).
func ValidTime(s string) bool {
	if len(s) != 20 || s[4] != '-' || s[7] != '-' || s[10] != 'T' || s[13] != ':' || s[16] != ':' || s[19] != 'Z' {
		return false
	}
	fields := [...]struct{ at, lo, hi int }{{0, 0, 9999}, {5, 1, 12}, {8, 1, 31}, {11, 0, 23}, {14, 0, 59}, {17, 0, 59}}
	for i, f := range fields {
		width := 2
		if i == 0 {
			width = 4
		}
		n := 0
		for j := f.at; j < f.at+width; j++ {
			if s[j] < '0' || s[j] > '9' {
				return false
			}
			n = n*10 + int(s[j]-'0')
		}
		if n < f.lo || n > f.hi {
			return false
		}
	}
	return true
}

// ValidSHA256 reports whether s is a digest (ident.ValidDigest).
func ValidSHA256(s string) bool { return ident.ValidDigest(s) }

// PathError says why a source path is refused.
type PathError struct {
	Path   string
	Code   string // CodePathEscapes or CodeBadPath
	Detail string
}

func (e *PathError) Error() string {
	return fmt.Sprintf("path %q refused (%s): %s", e.Path, e.Code, e.Detail)
}

// CheckRelPath checks that p is a clean, slash-separated path relative to
// the subject folder that cannot leave it lexically. Symlinks are the
// miner's business: it refuses them when it opens the path.
func CheckRelPath(p string) error {
	bad := func(code, detail string) error { return &PathError{Path: p, Code: code, Detail: detail} }
	switch {
	case p == "":
		return bad(CodeBadPath, "empty path")
	case !utf8.ValidString(p):
		return bad(CodeBadPath, "not valid UTF-8")
	case strings.ContainsRune(p, 0):
		return bad(CodeBadPath, "contains NUL")
	case strings.ContainsRune(p, '\\'):
		return bad(CodeBadPath, "backslashes are not path separators here; use '/'")
	case p[0] == '/' || (len(p) > 1 && p[1] == ':'):
		return bad(CodePathEscapes, "absolute path")
	}
	for _, seg := range strings.Split(p, "/") {
		switch seg {
		case "..":
			return bad(CodePathEscapes, "\"..\" leaves the subject folder")
		case "", ".":
			return bad(CodeBadPath, "not a clean path (empty or \".\" segment)")
		}
	}
	return nil
}
