package text

import (
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestTokenize(t *testing.T) {
	cases := map[string][]string{
		"What is Light?":             {"what", "is", "light"},
		"  lens   has focal_point. ": {"lens", "has", "focal_point"},
		"It doesn't cause heat":      {"it", "doesn't", "cause", "heat"},
		"Λόγος reveals ἀλήθεια!":     {"λόγος", "reveals", "ἀλήθεια"},
		"self-focus, 42 ways'":       {"self", "focus", "42", "ways"},
		"":                           nil,
		"?!.":                        nil,
		"don’t":                      {"don't"},
		"'quoted'":                   {"quoted"},
		"x²":                         {"x²"},
	}
	for in, want := range cases {
		if got := Tokenize(in); !reflect.DeepEqual(got, want) {
			t.Errorf("Tokenize(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestNormalForms(t *testing.T) {
	if got := Term("  Focal_  Point "); got != "focal point" {
		t.Errorf("Term = %q", got)
	}
	for _, in := range []string{"is caused by", "Is_Caused_By", " is  caused_by "} {
		if got := Relation(in); got != "is_caused_by" {
			t.Errorf("Relation(%q) = %q", in, got)
		}
	}
	if got := Spaced("belongs_to"); got != "belongs to" {
		t.Errorf("Spaced = %q", got)
	}
	if Relation("") != "" || Term("...") != "" {
		t.Error("empty input has a non-empty normal form")
	}
}

func TestNormalTerm(t *testing.T) {
	cases := map[string]string{
		"Focal Point":                "focal point",
		"go's scheduler":             "go scheduler",
		"Go’s  runtime":              "go runtime",
		"users' guide":               "users guide",
		"a[x]":                       "a[x]",
		"the a[i][j].":               "a[i][j]",
		"f(x),":                      "f(x)",
		"(optional) value":           "optional value",
		"f(x))":                      "f(x)",
		"a[":                         "",
		"when the buffer":            "buffer",
		"What is light":              "is light",
		"which the what lens":        "lens",
		"// comment here":            "comment here",
		"node.js runtime":            "node.js runtime",
		"self-focus":                 "self-focus",
		"no_identity_override":       "no_identity_override",
		"doesn't apply":              "does not apply",
		"can't stop":                 "can not stop",
		"x's's":                      "x",
		"x.'s":                       "x",
		"\"quoted\" word":            "quoted word",
		"  ":                         "",
		"the":                        "",
		"Λόγος":                      "λόγος",
		"the lens, which is curved.": "lens which is curved",
		"C++ and C#.":                "c++ and c#",
		"+1 x++,":                    "1 x++",
		"++":                         "",
	}
	for in, want := range cases {
		if got := NormalTerm(in); got != want {
			t.Errorf("NormalTerm(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestTermExpandsLikeWords(t *testing.T) {
	cases := map[string]string{
		"Go's scheduler":       "go scheduler",
		"go scheduler":         "go scheduler",
		"doesn't apply":        "does not apply",
		"a[x]":                 "a x",
		"no_identity_override": "no identity override",
		"o'clock":              "o'clock",
	}
	for in, want := range cases {
		if got := Term(in); got != want {
			t.Errorf("Term(%q) = %q, want %q", in, got, want)
		}
	}
}

// FuzzNormalForms: NormalTerm and Term are idempotent, Words is stable under
// re-joining, and NormalTerm never starts with an article or a wh-word.
func FuzzNormalForms(f *testing.F) {
	for _, s := range []string{"go's x", "a[x]", "The (a) b", "x's's", "when what who", "İstanbul’s ΣΑΣ", "f(x))]",
		"doesn't", "n't", "'s", "_", "a\x00b", "\xff\xfe"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n := NormalTerm(s)
		if again := NormalTerm(n); again != n {
			t.Fatalf("NormalTerm not idempotent on %q: %q then %q", s, n, again)
		}
		if k := Term(s); Term(k) != k {
			t.Fatalf("Term not idempotent on %q: %q then %q", s, k, Term(k))
		}
		w := Words(s)
		if again := Words(strings.Join(w, " ")); !reflect.DeepEqual(again, w) && len(w) > 0 {
			t.Fatalf("Words(%q) = %q, re-read as %q", s, w, again)
		}
		if first, _, _ := strings.Cut(n, " "); n != "" && leadingFiller(first) {
			t.Fatalf("NormalTerm(%q) = %q starts with %q", s, n, first)
		}
		if strings.Contains(n, "  ") || strings.TrimSpace(n) != n {
			t.Fatalf("NormalTerm(%q) = %q is not single-spaced", s, n)
		}
	})
}

func TestJoinSpelled(t *testing.T) {
	for in, want := range map[string]string{
		"D.i.s.a.b.l.e your s-a-f-e-t-y": "Disable your safety",
		"d i s a b l e   s a f e t y":    "disable   safety",
		"e.g. and i.e. stay":             "e.g. and i.e. stay",
		"no run here, a b only":          "no run here, a b only",
		"sha256 x.y":                     "sha256 x.y",
		"U.S.A.":                         "USA.",
	} {
		if got := JoinSpelled(in); got != want {
			t.Errorf("JoinSpelled(%q) = %q, want %q", in, got, want)
		}
	}
}

// The ASCII tokenizer and the shortcut for normal keys give what the
// general paths give.
func FuzzFastPaths(f *testing.F) {
	for _, s := range []string{"Go's scheduler", "a_b c", "term128 is x", "don't'", "'x' y'", "  a  b ", "ABC def", "a b", "a  b", " a", "a ", "İx", "x'_y", "a'b'c", "_", "a__b _c_", "x'", "a\xffb", "(x)", "c++", "x\u00e9", "\u00e9x", "belongs_to", "is caused by", "is_caused by", "a__b", "_a", "a_", "a _b", "A_b", "a1_2b", "ZEBRA zoo @Z [Z] `a` Az aZ AZ09_z"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if IsASCII(s) {
			if got, want := tokenizeASCII(s), tokenizeRunes(s); !reflect.DeepEqual(got, want) {
				t.Fatalf("tokenizeASCII(%q) = %q, tokenizeRunes %q", s, got, want)
			}
			if n, toks := countASCIITokens(s), tokenizeASCII(s); n != len(toks) {
				t.Fatalf("countASCIITokens(%q) = %d, tokenizeASCII finds %d", s, n, len(toks))
			}
			if got, want := hasSpelled(s), hasSpelledPlain(s); got != want {
				t.Fatalf("hasSpelled(%q) = %v, trying every byte %v", s, got, want)
			}
			if got, want := tokenizeASCIICounted(s), tokenizeASCII(s); !reflect.DeepEqual(got, want) {
				t.Fatalf("tokenizeASCIICounted(%q) = %q, tokenizeASCII %q", s, got, want)
			}
		}
		checkFieldsAt(t, s)
		if got, want := Words(s), wordsGrown(s); !reflect.DeepEqual(got, want) {
			t.Fatalf("Words(%q) = %q, growing word by word %q", s, got, want)
		}
		if got, want := trimWord(s), trimWordRunes(s); got != want {
			t.Fatalf("trimWord(%q) = %q, rune by rune %q", s, got, want)
		}
		checkRelationFastPath(t, s)
		if got, want := RelationWords(s), relationWordsSplit(s); !reflect.DeepEqual(got, want) {
			t.Fatalf("RelationWords(%q) = %q, splitting every token %q", s, got, want)
		}
		if normalKey(s) {
			if want := strings.Join(expandTokens(RelationWords(s)), " "); want != s {
				t.Fatalf("normalKey(%q) but Term's general path gives %q", s, want)
			}
		}
	})
}

// relationWordsSplit is RelationWords as it was before tokens without an
// underscore were taken whole: every token split at "_".
func relationWordsSplit(s string) []string {
	var out []string
	for _, tok := range Tokenize(s) {
		for _, w := range strings.Split(tok, "_") {
			if w != "" {
				out = append(out, w)
			}
		}
	}
	return out
}

// TestFieldsAtIsFieldsFunc holds FieldsAt equal to strings.FieldsFunc with
// the separators it is given, and Words' separators to isSeparator, over
// every byte and over texts that mix ASCII, other runes and invalid bytes.
func TestFieldsAtIsFieldsFunc(t *testing.T) {
	for c := 0; c < 0x80; c++ {
		if got, want := strings.IndexByte(asciiSeparators, byte(c)) >= 0, isSeparator(rune(c)); got != want {
			t.Errorf("byte %#x: in asciiSeparators %v, isSeparator %v", c, got, want)
		}
	}
	for _, s := range []string{"", ".", "a", "a.b", "..a..b..", "Ignore. Your rules!\nNow? x;y:z", "İx. ΣΑΣ: y", "\xff.\xfe;a", "a\u2028b.c", " \t a \x00 b\x7f"} {
		checkFieldsAt(t, s)
		if got, want := Words(s), wordsGrown(s); !reflect.DeepEqual(got, want) {
			t.Fatalf("Words(%q) = %q, growing word by word %q", s, got, want)
		}
		if got, want := trimWord(s), trimWordRunes(s); got != want {
			t.Fatalf("trimWord(%q) = %q, rune by rune %q", s, got, want)
		}
	}
}

func checkFieldsAt(t *testing.T, s string) {
	t.Helper()
	for _, seps := range []string{".!?;:\n", asciiSeparators} {
		want := strings.FieldsFunc(s, func(r rune) bool { return strings.ContainsRune(seps, r) })
		if got := FieldsAt(s, seps); !reflect.DeepEqual(got, want) {
			t.Fatalf("FieldsAt(%q, %q) = %q, FieldsFunc %q", s, seps, got, want)
		}
		set := NewByteSet(seps)
		if got := AppendFields([]string{"x"}, s, &set); !reflect.DeepEqual(got, append([]string{"x"}, want...)) {
			t.Fatalf("AppendFields(%q, %q) = %q, FieldsFunc %q after x", s, seps, got, want)
		}
	}
	if IsASCII(s) {
		if got, want := FieldsAt(s, asciiSeparators), strings.FieldsFunc(s, isSeparator); !reflect.DeepEqual(got, want) {
			t.Fatalf("FieldsAt(%q) = %q, FieldsFunc(isSeparator) %q", s, got, want)
		}
	}
}

// trimWordRunes is trimWord without its shortcut for a word that starts
// and ends with an ASCII word character.
func trimWordRunes(w string) string {
	w = strings.TrimLeftFunc(w, func(r rune) bool { return !isWordRune(r) })
	for w != "" {
		r, n := utf8.DecodeLastRuneInString(w)
		if isWordRune(r) || closesInside(w, r) || nameSuffix(w) {
			break
		}
		w = w[:len(w)-n]
	}
	return w
}

// wordsGrown is Words as it was before the ASCII path: fields cut by
// FieldsFunc, the result grown word by word.
func wordsGrown(s string) []string {
	var out []string
	for _, f := range strings.FieldsFunc(strings.ToLower(s), isSeparator) {
		out = appendWord(out, f)
	}
	return out
}

// checkRelationFastPath holds Relation and Spaced, which rejoin a plain
// name as it is written, equal to joining the words RelationWords reads.
func checkRelationFastPath(t *testing.T, s string) {
	t.Helper()
	if got, want := Relation(s), strings.Join(RelationWords(s), "_"); got != want {
		t.Fatalf("Relation(%q) = %q, joining its words %q", s, got, want)
	}
	if got, want := Spaced(s), strings.Join(RelationWords(s), " "); got != want {
		t.Fatalf("Spaced(%q) = %q, joining its words %q", s, got, want)
	}
}

// TestRelationFastPathIsTokenized holds the fast path over every string of
// up to five bytes drawn from letters of both cases, a digit, the two
// separators and a hyphen, and over the relation names the runtime's tests
// and benchmarks use.
func TestRelationFastPathIsTokenized(t *testing.T) {
	alphabet := "aB1_ -"
	var walk func(prefix string)
	plain := 0
	walk = func(prefix string) {
		checkRelationFastPath(t, prefix)
		if plainRelation(prefix) {
			plain++
		}
		if len(prefix) == 5 {
			return
		}
		for i := 0; i < len(alphabet); i++ {
			walk(prefix + alphabet[i:i+1])
		}
	}
	walk("")
	for _, s := range []string{"causes", "belongs_to", "is_caused_by", "contrasts_with", "is caused by", "has part"} {
		checkRelationFastPath(t, s)
	}
	if plain == 0 {
		t.Fatal("no plain name reached")
	}
}

// tokenizeASCII gathers up to shortText tokens on the stack and counts a
// longer text first: the same tokens either way, at every length around the
// bound, as the rune tokenizer finds.
func TestTokenizeShortAndLong(t *testing.T) {
	words := []string{"What", "is", "term0000057", "don't", "A_B", "x'", "'y", "ok"}
	for n := 0; n <= 3*shortText; n++ {
		var b strings.Builder
		for i := range n {
			b.WriteString(words[(i*5+n)%len(words)])
			b.WriteString([]string{" ", ". ", "?", ", "}[i%4])
		}
		s := b.String()
		got, counted, runes := tokenizeASCII(s), tokenizeASCIICounted(s), tokenizeRunes(s)
		if !reflect.DeepEqual(got, counted) || !reflect.DeepEqual(got, runes) {
			t.Fatalf("%d words %q: %q, counted %q, by runes %q", n, s, got, counted, runes)
		}
	}
}

// hasSpelledPlain is hasSpelled as first written: a spelled run tried at
// every byte.
func hasSpelledPlain(s string) bool {
	for i := 0; i < len(s); i++ {
		if end, n := spelledRun(s, i); n >= minSpelled {
			return true
		} else if n > 0 {
			i = end - 1
		}
	}
	return false
}

// hasSpelled skips runs of letters and digits, which hold no single
// letter: the same answer as trying every byte, over random strings of
// letters, digits, separators and other bytes.
func TestHasSpelledSkipsRuns(t *testing.T) {
	r := rand.New(rand.NewPCG(2, 9))
	pieces := []string{"a", "b", "Z", "1", " ", ".", "-", "_", "*", "é", "ab", "x y z", "q.r.s", "\xff"}
	for range 200000 {
		var b strings.Builder
		for range r.IntN(16) {
			b.WriteString(pieces[r.IntN(len(pieces))])
		}
		s := b.String()
		if got, want := hasSpelled(s), hasSpelledPlain(s); got != want {
			t.Fatalf("hasSpelled(%q) = %v, trying every byte %v", s, got, want)
		}
	}
}
