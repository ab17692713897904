package smelting

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"formation/artifact"
	"formation/canon"
	"formation/internal/testutil"
	"formation/relparse"
)

// smeltInput is vectors/smelt/<name>.input.json. The original took one
// retrieved_at for the whole call and texts keyed by source_sha; entries
// carry no text_sha, so TextKey is the source_sha, as Smelt expects for
// plain text.
type smeltInput struct {
	OreBundle   artifact.OreBundle `json:"ore_bundle"`
	SourceTexts map[string]string  `json:"source_texts"`
	RetrievedAt string             `json:"retrieved_at"`
}

func readSmeltVector(t *testing.T, name string) (smeltInput, artifact.SmeltedBundle) {
	t.Helper()
	var in smeltInput
	readJSON(t, name+".input.json", &in)
	var want artifact.SmeltedBundle
	readJSON(t, name+".expected.json", &want)
	return in, want
}

func readJSON(t *testing.T, file string, v any) {
	t.Helper()
	data, err := os.ReadFile(testutil.Vector(t, "smelt", file))
	if err != nil {
		t.Fatal(err)
	}
	if err := canon.Unmarshal(data, v); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
}

func textsOf(in smeltInput) map[string][]byte {
	texts := make(map[string][]byte, len(in.SourceTexts))
	for k, v := range in.SourceTexts {
		texts[k] = []byte(v)
	}
	return texts
}

// comparable renders a bundle as the lines the vectors are compared on:
// each candidate's key, its definition, and each source's digest and span
// with whitespace collapsed as the original collapsed it. Adapter,
// retrieved_at and the span extension are left out: this design sets them
// differently (the entry's adapter and date, the smelter's own id).
func comparableLines(b artifact.SmeltedBundle) []string {
	var lines []string
	for _, c := range b.Concepts {
		lines = append(lines, fmt.Sprintf("concept %q = %q %s", c.CanonicalTerm, c.Definition, sourcesLine(c.Sources)))
	}
	for _, r := range b.Relations {
		lines = append(lines, fmt.Sprintf("relation %s %s", tripleLine(r), sourcesLine(r.Sources)))
	}
	for _, r := range b.Counters {
		lines = append(lines, fmt.Sprintf("counter %s %s", tripleLine(r), sourcesLine(r.Sources)))
	}
	for _, h := range b.OrderingHints {
		lines = append(lines, fmt.Sprintf("hint %q < %q %s", h.Before, h.After, sourcesLine(h.Sources)))
	}
	return lines
}

func tripleLine(r artifact.RelationCandidate) string {
	return fmt.Sprintf("(%q %s %q)", r.Head, r.Relation, r.Tail)
}

func sourcesLine(refs []artifact.SourceRef) string {
	parts := make([]string, len(refs))
	for i, s := range refs {
		parts[i] = fmt.Sprintf("%.4s:%q", s.SourceSHA, relparse.CollapseSpace(s.Span))
	}
	return "[" + strings.Join(parts, " ") + "]"
}

// vectorDifference is one place where this smelter deliberately departs
// from the original's recorded output: the sentence, the intended change,
// and the lines (in comparableLines form) it removes and adds.
type vectorDifference struct {
	vector, sentence, change string
	drop, add                []string
}

