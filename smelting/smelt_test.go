package smelting

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"formation/artifact"
)

// The original smelter's own test scenarios, with this design's inputs.

func TestSingleDefinition(t *testing.T) {
	text := "Wisdom is defined as practical judgment."
	out := smeltPlain(t, text)
	if len(out.Concepts) != 1 {
		t.Fatalf("want one concept, got %q", keys(out))
	}
	c := out.Concepts[0]
	if c.CanonicalTerm != "wisdom" || c.Definition != "practical judgment" || c.State != artifact.StateProposed || c.RejectionReason != "" {
		t.Fatalf("concept %+v", c)
	}
	if len(c.Sources) != 1 || c.Sources[0].SourceSHA != digest(text) {
		t.Fatalf("sources %+v", c.Sources)
	}
}

func TestRelationsRoundTripAndJunkIgnored(t *testing.T) {
	out := smeltPlain(t, "Wisdom is judgment. Glargle floob bloop.")
	if want := []string{"relation (wisdom is judgment)"}; !slices.Equal(keys(out), want) {
		t.Fatalf("got %q, want %q", keys(out), want)
	}
}

func TestOrderingHints(t *testing.T) {
	cases := map[string]string{
		"Calculus requires algebra.": "hint algebra < calculus",
		"Geometry depends on logic.": "hint logic < geometry",
		"Before calculus, algebra.":  "hint algebra < calculus",
	}
	for text, want := range cases {
		if got := keys(smeltPlain(t, text)); !slices.Equal(got, []string{want}) {
			t.Errorf("%q: got %q, want %q", text, got, want)
		}
	}
}

func TestEmptyInputs(t *testing.T) {
	for _, out := range []artifact.SmeltedBundle{smeltPlain(t, ""), smeltPlain(t, " \n\t "), smeltPlain(t)} {
		if len(out.Concepts)+len(out.Relations)+len(out.Counters)+len(out.OrderingHints) != 0 {
			t.Fatalf("empty input yielded %q", keys(out))
		}
		enc, err := artifact.Encode(out)
		if err != nil {
			t.Fatal(err)
		}
		// Empty lists, never null: the forge reads four lists.
		if want := `{"concepts":[],"counters":[],"ordering_hints":[],"relations":[]}`; string(enc) != want {
			t.Fatalf("encoded %s, want %s", enc, want)
		}
	}
}

func TestSameSentenceTwoSources(t *testing.T) {
	a, b := "Wisdom is judgment.", "  Wisdom is judgment.\n"
	out := smeltPlain(t, b, a)
	if len(out.Relations) != 1 {
		t.Fatalf("got %q", keys(out))
	}
	src := out.Relations[0].Sources
	want := []string{digest(a), digest(b)}
	slices.Sort(want)
	if len(src) != 2 || src[0].SourceSHA != want[0] || src[1].SourceSHA != want[1] {
		t.Fatalf("sources %+v, want digests %v in order", src, want)
	}
	checkRef(t, src[slices.IndexFunc(src, func(r artifact.SourceRef) bool { return r.SourceSHA == digest(b) })], b)
}

func TestConceptsSortedByTermThenDefinition(t *testing.T) {
	out := smeltPlain(t, "Zebra means striped horse. Apple means red fruit. Mango is defined as a sweet fruit. Apple is a pome.")
	want := []string{"concept apple = pome", "concept apple = red fruit", "concept mango = a sweet fruit", "concept zebra = striped horse"}
	if got := keys(out)[:4]; !slices.Equal(got, want) {
		t.Fatalf("got %q, want %q", got, want)
	}
}

// TestSourceRefFields checks every field of a citation for an extracted
// (HTML-like) source, whose text is its own object named by text_sha.
func TestSourceRefFields(t *testing.T) {
	raw := "<p>Light  is\n a wave.</p>"
	text := "Intro\n\nLight  is\n a wave.\n"
	e := artifact.OreEntry{SourceSHA: digest(raw), URL: "file:sources/light.html", Adapter: "folder",
		RetrievedAt: "2026-04-01T09:30:00Z", ByteLength: int64(len(raw)), TextSHA: digest(text)}
	out, err := smeltV2(artifact.OreBundle{SubjectID: "s", Entries: []artifact.OreEntry{e}}, map[string][]byte{digest(text): []byte(text)})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Relations) != 1 || len(out.Relations[0].Sources) != 1 {
		t.Fatalf("got %q", keys(out))
	}
	ref := out.Relations[0].Sources[0]
	start := int64(strings.Index(text, "Light"))
	want := artifact.SourceRef{SourceSHA: digest(raw), Span: "Light  is\n a wave.", Adapter: "folder",
		RetrievedAt: "2026-04-01T09:30:00Z", TextSHA: digest(text), Extractor: "smelter/pattern_v2"}
	if ref.SourceSHA != want.SourceSHA || ref.Span != want.Span || ref.Adapter != want.Adapter ||
		ref.RetrievedAt != want.RetrievedAt || ref.TextSHA != want.TextSHA || ref.Extractor != want.Extractor {
		t.Fatalf("ref %+v, want %+v", ref, want)
	}
	if *ref.Start != start || *ref.End != start+int64(len(want.Span)) {
		t.Fatalf("range [%d, %d), want [%d, %d)", *ref.Start, *ref.End, start, start+int64(len(want.Span)))
	}
	checkRef(t, ref, text)
}

