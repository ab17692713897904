package smelting

import (
	"slices"
	"testing"

	"formation/relparse"
)

// sentencesOf returns the sentences of text, checking on the way that the
// splitter's spaced flag is right (collapsing would change the sentence).
func sentencesOf(t *testing.T, text string) []string {
	t.Helper()
	var out []string
	forEachSentence(text, func(start, end int, spaced bool) {
		if s := text[start:end]; spaced == (relparse.CollapseSpace(s) == s) {
			t.Errorf("sentence %q: spaced is %v", s, spaced)
		}
		out = append(out, text[start:end])
	})
	return out
}

// TestSentencesKeepTheirBytes: sentences are cut from the raw text, inner
// whitespace and terminators as they stand, with no whitespace around.
func TestSentencesKeepTheirBytes(t *testing.T) {
	cases := []struct {
		text string
		want []string
	}{
		{"", nil},
		{" \t\r\n ", nil},
		{"One.", []string{"One."}},
		{"  One  two.\tThree\r\nfour?!  Five", []string{"One  two.", "Three\r\nfour?!", "Five"}},
		{"A\u00a0mirror\u00a0is\u00a0a\u00a0surface.\u2028Next.", []string{"A\u00a0mirror\u00a0is\u00a0a\u00a0surface.", "Next."}},
		// Only whitespace after a terminator splits: "x.y" and "e.g." inside words do not.
		{"Use x.y here. e.g. this", []string{"Use x.y here.", "e.g.", "this"}},
		{"What?! Really. Why is the sky blue?!", []string{"What?!", "Really.", "Why is the sky blue?!"}},
		{"Dots... then more", []string{"Dots...", "then more"}},
		// A blank line ends a sentence; a single line break does not.
		{"Lenses\n\nA lens is glass", []string{"Lenses", "A lens is glass"}},
		{"Lenses\r\n\r\nA lens", []string{"Lenses", "A lens"}},
		{"Lenses \n \t\n A lens", []string{"Lenses", "A lens"}},
		{"one\rtwo\r\nthree\nfour", []string{"one\rtwo\r\nthree\nfour"}},
		{"one\u2029\u2029two", []string{"one", "two"}},
		{"one\u0085\ntwo", []string{"one", "two"}},
		// U+001F is whitespace but no line break; U+200B is neither.
		{"one.\x1ftwo\x1f\x1fthree", []string{"one.", "two\x1f\x1fthree"}},
		{"one.\u200btwo", []string{"one.\u200btwo"}},
	}
	for _, c := range cases {
		if got := sentencesOf(t, c.text); !slices.Equal(got, c.want) {
			t.Errorf("sentences of %q: got %q, want %q", c.text, got, c.want)
		}
	}
}

// TestSentencesMatchTheOriginalSplit: without blank lines, the sentences,
// whitespace-collapsed, are exactly the original's (split of the
// flattened text after '.', '?' or '!').
func TestSentencesMatchTheOriginalSplit(t *testing.T) {
	text := "  Cross-section is a slice.\tThe big lens is a tool.\r\nLens 2 is spare.\u00a0 Café is a place. e.g. lenses. Dr. Smith is here.\nWhat?! Really."
	want := []string{"Cross-section is a slice.", "The big lens is a tool.", "Lens 2 is spare.", "Café is a place.", "e.g.", "lenses.",
		"Dr.", "Smith is here.", "What?!", "Really."}
	var got []string
	for _, s := range sentencesOf(t, text) {
		got = append(got, relparse.CollapseSpace(s))
	}
	if !slices.Equal(got, want) {
		t.Fatalf("got %q, want %q", got, want)
	}
}

func TestCleanSentence(t *testing.T) {
	cases := map[string]string{
		"Light is a wave.":   "Light is a wave",
		"Why?! ":             "Why",
		"The sky is blue...": "The sky is blue",
		"Wait . ! ?":         "Wait",
		"...":                "",
		"No end":             "No end",
	}
	for in, want := range cases {
		if got := cleanSentence(in); got != want {
			t.Errorf("cleanSentence(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestUnicodeBoundaries: spaces and word boundaries are Python's Unicode
// ones, so exotic whitespace separates words and a non-ASCII letter
// glued to a predicate hides it.
func TestUnicodeBoundaries(t *testing.T) {
	cases := []struct {
		text string
		want []string
	}{
		{"Water\u2003is\u3000a\u00a0liquid.", []string{"concept water = liquid", "relation (water is liquid)"}},
		{"λόγος reveals ἀλήθεια.", []string{"relation (λόγος reveals ἀλήθεια)"}},
		{"Glass belongs\u00a0to optics.", []string{"relation (glass belongs_to optics)"}},
		{"Xéis a wave.", nil},
		{"Wasser ist nass. Λόγος is σοφία.", []string{"relation (λόγος is σοφία)"}},
	}
	for _, c := range cases {
		if got := keys(smeltPlain(t, c.text)); !slices.Equal(got, c.want) {
			t.Errorf("%q: got %q, want %q", c.text, got, c.want)
		}
	}
}
