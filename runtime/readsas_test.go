package runtime

import (
	"context"
	"fmt"
	"reflect"
	"testing"

	"formation/internal/testutil"
)

// A session's ReadsAs, which takes its last turn's reading of the
// utterance, answers as Runtime.ReadsAs reading it again: over every text
// of the suites and the held-out parts and the benchmark's conversation,
// with a seed hint and a statement hint built from the runtime's own
// reading (so that both answers occur) and from other words, and the
// reading was taken from the turn for most of them.
func TestSessionReadsAsIsRuntimeReadsAs(t *testing.T) {
	k, terms := syntheticKnowledge(t, 1000)
	f := newFixture(t, nil, nil)
	files := []string{testutil.SuiteFile, testutil.ImperativesFile, testutil.HeldOutFile}
	for n := 2; n <= 27; n++ {
		files = append(files, fmt.Sprintf("heldout%d.jsonl", n))
	}
	texts := append(benchInputs(k, terms), "What is light?", "Light causes refraction.", "light does not cause refraction.",
		"What is?", "???", "", " \t", "What is \xff?", "What does light cause?")
	for _, file := range files {
		for _, p := range testutil.Phrasings(t, file) {
			texts = append(texts, p.Text)
		}
	}
	ctx := context.Background()
	taken, same := 0, 0
	for _, s := range texts {
		p := f.rt.grammar.Parse(s)
		hints := []StepHint{
			{Kind: HintSeedConcept, Head: p.Subject}, {Kind: HintSeedConcept, Head: "light"},
			{Kind: HintIntroduceRelation, Head: p.Subject, Relation: p.Relation, Tail: p.Object},
			{Kind: HintFalseClaim, Head: p.Subject, Relation: p.Relation, Tail: p.Object},
			{Kind: HintIntroduceRelation, Head: "light", Relation: "causes", Tail: "refraction"},
			{Kind: HintWalkStep, Head: "light", Relation: "causes", Tail: "refraction"},
		}
		for _, h := range hints {
			sess := f.rt.NewSession()
			hint := h
			if _, err := sess.Turn(ctx, s, &hint); err != nil {
				continue // a hint the turn refuses: no reading to take
			}
			got, gotSame := sess.ReadsAs(s, h)
			want, wantSame := f.rt.ReadsAs(s, h)
			if !reflect.DeepEqual(got, want) || gotSame != wantSame {
				t.Fatalf("%q %+v: session %+v %v, runtime %+v %v", s, h, got, gotSame, want, wantSame)
			}
			if sess.parsed.done && sess.parsed.input == s && len(sess.parsed.u.Tokens) > 0 {
				taken++
			}
			if wantSame {
				same++
			}
		}
	}
	if taken < len(texts) || same < len(texts)/4 {
		t.Fatalf("%d readings taken from the turn, %d reaching their step, over %d texts", taken, same, len(texts))
	}
	t.Logf("%d texts: %d readings taken from the turn, %d reaching their step", len(texts), taken, same)
}
