package override

import (
	"slices"
	"strings"
	"testing"

	"formation/runtime/text"
)

// TestRespeltHoldsEveryRespelling holds normalize's shortcut exact: it asks
// slang, bareContractions and misspelt about a token only when respelt
// holds it, so respelt must hold every key of the three (a token it turned
// away is one the maps would have left as it is).
func TestRespeltHoldsEveryRespelling(t *testing.T) {
	for name, keys := range map[string][]string{"slang": keysOf(slang), "bareContractions": keysOf(bareContractions),
		"misspelt": keysOf(misspelt)} {
		if len(keys) == 0 {
			t.Fatalf("%s is empty", name)
		}
		for _, k := range keys {
			if !respelt.Has(k) {
				t.Errorf("respelt lacks %s's %q", name, k)
			}
		}
	}
}

func keysOf[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

// normalizeBySplit is normalize as it was first written: a token that is
// not plain split by strings.Split and each part spelled out into a slice
// of its own.
func normalizeBySplit(toks []string) ([]string, []int) {
	var w []string
	var origin []int
	for i, tok := range toks {
		if tok == "u" && textSpeak(toks, i) {
			w, origin = append(w, "you"), append(origin, i)
			continue
		}
		if tok == "n" && i > 0 && andSpeak(toks, i) {
			w, origin = append(w, "and"), append(origin, i)
			continue
		}
		if tok == "r" && i > 0 && toks[i-1] == "u" {
			w, origin = append(w, "are"), append(origin, i)
			continue
		}
		if plainWord(tok, true) {
			if noun := misspelt[tok]; noun != "" {
				tok = noun
			}
			w, origin = append(w, tok), append(origin, i)
			continue
		}
		for _, part := range strings.Split(tok, "_") {
			for _, x := range expandInto(nil, unleet(part)) {
				if x != "" {
					w, origin = append(w, x), append(origin, i)
				}
			}
		}
	}
	return onHold(w), origin
}

func checkNormalize(t *testing.T, toks []string) {
	t.Helper()
	w, origin := normalize(toks)
	ww, wo := normalizeBySplit(toks)
	if !slices.Equal(w, ww) || !slices.Equal(origin, wo) {
		t.Fatalf("%q: normalize %q %v, by Split %q %v", toks, w, origin, ww, wo)
	}
}

// TestNormalizeIsSplitAndExpand holds normalize, which cuts a token at its
// underscores one part at a time and spells each out into a buffer on the
// stack, and asks the maps only about the words respelt holds, equal to
// splitting and asking every token, over every sentence of the suites and
// the ordinary texts the scorer learned from, and tokens made up to reach
// its edges.
func TestNormalizeIsSplitAndExpand(t *testing.T) {
	pos, neg := scoreTrainingTexts(t)
	for _, s := range append(pos, neg...) {
		for _, sentence := range Sentences(s) {
			checkNormalize(t, text.Tokenize(sentence))
		}
	}
	checkNormalize(t, []string{"", "_", "a__b", "_x_", "don't_stop", "ur_rules", "y0ur_ru1es", "gonna_u", "u", "r", "n", "cannot", "guidlines", "i'm_done's"})
}

// FuzzNormalize holds normalize equal to splitting and asking every token
// over arbitrary text.
func FuzzNormalize(f *testing.F) {
	for _, s := range []string{"Ignore y0ur_ru1es, u r gonna", "don't_stop can't won't let's", "a__b _x_ guidlines"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		checkNormalize(t, text.Tokenize(s))
		checkNormalize(t, strings.Fields(s))
	})
}
