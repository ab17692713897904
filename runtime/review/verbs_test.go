package review

import (
	"fmt"
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
