package smelting

import (
	"testing"

	"formation/relparse"
)

// definitionMatch runs one concept pattern (0: "is defined as", 1:
// "means", 2: "is a/an") on a cleaned sentence and returns its two groups,
// lower-cased and trimmed as the original kept them, or ok == false.
func definitionMatch(s string, pattern int) (term, def string, ok bool) {
	p := definitionPatterns()[pattern]
	var at int
	ends := findTermEnds(s, 0)
	end, ok := ends.first(p.lead, func(end int) bool {
		var ok bool
		at, ok = p.cont(s, end)
		return ok
	})
	if !ok {
		return "", "", false
	}
	return lowerTrim(s[:end]), lowerTrim(s[at:]), true
}

// TestPatternsMatchTheOriginalRegexps pins the hand-written matchers to
// what the original's regular expressions (IGNORECASE, lazy term group of
// at most 41 characters) capture on single-spaced sentences, including
// the cases where laziness and backtracking decide the groups. The
// expected groups were produced by those expressions.
func TestPatternsMatchTheOriginalRegexps(t *testing.T) {
	type groups struct{ a, b string }
	none := groups{}
	cases := []struct {
		s                   string
		defined, means, isA groups
		ordering            groups // (after, before) of the first ordering pattern that matches
	}{
		// The shortest term is taken; a longer one is never tried, so an
		// invalid shortest term loses the pattern.
		{"Light is what a lens is a tool", none, none, groups{"light is what a lens", "tool"}, none},
		{"Lens means a tool is a thing", none, groups{"lens", "a tool is a thing"}, groups{"lens means a tool", "thing"}, none},
		{"A b c d e f is a g", none, none, groups{"a b c d e f", "g"}, none},
		// 41 characters is the longest term.
		{"abcdefghijklmnopqrstuvwxyzabcdefghijklmno is a thing", none, none, groups{"abcdefghijklmnopqrstuvwxyzabcdefghijklmno", "thing"}, none},
		{"abcdefghijklmnopqrstuvwxyzabcdefghijklmnop is a thing", none, none, none, none},
		// IGNORECASE folds the Kelvin sign, long s and both odd i's.
		{"\u212Aelvin is a unit", none, none, groups{"kelvin", "unit"}, none},
		{"\u017Fun is a star", none, none, groups{"\u017Fun", "star"}, none},
		{"Light \u0131s a wave", none, none, groups{"light", "wave"}, none},
		{"Light \u0130S AN x", none, none, groups{"light", "x"}, none},
		// "an?" prefers "an" but gives it back.
		{"Light is an apple", none, none, groups{"light", "apple"}, none},
		{"Light is another wave", none, none, none, none},
		{"Light is an", none, none, none, none},
		{"Light is defined as", none, none, none, none},
		{"Light is defined as x", groups{"light", "x"}, none, none, none},
		{"Light means is a", none, groups{"light", "is a"}, none, none},
		// The term must start with a letter; hyphens may follow.
		{"Red-green is a pair", none, none, groups{"red-green", "pair"}, none},
		{"-red is a colour", none, none, none, none},
		{"red is a -colour", none, none, groups{"red", "-colour"}, none},
		{"Light 2 is a wave", none, none, none, none},
		{"Light-is a wave", none, none, none, none},
		// Ordering: the first pattern that matches decides, even when its
		// terms will be rejected.
		{"X requires Y depends on Z", none, none, none, groups{"x", "y depends on z"}},
		{"Y depends on Z requires W", none, none, none, groups{"y depends on z", "w"}},
		{"Before optics , physics", none, none, none, groups{"optics", "physics"}},
		{"Before optics,physics", none, none, none, groups{"optics", "physics"}},
		{"Before x y z w, q", none, none, none, groups{"x y z w", "q"}},
		{"before a, b, c", none, none, none, none},
		{"Optics requires the very careful alignment", none, none, none, groups{"optics", "the very careful alignment"}},
		{"Optics requires geometry and algebra and more and more maths", none, none, none, none},
	}
	for _, c := range cases {
		for p, want := range []groups{c.defined, c.means, c.isA} {
			a, b, ok := definitionMatch(c.s, p)
			if got := (groups{a, b}); got != want || ok != (want != none) {
				t.Errorf("%q concept pattern %d: got %q (%v), want %q", c.s, p, got, ok, want)
			}
		}
		ends := findTermEnds(c.s, 0)
		after, before, ok := matchOrdering(c.s, &ends)
		got := groups{lowerTrim(after), lowerTrim(before)}
		if ok != (c.ordering != none) || (ok && got != c.ordering) {
			t.Errorf("%q ordering: got %q (%v), want %q", c.s, got, ok, c.ordering)
		}
	}
}

func TestValidTerm(t *testing.T) {
	valid := []string{"light", "red-green", "big red lens", "x-", "a b c"}
	invalid := []string{"", " light", "light ", "a  b", "one two three four", "café", "lens2", "-red", "ſun", "i\u0307nk", "Light"}
	for _, s := range valid {
		if !validTerm(s) {
			t.Errorf("%q should be a valid term", s)
		}
	}
	for _, s := range invalid {
		if validTerm(s) {
			t.Errorf("%q should not be a valid term", s)
		}
	}
}

