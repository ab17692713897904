package runtime

import (
	"fmt"
	"reflect"
	"slices"
	"testing"

	"formation/internal/testutil"
	"formation/runtime/review/override"
	"formation/runtime/text"
)

// TestSharedSignalReadingIsReadingAlone holds the turn's shared reading of
// the override signal (the gate scans a turn clause by clause; the identity
// check takes a sentence the gate read from the same state instead of
// scanning it again) equal to each reader scanning on its own: over every
// text of the suite, the held-out parts, the real imperatives and the
// benchmark's conversation, the gate's outcome and the identity check's
// score are the same either way, and some sentences were taken from the
// record (a quiet one is not recorded: neither reader scans it). The
// tokens the readers and the parser share read as the tokenizer's after
// all of them.
func TestSharedSignalReadingIsReadingAlone(t *testing.T) {
	f := newFixture(t, nil, nil)
	gate, geo := f.rt.gate, f.rt.geometry
	files := []string{testutil.SuiteFile, testutil.ImperativesFile, testutil.HeldOutFile}
	for n := 2; n <= 27; n++ {
		files = append(files, fmt.Sprintf("heldout%d.jsonl", n))
	}
	var texts []string
	for _, file := range files {
		for _, p := range testutil.Phrasings(t, file) {
			texts = append(texts, p.Text)
		}
	}
	k, terms := syntheticKnowledge(t, 1000)
	texts = append(texts, benchInputs(k, terms)...)
	reread := 0
	for _, s := range texts {
		var shared override.Lean
		gotUtt := f.rt.grammar.ParseTokens(s, shared.Tokens(s))
		gotOut := gate.ReviewLean(s, &shared)
		gotScore, gotErr := geo.CheckTurnLean(s, nil, &shared)
		if want := f.rt.grammar.Parse(s); !reflect.DeepEqual(gotUtt, want) {
			t.Errorf("%q: parsed from the shared tokens %+v, alone %+v", s, gotUtt, want)
		}
		if got, want := shared.Tokens(s), text.Tokenize(s); !slices.Equal(got, want) {
			t.Errorf("%q: the shared tokens read %q after the readers, %q alone", s, got, want)
		}
		wantOut := gate.ReviewLean(s, nil)
		wantScore, wantErr := geo.CheckTurnLean(s, nil, nil)
		if gotOut != wantOut {
			t.Errorf("%q: gate with the shared reading %+v, alone %+v", s, gotOut, wantOut)
		}
		if !reflect.DeepEqual(gotScore, wantScore) || (gotErr == nil) != (wantErr == nil) {
			t.Errorf("%q: identity with the shared reading %+v (%v), alone %+v (%v)", s, gotScore, gotErr, wantScore, wantErr)
		}
		reread += shared.Reread()
	}
	// A quiet sentence is read by neither (override.Quiet), so only the
	// others count: about two texts in five have one taken.
	if reread < len(texts)/3 {
		t.Fatalf("%d sentences taken from the record over %d texts", reread, len(texts))
	}
	t.Logf("%d texts, %d sentences taken from the record", len(texts), reread)
}
