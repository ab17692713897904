package smelting

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"formation/artifact"
	"formation/relparse"
)

// v3 smelts plain-text sources with PatternV3 and the given declared
// relations.
func v3(t *testing.T, relations []string, texts ...string) []string {
	t.Helper()
	return keys(smeltPlainWith(t, Options{Extractor: PatternV3, Relations: relations}, texts...))
}

// TestV3Reads pins what PatternV3 reads from sentences of the kinds real
// documentation is made of, and what it refuses to read.
func TestV3Reads(t *testing.T) {
	declared := []string{"defines", "denotes", "returns", "provides"}
	cases := []struct {
		text string
		want []string
	}{
		// Conditional, subordinate and connective openings yield nothing.
		{"If the buffer is full, the writer blocks.", nil},
		{"If event A is observed by B, then A precedes B.", nil},
		{"When a Context is canceled, all Contexts derived from it are also canceled.", nil},
		{"Otherwise Cause(c) returns the same value as c.Err().", nil},
		{"In the latter case, the As method is responsible for setting target.", nil},
		{"On Unix, the resolution is ~1ms.", nil},
		{"Cause returns nil if c has not been canceled yet.", nil},
		// Pronouns, deictics and clause fragments are never heads.
		{"It is never canceled.", nil},
		{"This is a separate step.", nil},
		{"The following is a list of rules.", nil},
		{"There is one element per field.", nil},
		{"Such a wheelhouse contains compiled packages.", nil},
		{"We can show that the result is stable.", nil},
		{"The search follows this list, using the first that works.", nil},
		{"The ffi_type has the following members:", nil},
		// Code is never a head, and code is never read.
		{"a[x] is an element.", nil},
		{"The _ means to import a package for its side effects.", nil},
		{"func New() *List", nil},
		{"x := f(1) is the call.", nil},
		// A single letter is not a head; a name the forge would strip as
		// an article is refused rather than cut.
		{"X is a letter.", nil},
		{"Event A precedes event B.", nil},
		// The main clause's verb, not an auxiliary's.
		{"The call has returned the value.", nil},
		// A term related to itself teaches nothing.
		{"Username returns the username.", nil},
		{"Context returns a context that is canceled before the test ends.", nil},
		{"Username returns the user name.", []string{"relation (username returns user name)"}},
		{"Debian has previously supported two stacks.", nil},
		// Plural copulas read as is; tails cut at clause boundaries.
		{"Goroutines are always cheap.", []string{"relation (goroutines is cheap)"}},
		{"Host keys are stored in the user's home directory.", []string{"relation (host keys is stored in the user's home directory)"}},
		{"xz has a built-in limiter, which is disabled by default.",
			[]string{"relation (built-in limiter is disabled by default)", "relation (xz has built-in limiter)"}},
		{"The scheme is based on public-key cryptography, using separate keys.", []string{"relation (scheme is based on public-key cryptography)"}},
		{"The password is sent to the remote host for checking; however, since it is encrypted, nobody sees it.",
			[]string{"relation (password is sent to the remote host for checking)"}},
		{"However, integral types narrower than the register are widened.", []string{"relation (integral types narrower than the register is widened)"}},
		{"To prevent surprises, xz has a memory limiter.", []string{"relation (xz has memory limiter)"}},
		{"Each session is persistent and will survive disconnection.", []string{"relation (each session is persistent)"}},
		// Definitions: "X is a/an/the Y" with X named without "the",
		// appositives and "called".
		{"Evaporation is the change of liquid water into water vapour.",
			[]string{"concept evaporation = the change of liquid water into water vapour", "relation (evaporation is change of liquid water into water vapour)"}},
		{"A lens is a curved glass.", []string{"concept lens = curved glass", "relation (lens is curved glass)"}},
		{"The argument is the writable address that was returned.", []string{"relation (argument is writable address that was returned)"}},
		{"A goroutine, or lightweight thread, is a function executing concurrently.",
			[]string{"concept goroutine = function executing concurrently", "concept lightweight thread = function executing concurrently",
				"relation (goroutine is function executing concurrently)"}},
		{"A function executing concurrently is called a goroutine.", []string{"concept goroutine = function executing concurrently"}},
		{"Map.Store is a write operation when it returns true.", []string{"relation (map.store is write operation when it returns true)"}},
		// Declared relations, the plural form after a plural head, and a
		// tail cut where a stronger relation word would misread it.
		{"Package list defines the Element type.", []string{"relation (package list defines element type)"}},
		{"A token denotes a word.", []string{"relation (token denotes word)"}},
		{"The New and Join functions return an error.", []string{"relation (new and join functions returns error)"}},
		{"WithCancel returns a derived context that has a new Done channel.", []string{"relation (withcancel returns derived context)"}},
		{"Package io provides basic interfaces.", []string{"relation (package io provides basic interfaces)"}},
		// Counter-claims: a denial of one claim, never a "Not …" phrase
		// or a conditional.
		{"It is a misconception that clouds are water vapour.", []string{"counter (clouds is water vapour)"}},
		{"No mammal is a reptile.", []string{"counter (mammal is reptile)"}},
		{"Closures are not supported on all platforms; you can check FFI_CLOSURES.", []string{"counter (closures is supported on all platforms)"}},
		{"libffi has no special support for bit-fields.", []string{"counter (libffi has special support for bit-fields)"}},
		{"The returned context does not return a deadline.", []string{"counter (returned context returns deadline)"}},
		{"Symbolic links are not followed, and thus they are not regular files.", []string{"counter (symbolic links is followed)"}},
		{"querystring is fast but is not a standard API.", []string{"relation (querystring is fast)", "counter (querystring is standard api)"}},
		{"Not caching the result is a mistake.", nil},
		{"If the limit is not reached, the call fails.", nil},
		{"No TZ means use the default.", nil},
		{"X is not only fast.", nil},
		// Compound predicates of the vocabulary.
		{"Fire is caused by heat.", []string{"relation (fire is_caused_by heat)"}},
		{"Glass belongs to optics.", []string{"relation (glass belongs_to optics)"}},
		{"Wisdom is defined as practical judgment.", []string{"concept wisdom = practical judgment", "relation (wisdom is_defined_as practical judgment)"}},
	}
	for _, c := range cases {
		got := v3(t, declared, c.text)
		slices.Sort(got)
		want := slices.Clone(c.want)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("%q\n got %q\nwant %q", c.text, got, want)
		}
	}
}

