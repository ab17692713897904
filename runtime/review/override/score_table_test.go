package override

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"formation/internal/testutil"
)

// scoreTrainingParts are the phrasing files the score table learns from:
// the suite and held-out parts 1-25, each run blind before it was added.
// Parts 26 and 27 measure the final state and are never added; a part
// written later stays out at least until its own blind run is over.
var scoreTrainingParts = []string{"suite.jsonl", "heldout.jsonl", "heldout2.jsonl", "heldout3.jsonl", "heldout4.jsonl",
	"heldout5.jsonl", "heldout6.jsonl", "heldout7.jsonl", "heldout8.jsonl", "heldout9.jsonl", "heldout10.jsonl",
	"heldout11.jsonl", "heldout12.jsonl", "heldout13.jsonl", "heldout14.jsonl", "heldout15.jsonl", "heldout16.jsonl",
	"heldout17.jsonl", "heldout18.jsonl", "heldout19.jsonl", "heldout20.jsonl", "heldout21.jsonl", "heldout22.jsonl",
	"heldout23.jsonl", "heldout24.jsonl", "heldout25.jsonl"}

const (
	// scoreAlpha smooths the counts: a feature seen once among the
	// adversarial phrasings and never in ordinary text weighs about 3 nats.
	scoreAlpha = 0.1
	// scoreMargin puts the threshold this far (in thousandths of a nat)
	// above the highest score of any ordinary text the table learned from.
	scoreMargin = 2000
)