// vectorDifferences lists every difference between this smelter and the
// original on the conformance vectors. Everything not listed must match.
func vectorDifferences() []vectorDifference {
	const (
		counterOnly = "a counter-claim sentence yields only its counter-claim: no positive relation, no concept"
		noArticle   = "articles are stripped from concept terms, as the parser strips them from heads"
		compound    = "\"is defined as\" in prose is the compound predicate is_defined_as"
		allDefs     = "every distinct definition of a term is its own concept, citing only the sentences that state it"
	)
	return []vectorDifference{
		{"smelt_1", "A lens is a curved piece of transparent glass.", noArticle,
			[]string{`concept "a lens" = "curved piece of transparent glass" [67f9:"A lens is a curved piece of transparent glass."]`},
			[]string{`concept "lens" = "curved piece of transparent glass" [67f9:"A lens is a curved piece of transparent glass."]`}},
		{"smelt_1", "A prism is an optical wedge!", noArticle,
			[]string{`concept "a prism" = "optical wedge" [67f9:"A prism is an optical wedge!"]`},
			[]string{`concept "prism" = "optical wedge" [67f9:"A prism is an optical wedge!"]`}},
		{"smelt_1", "The cat is a mammal?", noArticle,
			[]string{`concept "the cat" = "mammal" [67f9:"The cat is a mammal?"]`},
			[]string{`concept "cat" = "mammal" [67f9:"The cat is a mammal?"]`}},
		{"smelt_1", "Light is defined as electromagnetic radiation that the eye can detect.", compound,
			[]string{`relation ("light" is "defined as electromagnetic radiation that the eye can detect") [67f9:"Light is defined as electromagnetic radiation that the eye can detect."]`},
			[]string{`relation ("light" is_defined_as "electromagnetic radiation that the eye can detect") [67f9:"Light is defined as electromagnetic radiation that the eye can detect."]`}},
		{"smelt_1", "Wisdom is defined as practical judgment.", compound,
			[]string{`relation ("wisdom" is "defined as practical judgment") [67f9:"Wisdom is defined as practical judgment."]`},
			[]string{`relation ("wisdom" is_defined_as "practical judgment") [67f9:"Wisdom is defined as practical judgment."]`}},
		{"smelt_1", "It is a misconception that the lens is flat.", counterOnly + " (the junk concept \"it\" is gone)",
			[]string{
				`concept "it" = "misconception that the lens is flat" [67f9:"It is a misconception that the lens is flat."]`,
				`relation ("it" is "misconception that the lens is flat") [67f9:"It is a misconception that the lens is flat."]`,
			}, nil},
		{"smelt_1", "It is a common misconception that a mirror has colour.", counterOnly,
			[]string{`relation ("it" is "common misconception that a mirror has colour") [67f9:"It is a common misconception that a mirror has colour."]`}, nil},
		{"smelt_1", "Contrary to common belief, glass is a liquid.", counterOnly,
			[]string{`relation ("contrary to common belief, glass" is "liquid") [67f9:"Contrary to common belief, glass is a liquid."]`}, nil},
		{"smelt_1", "Contrary to popular belief, light has mass.", counterOnly,
			[]string{`relation ("contrary to popular belief, light" has "mass") [67f9:"Contrary to popular belief, light has mass."]`}, nil},
		{"smelt_1", "Contrary to belief, a shadow is a substance.", counterOnly,
			[]string{`relation ("contrary to belief, a shadow" is "substance") [67f9:"Contrary to belief, a shadow is a substance."]`}, nil},
		{"smelt_1", "It is not true that the sun produces darkness.", counterOnly,
			[]string{`relation ("it is not true that the sun" produces "darkness") [67f9:"It is not true that the sun produces darkness."]`}, nil},
		{"smelt_1", "Not every shadow is dark!", counterOnly,
			[]string{`relation ("not every shadow" is "dark") [67f9:"Not every shadow is dark!"]`}, nil},
		{"smelt_2", "A shutter is defined as a timed curtain.", noArticle + "; " + compound,
			[]string{
				`concept "a shutter" = "a timed curtain" [2040:"A shutter is defined as a timed curtain."]`,
				`relation ("shutter" is "defined as a timed curtain") [2040:"A shutter is defined as a timed curtain."]`,
			},
			[]string{
				`concept "shutter" = "a timed curtain" [2040:"A shutter is defined as a timed curtain."]`,
				`relation ("shutter" is_defined_as "timed curtain") [2040:"A shutter is defined as a timed curtain."]`,
			}},
		{"smelt_2", "Aperture means the opening of the lens. / Aperture is an adjustable iris.",
			allDefs + " (the original credited the first sentence to the second definition)",
			[]string{`concept "aperture" = "adjustable iris" [2040:"Aperture means the opening of the lens." fec4:"Aperture is an adjustable iris."]`},
			[]string{
				`concept "aperture" = "adjustable iris" [fec4:"Aperture is an adjustable iris."]`,
				`concept "aperture" = "the opening of the lens" [2040:"Aperture means the opening of the lens."]`,
			}},
		{"smelt_2", "Exposure means total light reaching the sensor. / Exposure means something else entirely.", allDefs,
			nil,
			[]string{
				`concept "exposure" = "something else entirely" [fec4:"Exposure means something else entirely."]`,
				`concept "exposure" = "total light reaching the sensor" [2040:"Exposure means total light reaching the sensor."]`,
			}},
		{"smelt_2", "It is a misconception that the flash is daylight.", counterOnly,
			[]string{
				`concept "it" = "misconception that the flash is daylight" [fec4:"It is a misconception that the flash is daylight."]`,
				`relation ("it" is "misconception that the flash is daylight") [fec4:"It is a misconception that the flash is daylight."]`,
			}, nil},
		{"smelt_3", "The big red lens is a tool.", noArticle + "; without its article the term has three words and is valid",
			nil,
			[]string{`concept "big red lens" = "tool" [a838:"The big red lens is a tool."]`}},
		{"smelt_3", "A\u00a0mirror\u00a0is\u00a0a\u00a0surface.", noArticle,
			[]string{`concept "a mirror" = "surface" [a838:"A mirror is a surface."]`},
			[]string{`concept "mirror" = "surface" [a838:"A mirror is a surface."]`}},
		{"smelt_3", "It is a misconception that\u00a0lens is flat.", counterOnly,
			[]string{
				`concept "it" = "misconception that lens is flat" [a838:"It is a misconception that lens is flat."]`,
				`relation ("it" is "misconception that lens is flat") [a838:"It is a misconception that lens is flat."]`,
			}, nil},
		{"smelt_3", "NOT light is dark.", counterOnly,
			[]string{`relation ("not light" is "dark") [a838:"NOT light is dark."]`}, nil},
	}
}