// TestV3Sentences pins the splitter: no break after abbreviations, "e.g.",
// initials or inside parentheses; a break at a change of indentation and
// before a list item; byte ranges exact.
func TestV3Sentences(t *testing.T) {
	cases := []struct {
		text string
		want []string
	}{
		{"See e.g. the manual. J. Smith wrote it. Dr. Who is here.", []string{"See e.g. the manual.", "J. Smith wrote it.", "Dr. Who is here."}},
		{"It matches the type E. In that case it stops.", []string{"It matches the type E.", "In that case it stops."}},
		{"Wheels (such as pip install .) are not cached. (PyPI does protect this.) Next one.",
			[]string{"Wheels (such as pip install .) are not cached.", "(PyPI does protect this.)", "Next one."}},
		{"apples, pears, etc. are fruit. He said \"stop.\" Then left.", []string{"apples, pears, etc. are fruit.", "He said \"stop.\"", "Then left."}},
		{"func New() *List\n    New returns an initialized list.", []string{"func New() *List", "New returns an initialized list."}},
		{"   Memory usage\n       The usage of xz varies\n       a lot.", []string{"Memory usage", "The usage of xz varies\n       a lot."}},
		{"Skip if:\n  •  File is not a regular file.  Links are\n     not followed.\n  - second item\n    wrapped", []string{"Skip if:",
			"•  File is not a regular file.", "Links are\n     not followed.", "- second item\n    wrapped"}},
		{"Version 1.2 is out. See Fig. 3 for it.", []string{"Version 1.2 is out.", "See Fig. 3 for it."}},
	}
	for _, c := range cases {
		var got []string
		forEachSentenceV3(c.text, func(start, end int, _ bool) {
			got = append(got, c.text[start:end])
			if relparse.TrimSpace(c.text[start:end]) != c.text[start:end] {
				t.Errorf("%q: sentence %q has surrounding white space", c.text, c.text[start:end])
			}
		})
		if !slices.Equal(got, c.want) {
			t.Errorf("%q\n got %q\nwant %q", c.text, got, c.want)
		}
	}
}

// TestV3ListItemsAfterColon: the items of a list a sentence introduces
// with a colon are parts of that sentence, not statements; a sentence
// continuing an item is read; a new paragraph ends the list.
func TestV3ListItemsAfterColon(t *testing.T) {
	text := "xz skips the file if any of the following applies:\n\n" +
		"  •  File is not a regular file.  Symbolic links are not followed.\n\n" +
		"  •  File has more than one hard link.\n\n" +
		"Lenses are curved glasses.\n\n  •  A prism is a wedge.\n"
	got := v3(t, nil, text)
	want := []string{"concept prism = wedge", "relation (lenses is curved glasses)", "relation (prism is wedge)", "counter (symbolic links is followed)"}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Fatalf("got %q, want %q", got, want)
	}
}