// TestTableRowsCiteTheirOwnText: rows of one table share the table's
// source_sha but each has its own text; a claim made by two rows cites
// both texts.
func TestTableRowsCiteTheirOwnText(t *testing.T) {
	table := "binary table bytes"
	row1, row2 := "Light is a wave.", "Sound is a wave. Light is a wave."
	entry := func(row string) artifact.OreEntry {
		return artifact.OreEntry{SourceSHA: digest(table), URL: "file:facts.parquet#id=" + row[:5], Adapter: "table",
			RetrievedAt: testDate, ByteLength: int64(len(row)), TextSHA: digest(row)}
	}
	bundle := artifact.OreBundle{SubjectID: "s", Entries: []artifact.OreEntry{entry(row2), entry(row1)}}
	out, err := smeltV2(bundle, map[string][]byte{digest(row1): []byte(row1), digest(row2): []byte(row2)})
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(out.Relations, func(r artifact.RelationCandidate) bool { return r.Head == "light" })
	if i < 0 || len(out.Relations[i].Sources) != 2 {
		t.Fatalf("got %+v", out.Relations)
	}
	for _, ref := range out.Relations[i].Sources {
		text := row1
		if ref.TextSHA == digest(row2) {
			text = row2
		}
		checkRef(t, ref, text)
		if ref.SourceSHA != digest(table) || ref.Span != "Light is a wave." {
			t.Fatalf("ref %+v", ref)
		}
	}
}

// TestEarliestSentencePerText: a claim repeated in one text cites its
// first occurrence only, as the original kept the first sentence.
func TestEarliestSentencePerText(t *testing.T) {
	text := "Light is a wave!  Light is a wave."
	out := smeltPlain(t, text)
	if len(out.Relations) != 1 || len(out.Relations[0].Sources) != 1 {
		t.Fatalf("got %+v", out.Relations)
	}
	if ref := out.Relations[0].Sources[0]; *ref.Start != 0 || ref.Span != "Light is a wave!" {
		t.Fatalf("ref %+v", ref)
	}
}

func TestOrphanTextsIgnored(t *testing.T) {
	text := "Light is a wave."
	bundle := artifact.OreBundle{SubjectID: "s", Entries: []artifact.OreEntry{plainEntry(text, "file")}}
	orphan := "Orphan is a text nobody lists."
	out, err := smeltV2(bundle, map[string][]byte{digest(text): []byte(text), digest(orphan): []byte(orphan)})
	if err != nil {
		t.Fatal(err)
	}
	if got := keys(out); !slices.Equal(got, []string{"concept light = wave", "relation (light is wave)"}) {
		t.Fatalf("got %q", got)
	}
}

// TestRefusals: every unusable entry halts the smelt with a typed error
// naming it, and no bundle is returned; all problems are reported at once.
func TestRefusals(t *testing.T) {
	good := "Light is a wave."
	notUTF8 := "Light is \xff a wave."
	cases := []struct {
		name  string
		entry artifact.OreEntry
		texts map[string][]byte
		want  error
	}{
		{"missing text", plainEntry(good, "file"), map[string][]byte{}, ErrMissingText},
		{"text under the wrong digest", plainEntry(good, "file"), map[string][]byte{digest(good): []byte("Light is a particle.")}, ErrTextDigest},
		{"text not UTF-8", plainEntry(notUTF8, "file"), map[string][]byte{digest(notUTF8): []byte(notUTF8)}, ErrInvalidText},
		{"malformed source digest", artifact.OreEntry{SourceSHA: "../../etc/passwd", URL: "u"}, map[string][]byte{"../../etc/passwd": []byte(good)}, ErrMalformedDigest},
		{"upper-case text digest", artifact.OreEntry{SourceSHA: digest(good), TextSHA: strings.ToUpper(digest(good)), URL: "u"},
			map[string][]byte{strings.ToUpper(digest(good)): []byte(good)}, ErrMalformedDigest},
	}
	for _, c := range cases {
		bundle := artifact.OreBundle{SubjectID: "s", Entries: []artifact.OreEntry{c.entry}}
		out, err := smeltV2(bundle, c.texts)
		if !errors.Is(err, c.want) {
			t.Errorf("%s: got %v, want %v", c.name, err, c.want)
		}
		if out.Concepts != nil || out.Relations != nil {
			t.Errorf("%s: a refused smelt returned candidates", c.name)
		}
	}
	var all []artifact.OreEntry
	texts := map[string][]byte{}
	for _, c := range cases {
		all = append(all, c.entry)
		for k, v := range c.texts {
			if _, clash := texts[k]; !clash {
				texts[k] = v
			}
		}
	}
	_, err := smeltV2(artifact.OreBundle{Entries: all}, texts)
	for _, want := range []error{ErrTextDigest, ErrInvalidText, ErrMalformedDigest} {
		if !errors.Is(err, want) {
			t.Errorf("joined error %v lacks %v", err, want)
		}
	}
}