func TestNormalTerm(t *testing.T) {
	cases := []struct {
		raw, want string
		ok        bool
	}{
		{"A lens", "lens", true},
		{"The big red lens", "big red lens", true},
		{"Indeed light", "light", true},
		{"\u212Aelvin", "kelvin", true},
		{"the", "", false},
		{"one two three four", "one two three four", false},
	}
	for _, c := range cases {
		if got, ok := normalTerm(c.raw); got != c.want || ok != c.ok {
			t.Errorf("normalTerm(%q) = %q, %v; want %q, %v", c.raw, got, ok, c.want, c.ok)
		}
	}
}

func TestCounterMarkers(t *testing.T) {
	cases := map[string]int{
		"It is a misconception that x is y":        len("it is a misconception that "),
		"IT IS A COMMON MISCONCEPTION THAT x is y": len("it is a common misconception that "),
		"Contrary to belief, x is y":               len("contrary to belief, "),
		"Not x is y":                               len("not "),
		"Notably x is y":                           0,
		"Not":                                      0,
		"\u0130t is not true that x is y":          0, // 'İ' lower-cases to "i̇", not "i"
	}
	for s, want := range cases {
		if got := counterMarkerLen(s); got != want {
			t.Errorf("counterMarkerLen(%q) = %d, want %d", s, got, want)
		}
	}
}

func TestFindNegation(t *testing.T) {
	cases := []struct {
		low       string
		count     int
		leadingNo bool
	}{
		{"no mammal is a reptile", 1, true},
		{"no, wisdom is judgment", 0, false},
		{"no; wisdom is judgment", 0, false},
		{"water is not wet", 1, false},
		{"light isn't a particle", 1, false},
		{"light isn\u2019t a particle", 1, false},
		{"the no-go theorem is a result", 0, false},
		{"a not-for-profit is a body", 0, false},
		{"nothing is never lost", 2, false},
		{"light is a wave", 0, false},
		{"knot theory is a field", 0, false},
		{"light can't escape", 1, false},
		{"it needn't be a wave", 1, false},
		{"a cannot is not a word", 2, false},
		{"scannot is a word", 0, false},
		{"it's a wave", 0, false},
	}
	for _, c := range cases {
		if got := readWords(c.low).neg; got.count != c.count || got.leadingNo != c.leadingNo {
			t.Errorf("readWords(%q).neg = %+v, want count %d leadingNo %v", c.low, got, c.count, c.leadingNo)
		}
	}
}

func TestJoinCompounds(t *testing.T) {
	cases := map[string]string{
		"glass belongs to optics":             "glass belongs_to optics",
		"fire is caused by heat":              "fire is_caused_by heat",
		"this is caused by heat":              "this is_caused_by heat",
		"thisis caused by heat":               "thisis caused by heat",
		"x has steps: a, b":                   "x has_steps  a, b",
		"x has stepsize y":                    "x has stepsize y",
		"glass_belongs to optics":             "glass_belongs to optics",
		"red contrasts with green":            "red contrasts_with green",
		"a is defined as b; c is verified as": "a is_defined_as b; c is_verified_as",
		"λόγος belongs to ἀλήθεια":            "λόγος belongs_to ἀλήθεια",
		"xbelongs to y":                       "xbelongs to y",
		"éis caused by y":                     "éis caused by y",
	}
	for in, want := range cases {
		if got := readWords(in).joined; got != want {
			t.Errorf("readWords(%q).joined = %q, want %q", in, got, want)
		}
	}
}

// TestLowerMatchesPython: the ASCII fast path agrees with relparse.Lower.
func TestLowerMatchesPython(t *testing.T) {
	for _, s := range []string{"", "abc", "Light IS a Wave.", "@[`{", "ΛΌΓΟΣ IS ΣΟΦΊΑ", "İnk", "\u212Aelvin", "MIXED café"} {
		if got, want := lower(s), relparse.Lower(s); got != want {
			t.Errorf("lower(%q) = %q, want %q", s, got, want)
		}
	}
}

// TestRelationWordDetection: readWords reports a relation word exactly
// when the parser could use one, so skipping the parser loses nothing.
func TestRelationWordDetection(t *testing.T) {
	cases := map[string]bool{
		"light is a wave":         true,
		"students often find it":  false,
		"this island":             false,
		"x belongs to y":          true,
		"x belongs_to y":          true,
		"light has_steps":         true,
		"a causes b":              true,
		"a caused b":              false,
		"a-is-b":                  true,
		"éis":                     false,
		"is":                      true,
		"":                        false,
		"λόγος reveals ἀλήθεια":   true,
		"it grounds and recalls!": true,
	}
	for in, want := range cases {
		if got := readWords(in).hasRelation; got != want {
			t.Errorf("readWords(%q).hasRelation = %v, want %v", in, got, want)
		}
		if _, parsed := relparse.Parse(in); parsed && !want {
			t.Errorf("%q parses although no relation word was found", in)
		}
	}
}

// TestASCIIWordAgrees: the inlined ASCII test is the parser's word test.
func TestASCIIWordAgrees(t *testing.T) {
	for c := 0; c < 0x80; c++ {
		if isASCIIWord(byte(c)) != relparse.IsWordRune(rune(c)) {
			t.Errorf("isASCIIWord(%q) disagrees with relparse.IsWordRune", rune(c))
		}
	}
}