// TestV3ReadsBack: every relation and counter-claim PatternV3 proposes is
// read back as itself by the relation parser the forge checks with (for a
// declared relation, no stronger relation word stands in it).
func TestV3ReadsBack(t *testing.T) {
	out := smeltPlainWith(t, Options{Relations: []string{"returns", "provides"}}, generatedProse(64<<10),
		"WithCancel returns a context that has a channel and is a value. Package io provides interfaces that are basic. "+
			"A lens has a focus that is sharp. Light causes heat that produces light. The mirror is a glass that has a coating.")
	for _, list := range [][]artifact.RelationCandidate{out.Relations, out.Counters} {
		for _, r := range list {
			if relparse.IsRelation(r.Relation) {
				got, ok := relparse.Parse(r.Head + " " + r.Relation + " " + r.Tail)
				if !ok || got != r.Triple() {
					t.Errorf("%v reads back as %v", r.Triple(), got)
				}
				continue
			}
			if readWords(r.Head+" "+r.Tail).hasRelation || strings.Contains(" "+r.Head+" ", " "+r.Relation+" ") {
				t.Errorf("%v holds a relation word that would outrank %s", r.Triple(), r.Relation)
			}
		}
	}
}

// TestOptions: the smelter is chosen by id, declared relations must be
// relation ids outside the vocabulary, and every citation names the
// smelter that read it.
func TestOptions(t *testing.T) {
	for _, bad := range []Options{
		{Extractor: "smelter/pattern_v9"}, {Relations: []string{"Returns"}}, {Relations: []string{"is"}},
		{Relations: []string{"depends_on", "depends_on"}}, {Relations: []string{"a__b"}}, {Relations: []string{"_a"}}, {Relations: []string{""}},
	} {
		if _, err := SmeltWith(artifact.OreBundle{}, nil, bad); !errors.Is(err, ErrOptions) {
			t.Errorf("%+v: want ErrOptions, got %v", bad, err)
		}
	}
	for _, id := range Extractors() {
		out := smeltPlainWith(t, Options{Extractor: id}, "A lens is a curved glass.")
		if len(out.Relations) != 1 || out.Relations[0].Sources[0].Extractor != id {
			t.Errorf("%s: %+v", id, out.Relations)
		}
	}
	if got := v3(t, []string{"depends_on"}, "The build depends on the compiler."); !slices.Contains(got, "relation (build depends_on compiler)") {
		t.Errorf("a declared relation of two words: %q", got)
	}
}

// TestSentences: the report lists every sentence with its exact range, what
// it yielded, and why a sentence yielded nothing.
func TestSentences(t *testing.T) {
	text := "A lens is a curved glass. If it rains, it pours.\n\nIt is a misconception that glass is liquid. func f() {}"
	e := plainEntry(text, "file")
	got, err := Sentences(artifact.OreBundle{Entries: []artifact.OreEntry{e}}, map[string][]byte{e.SourceSHA: []byte(text)}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		text, reason string
		yielded      int
	}{
		{"A lens is a curved glass.", "", 2},
		{"If it rains, it pours.", ReasonConditional, 0},
		{"It is a misconception that glass is liquid.", "", 1},
		{"func f() {}", ReasonCode, 0},
	}
	if len(got) != len(want) {
		t.Fatalf("%d sentences, want %d: %+v", len(got), len(want), got)
	}
	for i, w := range want {
		g := got[i]
		if g.Text != w.text || g.Reason != w.reason || len(g.Yielded) != w.yielded || text[g.Start:g.End] != g.Text || g.TextSHA != e.SourceSHA {
			t.Errorf("sentence %d: %+v, want %q reason %q with %d yields", i, g, w.text, w.reason, w.yielded)
		}
	}
	if y := got[2].Yielded[0]; y.Kind != "counter" || !slices.Equal(y.Key, []string{"glass", "is", "liquid"}) {
		t.Errorf("counter-claim reported as %+v", y)
	}
	v2, err := Sentences(artifact.OreBundle{Entries: []artifact.OreEntry{e}}, map[string][]byte{e.SourceSHA: []byte(text)}, Options{Extractor: PatternV2})
	if err != nil || len(v2) == 0 {
		t.Fatalf("pattern_v2 report: %v", err)
	}
}
