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
)

// Extractor is this smelter's id, recorded in the extractor field of every
// SourceRef it writes. The original stamped "smelter/pattern_v1" into the
// adapter field instead; v2 is the corrected rule set described in
// README.md.
const Extractor = "smelter/pattern_v2"

// Version is the smelt stage's code version for its cache key. It changes
// whenever Smelt can return different bytes for the same input.
const Version = Extractor + "+1"

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
)

// TextKey is the key under which Smelt looks up an entry's text: the
// entry's text_sha, or its source_sha when the entry has none (a plain text
// source is its own text, so its raw bytes are the text object).
func TextKey(e artifact.OreEntry) string {
	if e.TextSHA != "" {
		return e.TextSHA
	}
	return e.SourceSHA
}

// Smelt extracts candidates from the ore bundle. texts maps TextKey(entry)
// to the entry's text, exactly the bytes of the object mining stored under
// that digest; Smelt checks that every text hashes to its key, so a span it
// cites can be re-read from the store byte for byte. Texts that no entry
// names are ignored. An empty text yields nothing.
//
// The result does not depend on the order of the bundle's entries: every
// list is sorted (see README.md, "Output order") and every choice between
// equal candidates is made on content. Smelt returns an error, and no
// bundle, when an entry is unusable; the error joins one wrapped Err* value
// per problem, in a fixed order.
func Smelt(bundle artifact.OreBundle, texts map[string][]byte) (artifact.SmeltedBundle, error) {
	return SmeltWith(bundle, texts, nil)
}

// SmeltWith is Smelt with onText (may be nil) called after each distinct
// text is smelted, with the count so far and the total, for a progress
// display. The result does not depend on it.
func SmeltWith(bundle artifact.OreBundle, texts map[string][]byte, onText func(done, total int)) (artifact.SmeltedBundle, error) {
	groups, err := groupEntries(bundle.Entries, texts)
	if err != nil {
		return artifact.SmeltedBundle{}, err
	}
	acc := newAccumulator()
	pairs := map[[2]string]int{}
	var hits []hit
	for i, g := range groups {
		if onText != nil && i > 0 {
			onText(i, len(groups))
		}
		hits = extractText(g.text, hits[:0])
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
	if onText != nil && len(groups) > 0 {
		onText(len(groups), len(groups))
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