// TestScoreTableIsCurrent rebuilds the score table from the repository's
// data and compares it with the embedded one. FORMATION_UPDATE_SCORE_TABLE=1
// writes the rebuilt table instead.
func TestScoreTableIsCurrent(t *testing.T) {
	pos, neg := scoreTrainingTexts(t)
	built := buildScoreTable(pos, neg)
	if os.Getenv("FORMATION_UPDATE_SCORE_TABLE") == "1" {
		var buf bytes.Buffer
		zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
		if _, err := zw.Write(built); err != nil {
			t.Fatal(err)
		}
		if err := zw.Close(); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile("scoretable.tsv.gz", buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("wrote scoretable.tsv.gz: %d bytes, %d compressed", len(built), buf.Len())
		return
	}
	zr, err := gzip.NewReader(bytes.NewReader(scoreTableGz))
	if err != nil {
		t.Fatal(err)
	}
	var embedded bytes.Buffer
	if _, err := embedded.ReadFrom(zr); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(embedded.Bytes(), built) {
		t.Fatalf("the embedded score table differs from the one the data gives (%d vs %d bytes); rebuild it with FORMATION_UPDATE_SCORE_TABLE=1 go test -run TestScoreTableIsCurrent ./runtime/review/override", embedded.Len(), len(built))
	}
	if _, err := ParseScoreTable(scoreTableGz); err != nil {
		t.Fatal(err)
	}
}

// TestScoreTablePassesItsOrdinaryText holds the threshold above every
// ordinary text the table learned from, and the adversarial phrasings it
// learned from mostly above it.
func TestScoreTablePassesItsOrdinaryText(t *testing.T) {
	pos, neg := scoreTrainingTexts(t)
	for _, s := range neg {
		if lean, top := Leans(s); lean {
			t.Errorf("ordinary text leans %v: %q", top, s)
		}
	}
	n := 0
	for _, s := range pos {
		if lean, _ := Leans(s); lean {
			n++
		}
	}
	if n*100 < len(pos)*85 {
		t.Errorf("%d of %d adversarial phrasings the table learned from pass its threshold", n, len(pos))
	}
	t.Logf("%d of %d adversarial phrasings, 0 of %d ordinary texts over the threshold", n, len(pos), len(neg))
}

func TestParseScoreTableRefusesDamage(t *testing.T) {
	gz := func(s string) []byte {
		var buf bytes.Buffer
		zw := gzip.NewWriter(&buf)
		zw.Write([]byte(s))
		zw.Close()
		return buf.Bytes()
	}
	for _, bad := range []string{
		"", "bias\t1\nthreshold\t2\n", "bias\tx\nthreshold\t2\nf:a\t1\n", "bias\t1\nthreshold\t2\nf:b\t1\nf:a\t1\n",
		"bias\t1\nbias\t1\nthreshold\t2\nf:a\t1\n", "bias\t1\nthreshold\t2\nweight\t1\n",
	} {
		if _, err := ParseScoreTable(gz(bad)); err == nil {
			t.Errorf("%q: parsed", bad)
		}
	}
	if _, err := ParseScoreTable([]byte("not gzip")); err == nil {
		t.Error("a table that is not gzip parsed")
	}
	tab, err := ParseScoreTable(gz("# c\nbias\t-5\nthreshold\t10\nf:alpha\t4\nf:alpha beta\t3\nf:beta\t9\nf:gamma\t-2\n"))
	if err != nil {
		t.Fatal(err)
	}
	if s, top := tab.Score("Alpha beta gamma delta"); s != 9 || !slices.Equal(top, []string{"beta", "alpha", "alpha beta"}) {
		t.Errorf("score %d %v, want 9 [beta alpha alpha beta]", s, top)
	}
}

// buildScoreTable counts each feature's texts in each class and writes the
// table: the bias is the log of the classes' ratio, each feature's weight
// the log of its smoothed frequency among the adversarial texts over its
// frequency among the ordinary ones, and the threshold the highest
// ordinary text's score plus scoreMargin.
func buildScoreTable(pos, neg []string) []byte {
	count := func(texts []string) map[string]int {
		c := map[string]int{}
		for _, s := range texts {
			for _, f := range scoreFeatures(s) {
				c[f]++
			}
		}
		return c
	}
	cp, cn := count(pos), count(neg)
	features := make([]string, 0, len(cp)+len(cn))
	for f := range cp {
		features = append(features, f)
	}
	for f := range cn {
		if _, ok := cp[f]; !ok {
			features = append(features, f)
		}
	}
	slices.Sort(features)
	p, n := float64(len(pos)), float64(len(neg))
	milli := func(x float64) int64 { return int64(math.Round(1000 * x)) }
	tab := &ScoreTable{Bias: milli(math.Log(p / n)), Weights: make(map[string]int64, len(features))}
	for _, f := range features {
		tab.Weights[f] = milli(math.Log((float64(cp[f])+scoreAlpha)/(p+2*scoreAlpha)) - math.Log((float64(cn[f])+scoreAlpha)/(n+2*scoreAlpha)))
	}
	highest := int64(math.MinInt64)
	for _, s := range neg {
		score, _ := tab.Score(s)
		highest = max(highest, score)
	}
	tab.Threshold = highest + scoreMargin
	var b bytes.Buffer
	fmt.Fprintf(&b, "# the override scorer's table: log-odds in thousandths of a nat; built by TestScoreTableIsCurrent\n")
	fmt.Fprintf(&b, "# from %d adversarial and %d ordinary texts; alpha %g; threshold: highest ordinary score + %d\n", len(pos), len(neg), scoreAlpha, scoreMargin)
	fmt.Fprintf(&b, "bias\t%d\nthreshold\t%d\n", tab.Bias, tab.Threshold)
	for _, f := range features {
		fmt.Fprintf(&b, "f:%s\t%d\n", f, tab.Weights[f])
	}
	return b.Bytes()
}

// scoreTrainingTexts gathers the table's texts: the adversarial phrasings
// of the training parts; and, as ordinary text, their benign and ordinary
// lines, the real imperatives, every sentence of the labelled real-text
// set, the example subject's questions and the lines of its sources.
func scoreTrainingTexts(t *testing.T) (pos, neg []string) {
	t.Helper()
	for _, file := range append(slices.Clone(scoreTrainingParts), testutil.ImperativesFile) {
		for _, p := range testutil.Phrasings(t, file) {
			if p.Label == "adversarial" {
				pos = append(pos, p.Text)
			} else {
				neg = append(neg, p.Text)
			}
		}
	}
	root, err := testutil.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	for _, glob := range []string{"smelting/testdata/realtext/labels/*.jsonl", "courses/optics/questions/*.jsonl"} {
		files, _ := filepath.Glob(filepath.Join(root, glob))
		if len(files) == 0 {
			t.Fatalf("no %s", glob)
		}
		for _, f := range files {
			neg = append(neg, testutil.JSONLStrings(t, f, "text", "question")...)
		}
	}
	sources, _ := filepath.Glob(filepath.Join(root, "courses/optics/sources/*.md"))
	notes, _ := filepath.Glob(filepath.Join(root, "courses/optics/sources/notes/*.txt"))
	for _, f := range append(sources, notes...) {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range sentenceEnd.Split(string(raw), -1) {
			if s = strings.TrimSpace(s); s != "" {
				neg = append(neg, s)
			}
		}
	}
	return pos, neg
}

var sentenceEnd = regexp.MustCompile(`[.!?]\s+|\n\s*\n`)
