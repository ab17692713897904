package smelting

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"formation/artifact"
	"formation/ident"
	"formation/relparse"
)

// The smelters of this package. The id of the one that read a sentence is
// recorded in the extractor field of every SourceRef it writes. The
// original stamped "smelter/pattern_v1" into the adapter field instead.
const (
	// PatternV2 is the original's rule set with its corrections
	// (README.md, "smelter/pattern_v2"). The conformance vectors run
	// against it.
	PatternV2 = "smelter/pattern_v2"
	// PatternV3 reads real documentation (README.md,
	// "smelter/pattern_v3"): a main clause's subject, verb and complement,
	// and nothing from a sentence it cannot read with confidence.
	PatternV3 = "smelter/pattern_v3"
	// DefaultExtractor is the smelter of every subject whose subject.yaml
	// does not pin one.
	DefaultExtractor = PatternV3
)

// Extractors lists the smelters, oldest first.
func Extractors() []string { return []string{PatternV2, PatternV3} }

// Version is the smelt stage's code version for its cache key. It changes
// whenever Smelt can return different bytes for the same input and
// options.
const Version = "pattern_v2+1;pattern_v3+1"

// Errors Smelt returns, each wrapped with the entry or text it concerns.
// Any of them halts the stage: the smelter never skips an entry.
var (
	// ErrMalformedDigest: an entry's source_sha or text_sha is not 64
	// lower-case hex digits.
	ErrMalformedDigest = errors.New("smelting: malformed digest")
	// ErrMissingText: texts holds no text for an entry.
	ErrMissingText = errors.New("smelting: no text for an ore entry")
	// ErrTextDigest: a text's bytes do not hash to the digest it is given under.
	ErrTextDigest = errors.New("smelting: text does not hash to its digest")
	// ErrInvalidText: a text is not valid UTF-8.
	ErrInvalidText = errors.New("smelting: text is not valid UTF-8")
	// ErrOptions: the options name no smelter of this package, or declare
	// a relation that is not a relation id or repeats one.
	ErrOptions = errors.New("smelting: invalid options")
)

// Options choose the smelter and what it may read.
type Options struct {
	// Extractor is one of Extractors(); "" means DefaultExtractor.
	Extractor string
	// Relations are the relations the subject declares besides the
	// vocabulary's 17, as relation ids ([a-z]+(_[a-z]+)*, written in prose
	// with spaces: "depends_on" is read as "depends on"), in priority
	// order. They rank after the 17. Only PatternV3 reads them.
	Relations []string
	// OnText, when not nil, is called after each distinct text is smelted
	// with the count so far and the total, for a progress display. The
	// result does not depend on it.
	OnText func(done, total int)
}

// extractor checks the options and returns the smelter's id.
func (o Options) extractor() (string, error) {
	id := o.Extractor
	if id == "" {
		id = DefaultExtractor
	}
	if !slices.Contains(Extractors(), id) {
		return "", fmt.Errorf("%w: no smelter %q (have %s)", ErrOptions, o.Extractor, strings.Join(Extractors(), ", "))
	}
	seen := map[string]bool{}
	for _, r := range o.Relations {
		switch {
		case !relationID(r):
			return "", fmt.Errorf("%w: declared relation %q is not a relation id ([a-z]+(_[a-z]+)*)", ErrOptions, r)
		case relparse.IsRelation(r):
			return "", fmt.Errorf("%w: declared relation %q is already in the vocabulary", ErrOptions, r)
		case seen[r]:
			return "", fmt.Errorf("%w: relation %q is declared twice", ErrOptions, r)
		}
		seen[r] = true
	}
	return id, nil
}

// relationID reports whether r has the form of a relation id:
// [a-z]+(_[a-z]+)*.
func relationID(r string) bool {
	if r == "" {
		return false
	}
	prev := byte('_')
	for i := 0; i < len(r); i++ {
		c := r[i]
		switch {
		case 'a' <= c && c <= 'z':
		case c == '_' && prev != '_':
		default:
			return false
		}
		prev = c
	}
	return prev != '_'
}

// TextKey is the key under which Smelt looks up an entry's text: the
// entry's text_sha, or its source_sha when the entry has none (a plain text
// source is its own text, so its raw bytes are the text object).
func TextKey(e artifact.OreEntry) string {
	if e.TextSHA != "" {
		return e.TextSHA
	}
	return e.SourceSHA
}

// Smelt is SmeltWith under the default options: DefaultExtractor and no
// declared relations.
func Smelt(bundle artifact.OreBundle, texts map[string][]byte) (artifact.SmeltedBundle, error) {
	return SmeltWith(bundle, texts, Options{})
}

