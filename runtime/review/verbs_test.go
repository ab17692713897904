package review

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"formation/internal/testutil"
)

// TestVerbsAreTheFormMaps holds the gate's merged verb table, which the
// rules read with one lookup a word (through verb, which asks it only about
// the words verbWords holds), equal to the five form maps it stands for:
// over every word any of them holds, every word of the suite, the held-out
// parts and the real imperatives, and words none holds.
func TestVerbsAreTheFormMaps(t *testing.T) {
	g := NewGate(axes...)
	words := map[string]bool{"": true, "zzz": true, "the": true}
	for _, m := range []map[string]string{g.changeForms, g.phrasalForms, g.adoptForms, g.actForms, g.speakForms} {
		for w := range m {
			words[w] = true
		}
	}
	files := []string{testutil.SuiteFile, testutil.ImperativesFile, testutil.HeldOutFile}
	for n := 2; n <= 27; n++ {
		files = append(files, fmt.Sprintf("heldout%d.jsonl", n))
	}
	for _, file := range files {
		for _, p := range testutil.Phrasings(t, file) {
			for _, w := range g.Normalize(p.Text) {
				words[w] = true
			}
		}
	}
	changes := 0
	for w := range words {
		v := g.verb(w)
		if v != g.verbs[w] {
			t.Errorf("%q: verb %+v, verbs %+v", w, v, g.verbs[w])
		}
		c, isChange := g.changeForms[w]
		want := verbForm{change: c, isChange: isChange, phrasal: g.phrasalForms[w], adopt: g.adoptForms[w], act: g.actForms[w], speak: g.speakForms[w]}
		if v != want {
			t.Errorf("%q: verbs %+v, the form maps %+v", w, v, want)
		}
		if isChange {
			changes++
		}
	}
	if changes == 0 || len(g.verbs) == 0 {
		t.Fatalf("no verb read: %d changes, %d verbs", changes, len(g.verbs))
	}
}

// standingByEveryPhrase is standingInstruction as it was first written:
// every phrase tried at every word.
func (g *Gate) standingByEveryPhrase(t words) (string, bool) {
	for i := range t.w {
		for _, p := range g.lex.standing {
			if i+len(p) > len(t.w) || !slices.Equal(t.w[i:i+len(p)], p) {
				continue
			}
			if v, ok := g.imperativeNear(t, i, i+len(p)); ok && g.conductOrder(t, i, v) {
				return strings.Join(p, " ") + " ... " + v, true
			}
		}
	}
	return "", false
}

// TestStandingInstructionStartsAtFirstWords holds standingInstruction,
// which tries the standing phrases only at a word one of them opens with,
// equal to trying every phrase at every word, over the suite, the held-out
// parts and the real imperatives.
func TestStandingInstructionStartsAtFirstWords(t *testing.T) {
	g := NewGate(axes...)
	files := []string{testutil.SuiteFile, testutil.ImperativesFile, testutil.HeldOutFile}
	for n := 2; n <= 27; n++ {
		files = append(files, fmt.Sprintf("heldout%d.jsonl", n))
	}
	fired := 0
	for _, file := range files {
		for _, p := range testutil.Phrasings(t, file) {
			w := g.normalizeLean(p.Text, nil)
			got, ok := g.standingInstruction(w)
			want, wantOK := g.standingByEveryPhrase(w)
			if got != want || ok != wantOK {
				t.Fatalf("%q: standingInstruction %q %v, every phrase %q %v", p.Text, got, ok, want, wantOK)
			}
			if ok {
				fired++
			}
		}
	}
	if fired == 0 {
		t.Fatal("no standing instruction read: the test reaches nothing")
	}
}
