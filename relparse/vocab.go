package relparse

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"formation/artifact"
)

// A subject may declare relations beyond the original's 17 (subject.yaml's
// relations: list). A Vocabulary is the 17 followed by those declared ones,
// and its Parse reads a sentence exactly as Parse does, with the declared
// relations tried after the 17. The vocabulary stays closed: a sentence
// whose only predicate is neither one of the 17 nor declared still does not
// parse.
//
// The zero Vocabulary is the original's: its Parse is Parse.

// ErrBadRelationName is wrapped by every error about a declared relation:
// a name that is not lower-case words joined by '_', one of the 17, or a
// name declared twice.
var ErrBadRelationName = errors.New("invalid declared relation")

// Vocabulary is the relation vocabulary of one subject. It is a value: safe
// to copy and to share between goroutines.
type Vocabulary struct {
	// declared holds the declared relations in priority order: more words
	// first, then code-point order.
	declared []string
}

// ValidRelationName reports whether name is lower-case ASCII words joined
// by single underscores ([a-z]+(_[a-z]+)*), the form every relation of the
// vocabulary has.
func ValidRelationName(name string) bool {
	if name == "" || name[0] == '_' || name[len(name)-1] == '_' {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		switch {
		case 'a' <= c && c <= 'z':
		case c == '_' && name[i-1] != '_':
		default:
			return false
		}
	}
	return true
}

// NewVocabulary checks the declared relations and ranks them after the 17:
// a relation of more words first ("is_part_of" before "contains"), then
// code-point order. Every name must satisfy ValidRelationName, must not be
// one of the 17 and must be declared once; otherwise the error wraps
// ErrBadRelationName. The order of declared does not matter.
func NewVocabulary(declared []string) (Vocabulary, error) {
	seen := make(map[string]bool, len(declared))
	for _, r := range declared {
		switch {
		case !ValidRelationName(r):
			return Vocabulary{}, fmt.Errorf("%w: %q is not lower-case words joined by '_'", ErrBadRelationName, r)
		case IsRelation(r):
			return Vocabulary{}, fmt.Errorf("%w: %q is already one of the original 17 relations", ErrBadRelationName, r)
		case seen[r]:
			return Vocabulary{}, fmt.Errorf("%w: %q is declared twice", ErrBadRelationName, r)
		}
		seen[r] = true
	}
	ranked := slices.Clone(declared)
	slices.SortFunc(ranked, func(a, b string) int {
		return cmp.Or(cmp.Compare(strings.Count(b, "_"), strings.Count(a, "_")), strings.Compare(a, b))
	})
	return Vocabulary{declared: ranked}, nil
}

// Declared returns the declared relations in code-point order (nil when
// none): the form a validated set records them in.
func (v Vocabulary) Declared() []string {
	if len(v.declared) == 0 {
		return nil
	}
	out := slices.Clone(v.declared)
	slices.Sort(out)
	return out
}

// Relations returns the whole vocabulary in priority order: the 17, then the
// declared relations.
func (v Vocabulary) Relations() []string { return append(Relations(), v.declared...) }

// Priority returns rel's index in Relations, or -1.
func (v Vocabulary) Priority(rel string) int {
	if p := Priority(rel); p >= 0 {
		return p
	}
	if i := slices.Index(v.declared, rel); i >= 0 {
		return numRelations + i
	}
	return -1
}

// IsRelation reports whether rel is in the vocabulary.
func (v Vocabulary) IsRelation(rel string) bool { return v.Priority(rel) >= 0 }

// Parse reads text as "<head> <relation> <tail>" exactly as Parse does, with
// the declared relations tried after the 17 in their rank order. Like the 17,
// a declared relation is recognised as a whole word written in its
// underscore form ("x is_part_of y"). With nothing declared it is Parse.
func (v Vocabulary) Parse(text string) (artifact.Triple, bool) {
	if len(v.declared) == 0 {
		return Parse(text)
	}
	if text == "" || !utf8.ValidString(text) {
		return artifact.Triple{}, false
	}
	s := Normalize(text)
	if s == "" {
		return artifact.Triple{}, false
	}
	first := v.firstOccurrences(s)
	all := v.Relations()
	for p, at := range first {
		if at < 0 {
			continue
		}
		rel := all[p]
		head := StripArticles(TrimSpace(s[:at]))
		tail := StripArticles(TrimSpace(s[at+len(rel):]))
		if head != "" && tail != "" {
			return artifact.Triple{Head: head, Relation: rel, Tail: tail}, true
		}
	}
	return artifact.Triple{}, false
}

// firstOccurrences is the package's firstOccurrences over the whole
// vocabulary: per relation, by priority, the offset of its first whole-word
// occurrence in s, or -1.
func (v Vocabulary) firstOccurrences(s string) []int {
	first := make([]int, numRelations+len(v.declared))
	for i := range first {
		first[i] = -1
	}
	for i := 0; i < len(s); {
		start := i
		i = wordEnd(s, i)
		if i == start {
			_, w := decodeRune(s, i)
			i += w
			continue
		}
		if p := v.Priority(s[start:i]); p >= 0 && first[p] < 0 {
			first[p] = start
		}
	}
	return first
}