// SmeltWith extracts candidates from the ore bundle. texts maps TextKey(entry)
// to the entry's text, exactly the bytes of the object mining stored under
// that digest; Smelt checks that every text hashes to its key, so a span it
// cites can be re-read from the store byte for byte. Texts that no entry
// names are ignored. An empty text yields nothing.
//
// The result does not depend on the order of the bundle's entries: every
// list is sorted (see README.md, "Output order") and every choice between
// equal candidates is made on content. Smelt returns an error, and no
// bundle, when an entry is unusable; the error joins one wrapped Err* value
// per problem, in a fixed order; invalid options are ErrOptions.
func SmeltWith(bundle artifact.OreBundle, texts map[string][]byte, opts Options) (artifact.SmeltedBundle, error) {
	id, err := opts.extractor()
	if err != nil {
		return artifact.SmeltedBundle{}, err
	}
	groups, err := groupEntries(bundle.Entries, texts)
	if err != nil {
		return artifact.SmeltedBundle{}, err
	}
	read := newTextReader(id, opts.Relations)
	acc := newAccumulator(id)
	pairs := map[[2]string]int{}
	var hits []hit
	for i, g := range groups {
		if opts.OnText != nil && i > 0 {
			opts.OnText(i, len(groups))
		}
		hits = read(g.text, hits[:0], nil)
		for _, e := range g.entries {
			pair, ok := pairs[[2]string{e.SourceSHA, g.key}]
			if !ok {
				pair = len(pairs)
				pairs[[2]string{e.SourceSHA, g.key}] = pair
			}
			o := &origin{sourceSHA: e.SourceSHA, textSHA: g.key, adapter: e.Adapter, retrievedAt: e.RetrievedAt, text: g.text, pair: pair}
			acc.add(o, hits)
		}
	}
	if opts.OnText != nil && len(groups) > 0 {
		opts.OnText(len(groups), len(groups))
	}
	return acc.bundle(), nil
}

// textGroup is one text and the entries that share it.
type textGroup struct {
	key     string
	text    string
	entries []artifact.OreEntry
}

// groupEntries checks every entry and its text and groups entries by text,
// sorted by key, so that each text is read and smelted once.
func groupEntries(entries []artifact.OreEntry, texts map[string][]byte) ([]textGroup, error) {
	var problems []error
	index := map[string]int{}
	var groups []textGroup
	for _, e := range entries {
		key, err := checkEntry(e, texts)
		if err != nil {
			problems = append(problems, err)
			continue
		}
		i, ok := index[key]
		if !ok {
			i = len(groups)
			index[key] = i
			groups = append(groups, textGroup{key: key})
		}
		groups[i].entries = append(groups[i].entries, e)
	}
	slices.SortFunc(groups, func(a, b textGroup) int { return strings.Compare(a.key, b.key) })
	for i := range groups {
		text, err := checkText(groups[i].key, texts[groups[i].key])
		if err != nil {
			problems = append(problems, err)
		}
		groups[i].text = text
	}
	if len(problems) > 0 {
		slices.SortFunc(problems, func(a, b error) int { return strings.Compare(a.Error(), b.Error()) })
		return nil, errors.Join(slices.CompactFunc(problems, func(a, b error) bool { return a.Error() == b.Error() })...)
	}
	return groups, nil
}

// checkEntry checks an entry's digests and finds its text's key.
func checkEntry(e artifact.OreEntry, texts map[string][]byte) (string, error) {
	if !ident.ValidDigest(e.SourceSHA) {
		return "", fmt.Errorf("%w: entry %q has source_sha %q", ErrMalformedDigest, e.URL, e.SourceSHA)
	}
	if e.TextSHA != "" && !ident.ValidDigest(e.TextSHA) {
		return "", fmt.Errorf("%w: entry %q has text_sha %q", ErrMalformedDigest, e.URL, e.TextSHA)
	}
	key := TextKey(e)
	if _, ok := texts[key]; !ok {
		return "", fmt.Errorf("%w: entry %q (source %s) needs the text %s", ErrMissingText, e.URL, e.SourceSHA, key)
	}
	return key, nil
}

// checkText verifies a text against its digest and returns it as a string
// (one copy, which every span then shares).
func checkText(key string, b []byte) (string, error) {
	sum := sha256.Sum256(b)
	if hex.EncodeToString(sum[:]) != key {
		return "", fmt.Errorf("%w: the text given for %s hashes to %x", ErrTextDigest, key, sum)
	}
	if !utf8.Valid(b) {
		return "", fmt.Errorf("%w: text %s", ErrInvalidText, key)
	}
	return string(b), nil
}