// missingTextURL is smelt_2's entry without a text. The original skipped
// it silently; Smelt refuses the whole bundle (ErrMissingText), so the
// comparison runs without that entry.
const missingTextURL = "https://example.org/photo/missing"

// TestVectorDifferences smelts every conformance vector and compares the
// result with the original's on candidate keys, definitions, source
// digests and collapsed spans, after applying exactly the listed
// differences. Every listed line must really be in the original's output
// (drop) or in ours (add), so the list cannot go stale.
func TestVectorDifferences(t *testing.T) {
	diffs := vectorDifferences()
	for _, name := range []string{"smelt_1", "smelt_2", "smelt_3"} {
		t.Run(name, func(t *testing.T) {
			in, want := readSmeltVector(t, name)
			in.OreBundle.Entries = withoutMissingText(t, in)
			got, err := smeltV2(in.OreBundle, textsOf(in))
			if err != nil {
				t.Fatal(err)
			}
			expected := comparableLines(want)
			for _, d := range diffs {
				if d.vector != name {
					continue
				}
				for _, l := range d.drop {
					i := slices.Index(expected, l)
					if i < 0 {
						t.Fatalf("listed difference for %q drops a line the original does not have: %s", d.sentence, l)
					}
					expected = slices.Delete(expected, i, i+1)
				}
				expected = append(expected, d.add...)
			}
			gotLines := comparableLines(got)
			slices.Sort(expected)
			slices.Sort(gotLines)
			for _, l := range expected {
				if !slices.Contains(gotLines, l) {
					t.Errorf("missing: %s", l)
				}
			}
			for _, l := range gotLines {
				if !slices.Contains(expected, l) {
					t.Errorf("unexpected: %s", l)
				}
			}
		})
	}
}

// withoutMissingText checks that Smelt refuses an entry without a text
// (only smelt_2 has one) and returns the entries without it.
func withoutMissingText(t *testing.T, in smeltInput) []artifact.OreEntry {
	t.Helper()
	kept := slices.DeleteFunc(slices.Clone(in.OreBundle.Entries), func(e artifact.OreEntry) bool { return e.URL == missingTextURL })
	if len(kept) == len(in.OreBundle.Entries) {
		return kept
	}
	_, err := smeltV2(in.OreBundle, textsOf(in))
	if !errors.Is(err, ErrMissingText) || !strings.Contains(err.Error(), missingTextURL) {
		t.Fatalf("an entry without text must halt the smelt with ErrMissingText naming it; got %v", err)
	}
	return kept
}

// TestVectorSpansAreExact checks the span extension on the vectors: every
// citation's bytes are exactly text[start:end] of the text it names, and
// carry the entry's adapter and retrieved_at and this smelter's id.
func TestVectorSpansAreExact(t *testing.T) {
	for _, name := range []string{"smelt_1", "smelt_2", "smelt_3"} {
		in, _ := readSmeltVector(t, name)
		in.OreBundle.Entries = withoutMissingText(t, in)
		got, err := smeltV2(in.OreBundle, textsOf(in))
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		forEachRef(got, func(ref artifact.SourceRef) {
			n++
			checkRef(t, ref, in.SourceTexts[ref.TextSHA])
			if ref.Adapter != in.OreBundle.Entries[0].Adapter || ref.RetrievedAt != "2026-05-16T00:00:00Z" {
				t.Errorf("%s: ref %+v does not carry the entry's adapter and retrieved_at", name, ref)
			}
		})
		if n == 0 {
			t.Fatalf("%s: no citations", name)
		}
	}
}
