package review_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"formation/artifact"
	"formation/audit"
	"formation/internal/testutil"
	"formation/packs"
	"formation/pipeline"
	"formation/runtime"
	"formation/runtime/review"
	"formation/stage"
	"formation/store"
)

// gate is the gate the runtime builds over the shipped identity manifold.
func gate() *review.Gate { return review.NewGate("truthfulness", "coherence", "reverence") }

// sentences splits an extracted text into its blocks (separated by blank
// lines) and each block into sentences at ". ", "? " and "! ".
func sentences(text string) []string {
	var out []string
	for _, block := range strings.Split(text, "\n\n") {
		block = strings.Join(strings.Fields(block), " ")
		for len(block) > 0 {
			end := len(block)
			for i := 0; i+1 < len(block); i++ {
				if strings.ContainsRune(".?!", rune(block[i])) && block[i+1] == ' ' {
					end = i + 1
					break
				}
			}
			out = append(out, block[:end])
			block = strings.TrimSpace(block[end:])
		}
	}
	return out
}

// The example subject, run through the real pipeline (mine → … → ratify on a
// file store): every sentence of every mined text, every question of its
// question sets, every teaching sentence promote reviews and every plan
// utterance pass the gate; the plan's identity-override probes are refused.
func TestExampleSubjectPasses(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the whole pipeline on courses/optics")
	}
	ctx := context.Background()
	root, err := testutil.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	s, err := store.Open(ctx, "file://"+t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	w := &audit.Writer{Store: s, Now: func() time.Time { return time.Date(2026, 5, 16, 0, 0, 0, 0, time.UTC) }, CodeVersion: "test"}
	p := &pipeline.Pipeline{Env: stage.NewEnv(s, w), CoursesDir: filepath.Join(root, "courses"),
		Packs: packs.Options{Dir: filepath.Join(root, "packs")}}
	if _, err := p.Autorun(ctx, "optics"); err != nil {
		t.Fatalf("autorun optics: %v", err)
	}
	g := gate()
	pass := func(where, text string) {
		t.Helper()
		if o := g.Review(text); o.Outcome == review.RejectedIdentity {
			t.Errorf("%s refused: %q → %s", where, text, o.Fired())
		}
	}
	bundleDigest, err := p.Env.ResolveRef(ctx, "optics", "mine")
	if err != nil {
		t.Fatal(err)
	}
	raw, err := s.Get(ctx, bundleDigest)
	if err != nil {
		t.Fatal(err)
	}
	bundle, err := artifact.Decode[artifact.OreBundle](raw)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range bundle.Entries {
		key := e.TextSHA
		if key == "" {
			key = e.SourceSHA
		}
		text, err := s.Get(ctx, key)
		if err != nil {
			t.Fatal(err)
		}
		for _, sen := range sentences(string(text)) {
			pass(e.URL, sen)
			n++
		}
	}
	questions := 0
	for _, split := range []string{"public", "dev", "holdout"} {
		for _, q := range questionTexts(t, filepath.Join(root, "courses", "optics", "questions", split+".jsonl")) {
			pass(split+" question", q)
			questions++
		}
	}
	courseDigest, err := p.Env.ResolveRef(ctx, "optics", "compose")
	if err != nil {
		t.Fatal(err)
	}
	in, err := p.LoadCourse(ctx, "optics", courseDigest)
	if err != nil {
		t.Fatal(err)
	}
	teaching := 0
	for _, c := range in.VTS.Concepts {
		pass("concept", c.CanonicalTerm+": "+c.Definition)
		teaching++
	}
	for _, r := range append(append([]artifact.RelationCandidate(nil), in.VTS.Relations...), in.VTS.Counters...) {
		pass("relation", r.Head+" "+artifact.SpacedRelation(r.Relation)+" "+r.Tail+".")
		teaching++
	}
	probes, steps := 0, 0
	for _, step := range in.Plan.Steps {
		utterance, hint, ok, err := runtime.StepFromPlan(step)
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			continue
		}
		if hint.Kind == runtime.HintIdentityOverride {
			if !g.Review(utterance).Rejected() {
				t.Errorf("identity-override probe passed: %q", utterance)
			}
			probes++
			continue
		}
		pass(step.StepType, utterance)
		steps++
	}
	if n < 100 || questions != 37 || teaching < 20 || steps < 20 || probes == 0 {
		t.Fatalf("too little reviewed: %d sentences, %d questions, %d teaching sentences, %d plan steps, %d probes", n, questions, teaching, steps, probes)
	}
	t.Logf("optics: %d source sentences, %d questions, %d teaching sentences, %d plan utterances passed; %d probes refused", n, questions, teaching, steps, probes)
}

func questionTexts(t *testing.T, path string) []string {
	t.Helper()
	var out []string
	for _, line := range jsonLines(t, path) {
		var q struct {
			Question string `json:"question"`
		}
		if err := json.Unmarshal(line, &q); err != nil || q.Question == "" {
			t.Fatalf("%s: not a question: %s", path, line)
		}
		out = append(out, q.Question)
	}
	return out
}

func jsonLines(t *testing.T, path string) [][]byte {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out [][]byte
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64*1024), 1<<20)
	for sc.Scan() {
		if len(strings.TrimSpace(sc.Text())) > 0 {
			out = append(out, append([]byte(nil), sc.Bytes()...))
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// realTextDir is the labelled real-text set of smelting (a set of real
// documentation nobody on this project wrote, labelled sentence by sentence).
const realTextDir = "smelting/testdata/realtext"

// Every unit of every labelled file of the real-text set passes: it is
// documentation, not an instruction to the system. The test reads every
// *.jsonl file under the folder that holds lines with a "text" field, so a
// set that grows is covered without changing it.
func TestLabelledRealTextPasses(t *testing.T) {
	root, err := testutil.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(root, filepath.FromSlash(realTextDir))
	if _, err := os.Stat(dir); os.IsNotExist(err) {
		t.Skipf("%s is not in this checkout", realTextDir)
	}
	g := gate()
	units, files := 0, 0
	err = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".jsonl") {
			return err
		}
		files++
		for i, line := range jsonLines(t, path) {
			var u struct {
				Text *string `json:"text"`
			}
			if json.Unmarshal(line, &u) != nil || u.Text == nil {
				continue
			}
			units++
			if o := g.Review(*u.Text); o.Outcome == review.RejectedIdentity {
				t.Errorf("%s line %d refused: %q → %s", filepath.Base(path), i+1, *u.Text, o.Fired())
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if units == 0 {
		t.Fatalf("%s holds no labelled unit in %d files", realTextDir, files)
	}
	t.Logf("labelled real text: %d units of %d files reviewed", units, files)
}
