package smelting

import (
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
	data, err := os.ReadFile(testutil.Conformance(t, "vectors", "smelt", file))
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

func TestVectorsDump(t *testing.T) {
	for _, name := range []string{"smelt_1", "smelt_2", "smelt_3"} {
		in, want := readSmeltVector(t, name)
		got, err := Smelt(in.OreBundle, textsOf(in))
		if err != nil {
			t.Logf("%s: %v", name, err)
			entries := slices.DeleteFunc(slices.Clone(in.OreBundle.Entries), func(e artifact.OreEntry) bool {
				_, ok := in.SourceTexts[e.SourceSHA]
				return !ok
			})
			in.OreBundle.Entries = entries
			got, err = Smelt(in.OreBundle, textsOf(in))
			if err != nil {
				t.Fatal(err)
			}
		}
		g, w := comparableLines(got), comparableLines(want)
		for _, l := range w {
			if !slices.Contains(g, l) {
				t.Logf("%s - %s", name, l)
			}
		}
		for _, l := range g {
			if !slices.Contains(w, l) {
				t.Logf("%s + %s", name, l)
			}
		}
	}
}
