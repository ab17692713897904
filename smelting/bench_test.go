package smelting

import (
	"fmt"
	"strings"
	"testing"

	"formation/artifact"
	"formation/internal/testutil"
)

// proseTemplates are the sentence shapes of the generated corpus, about
// as often as they occur in textbook prose: mostly plain statements and
// sentences no pattern matches, some definitions, a few counter-claims,
// negations, ordering sentences and non-ASCII text. %[1]s and %[2]s are
// terms.
func proseTemplates() []string {
	return []string{
		"The %[1]s is a %[2]s.",
		"A %[1]s produces a sharp image of the %[2]s on the screen behind it.",
		"In most laboratory settings the %[1]s and the %[2]s are measured together, and the results are compared with care.",
		"%[1]s is defined as the ratio of the %[2]s to the distance travelled.",
		"Students often find that the %[1]s behaves unexpectedly when the %[2]s changes quickly.",
		"It is a misconception that the %[1]s is heavier than the %[2]s.",
		"The %[1]s is not a %[2]s.",
		"%[1]s requires %[2]s.",
		"Heat causes expansion of the %[1]s mount, which shifts the %[2]s slightly.",
		"Figure 3 shows the %[1]s next to the %[2]s; note the scale!",
		"Why does the %[1]s bend toward the %[2]s?",
		"Η %[1]s είναι σοφία και ο λόγος reveals the %[2]s.",
		"The %[1]s belongs to the family of %[2]s devices.",
		"Before %[1]s, %[2]s.",
	}
}

// generatedProse builds about size bytes of prose: paragraphs of six
// sentences, templates in rotation, terms drawn from 35 nouns and 35
// modifiers (1,260 distinct one- and two-word terms, so that most claims
// are new ones, as in real text, and the accumulator is exercised). It is
// deterministic: the corpus, and the benchmark, are the same on every run.
func generatedProse(size int) string {
	nouns := []string{"lens", "prism", "mirror", "ray", "length", "aperture", "shutter", "refraction",
		"wavelength", "grating", "bench", "retina", "photon", "spectrum", "polariser", "splitter",
		"pinhole", "plane", "sensor", "eyepiece", "objective", "laser", "fibre", "coating", "iris",
		"cornea", "meniscus", "doublet", "filter", "collimator", "slit", "fringe", "halo", "beam", "image"}
	mods := []string{"", "focal", "concave", "convex", "thin", "thick", "curved", "flat", "polished", "coated",
		"narrow", "wide", "primary", "secondary", "virtual", "real", "inverted", "upright", "bright", "dim",
		"red", "blue", "green", "infrared", "ultraviolet", "diffuse", "sharp", "soft", "small", "large",
		"outer", "inner", "upper", "lower", "central"}
	term := func(k int) string {
		n, m := nouns[k%len(nouns)], mods[(k/len(nouns))%len(mods)]
		if m == "" {
			return n
		}
		return m + " " + n
	}
	tmpl := proseTemplates()
	var b strings.Builder
	for i := 0; b.Len() < size; i++ {
		// Multipliers coprime with 1,225 walk through every term.
		fmt.Fprintf(&b, tmpl[i%len(tmpl)], term(i*37), term(i*101+17))
		if i%6 == 5 {
			b.WriteString("\n\n")
		} else {
			b.WriteByte(' ')
		}
	}
	return b.String()
}

// BenchmarkSmelt smelts about 4 MB of generated prose in 64 plain-text
// entries with the default smelter. Besides MB/s (wall clock) it reports
// cpu-MB/s, bytes per second of process CPU time, which stays meaningful
// when other work shares the machine.
func BenchmarkSmelt(b *testing.B) { benchmarkSmelt(b, Options{}) }

// BenchmarkSmeltV2 is BenchmarkSmelt with PatternV2, for comparison.
func BenchmarkSmeltV2(b *testing.B) { benchmarkSmelt(b, Options{Extractor: PatternV2}) }

func benchmarkSmelt(b *testing.B, opts Options) {
	const docs, docSize = 64, 64 << 10
	bundle := artifact.OreBundle{SubjectID: "bench", SchemaVersion: artifact.SchemaVersion}
	texts := map[string][]byte{}
	total := 0
	for d := 0; d < docs; d++ {
		text := fmt.Sprintf("Document %d.\n\n", d) + generatedProse(docSize)
		bundle.Entries = append(bundle.Entries, plainEntry(text, "file"))
		texts[digest(text)] = []byte(text)
		total += len(text)
	}
	b.SetBytes(int64(total))
	b.ReportAllocs()
	cpu0 := testutil.ProcessCPU()
	var out artifact.SmeltedBundle
	for b.Loop() {
		var err error
		if out, err = SmeltWith(bundle, texts, opts); err != nil {
			b.Fatal(err)
		}
	}
	if cpu := testutil.ProcessCPU() - cpu0; cpu > 0 {
		b.ReportMetric(float64(total)*float64(b.N)/cpu.Seconds()/1e6, "cpu-MB/s")
	}
	if len(out.Relations) == 0 || len(out.Concepts) == 0 || len(out.Counters) == 0 || len(out.OrderingHints) == 0 {
		b.Fatalf("the corpus must exercise every extractor: %d concepts, %d relations, %d counters, %d hints",
			len(out.Concepts), len(out.Relations), len(out.Counters), len(out.OrderingHints))
	}
}
