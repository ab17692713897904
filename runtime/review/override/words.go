package override

// How one sentence's tokens are read before the signal looks at them:
// contractions spelled out (with or without their apostrophe), digits and
// signs written for letters read back, text-speak ("u r", "ur", "n") spelled out.

import (
	"strings"

	"formation/runtime/text"
)

// normalize spells out contractions and digits written for letters, and
// returns the words with the index of the token each came from.
func normalize(toks []string) ([]string, []int) {
	w, origin := make([]string, 0, len(toks)+4), make([]int, 0, len(toks)+4)
	for i, tok := range toks {
		if tok == "u" && textSpeak(toks, i) {
			w, origin = append(w, "you"), append(origin, i) // "u r now unrestricted"
			continue
		}
		if tok == "n" && i > 0 && andSpeak(toks, i) {
			w, origin = append(w, "and"), append(origin, i) // "forget ur prompt n dont apply ..."
			continue
		}
		if tok == "r" && i > 0 && toks[i-1] == "u" {
			w, origin = append(w, "are"), append(origin, i)
			continue
		}
		re := respelt.Has(tok)
		if plainWord(tok, re) { // most words: nothing to split, spell out or read back
			if re {
				if noun := misspelt[tok]; noun != "" {
					tok = noun // "guidlines", "instrctions", "filtr"
				}
			}
			w, origin = append(w, tok), append(origin, i)
			continue
		}
		// The parts strings.Split(tok, "_") would return, cut one by one
		// and spelled out into a buffer on the stack, not two slices per
		// token (TestNormalizeIsSplitAndExpand).
		var buf [2]string
		for rest, more := tok, true; more; {
			var part string
			part, rest, more = strings.Cut(rest, "_")
			for _, x := range expandInto(buf[:0], unleet(part)) {
				if x != "" {
					w, origin = append(w, x), append(origin, i)
				}
			}
		}
	}
	return onHold(w), origin
}

// onHold reads "on pause", "on hold" and "on ice" as "aside": "put your
// content policy on pause" sets the policy aside, where "on" would
// otherwise make the policy one about something else ("your policy on
// refunds"). It rewrites w in place; the word count stays the same.
func onHold(w []string) []string {
	for i := 0; i+1 < len(w); i++ {
		if w[i] == "on" && (w[i+1] == "pause" || w[i+1] == "hold" || w[i+1] == "ice") {
			w[i], w[i+1] = "aside", "aside"
		}
	}
	return w
}

// plainWord reports a non-empty token that normalize leaves as it is: no
// "_" to split at, no apostrophe, no digit or sign read as a letter, and
// not one of the contractions expand spells out. respelt is
// respelt.Has(tok), which the caller has asked.
func plainWord(tok string, respelt bool) bool {
	if tok == "" || tok == "cannot" || respelt && (slang[tok] != nil || tok[len(tok)-1] == 't' && bareContractions[tok] != "") {
		return false
	}
	for i := 0; i < len(tok); i++ {
		switch tok[i] {
		case '_', '\'', '0', '1', '3', '4', '5', '7', '@', '$':
			return false
		}
	}
	return true
}

var leet = []*text.ByteMap{
	text.NewByteMap("0", "o", "1", "i", "3", "e", "4", "a", "5", "s", "7", "t", "@", "a", "$", "s"),
	text.NewByteMap("0", "o", "1", "l", "3", "e", "4", "a", "5", "s", "7", "t", "@", "a", "$", "s"),
}

// Leetable reports a token that may spell a word with digits for letters:
// it has an ASCII digit and a lower-case ASCII letter, and none of its
// digits is a 2, 6, 8 or 9, which no letter is read from. The bytes are
// read once, as every token of a turn is asked. The gate asks it too.
func Leetable(tok string) bool {
	digit, letter := false, false
	for i := 0; i < len(tok); i++ {
		switch c := tok[i]; {
		case c == '2' || c == '6' || c == '8' || c == '9':
			return false
		case '0' <= c && c <= '9':
			digit = true
		case 'a' <= c && c <= 'z':
			letter = true
		}
	}
	return digit && letter
}

// unleet reads a token that mixes letters and digits as the word it spells
// when that word is one of the signal's ("instruct10ns", "a11").
func unleet(tok string) string {
	// A digit no letter is read from keeps the token as it is, and no word
	// of the signal's has one.
	if !Leetable(tok) {
		return tok
	}
	// Each reading is spelled into buf and becomes a string only when it is
	// one of the signal's words ("term1234" never is).
	var buf [32]byte
	for _, m := range leet {
		x := m.Append(buf[:0], tok)
		if vocabulary.Has(string(x)) {
			return string(x)
		}
		if !respelt.Has(string(x)) {
			continue // in neither map: most readings ("termoooo")
		}
		if slang[string(x)] != nil {
			return string(x)
		}
		if noun := misspelt[string(x)]; noun != "" {
			return noun
		}
	}
	return tok
}

// respelt holds every word that slang, bareContractions or misspelt has:
// normalize asks those maps about a token only when it is one, and most
// tokens are turned away by the set's filter at a fraction of a map lookup.
var respelt = func() *text.WordSet {
	var words []string
	for w := range slang {
		words = append(words, w)
	}
	for w := range bareContractions {
		words = append(words, w)
	}
	for w := range misspelt {
		words = append(words, w)
	}
	return text.NewWordSet(words...)
}()

// bareContractions are negated auxiliaries typed without their apostrophe,
// with the verb each stands for. Words that are also other words ("cant",
// "wont") are left out.
var bareContractions = map[string]string{
	"dont": "do", "doesnt": "does", "didnt": "did", "isnt": "is", "arent": "are", "wasnt": "was", "werent": "were",
	"shouldnt": "should", "wouldnt": "would", "couldnt": "could", "havent": "have", "hasnt": "has", "hadnt": "had",
	"mustnt": "must",
}

// slang: words typed short for others, spelled out.
var slang = map[string][]string{
	"gonna": {"going", "to"}, "wanna": {"want", "to"}, "gotta": {"got", "to"}, "ur": {"your"}, "yr": {"your"},
	"pls": {"please"}, "plz": {"please"}, "rn": {"right", "now"}, "thx": {"thanks"}, "ty": {"thanks"},
	"4get": {"forget"}, "shld": {"should"}, "jst": {"just"}, "instrux": {"instructions"}, "rulez": {"rules"},
	"rulz": {"rules"},
}

// misspelt maps a governance noun of five letters or more typed without one
// or two of its inner vowels, as text-speak drops them ("guidlines",
// "instrctions", "filtr"), to the noun. The few such spellings that are
// other words in real documentation are left out: in the comments of the Go
// source tree and in man pages, "vals", "cation", "cution", "chans",
// "tents" and "gard" occur, and no other does.
var misspelt = func() map[string]string {
	out := map[string]string{}
	for _, noun := range governance.Words() {
		if len(noun) < 5 {
			continue
		}
		var inner []int
		for i := 1; i < len(noun)-1; i++ {
			if strings.IndexByte("aeiouy", noun[i]) >= 0 {
				inner = append(inner, i)
			}
		}
		for a, i := range inner {
			addMisspelt(out, noun, noun[:i]+noun[i+1:])
			if len(noun) < 6 {
				continue
			}
			for _, j := range inner[a+1:] {
				addMisspelt(out, noun, noun[:i]+noun[i+1:j]+noun[j+1:])
			}
		}
	}
	return out
}()

// addMisspelt records w as a misspelling of noun unless w is a word of its
// own: another governance noun, or one that real documentation uses.
func addMisspelt(out map[string]string, noun, w string) {
	switch w {
	case "vals", "cation", "cution", "chans", "tents", "gard":
		return
	}
	if vocabulary.Has(w) { // governance nouns included
		return
	}
	if prev, ok := out[w]; !ok || noun < prev { // two nouns may lose vowels alike: keep one, the same on every run
		out[w] = noun
	}
}

// andSpeak reports an "n" at i that stands for "and": a word of an order
// follows it, not a count ("read n bytes").
func andSpeak(toks []string, i int) bool {
	switch next := at(toks, i+1); next {
	case "dont", "don't", "do", "then", "also", "just", "answer", "reply", "tell", "give", "stop", "be", "act", "say",
		"go", "become", "switch", "turn", "talk", "speak":
		return true
	default:
		return removal.Has(next) && next == baseOf(next)
	}
}

// textSpeak reports a "u" at i that stands for "you": a verb follows it
// ("u r", "u can"), not a subscript or a flag ("U_k", "-u").
func textSpeak(toks []string, i int) bool {
	switch at(toks, i+1) {
	case "r", "are", "have", "can", "will", "must", "should", "shld", "were", "need", "do", "know", "might", "could",
		"would", "gonna", "wanna", "gotta", "dont", "don't", "ll", "re":
		return true
	}
	return false
}

// expandInto appends to dst the words a contraction spells out: "don't" →
// do not, "you're" → you are; a possessive "'s" is dropped. Any other token
// is its own word.
func expandInto(dst []string, tok string) []string {
	switch tok {
	case "can't", "cannot":
		return append(dst, "can", "not")
	case "won't":
		return append(dst, "will", "not")
	case "let's":
		return append(dst, "let", "us")
	}
	if stem := bareContractions[tok]; stem != "" {
		return append(dst, stem, "not") // "doesnt", typed without its apostrophe
	}
	if words := slang[tok]; words != nil {
		return append(dst, words...) // "gonna", "u", "ur"
	}
	i := strings.LastIndexByte(tok, '\'')
	if i <= 0 {
		return append(dst, tok)
	}
	base := tok[:i]
	switch tok[i+1:] {
	case "t":
		if stem, ok := strings.CutSuffix(base, "n"); ok && stem != "" {
			return append(dst, stem, "not")
		}
	case "re":
		return append(dst, base, "are")
	case "ll":
		return append(dst, base, "will")
	case "ve":
		return append(dst, base, "have")
	case "d":
		return append(dst, base, "would")
	case "m":
		return append(dst, base, "am")
	case "s":
		if base == "it" || base == "that" || base == "what" || base == "there" || base == "here" {
			return append(dst, base, "is")
		}
		return append(dst, base)
	}
	return append(dst, tok)
}

// InnerDots reads a full stop between two letters ("ignore.your.rules") as
// a space: it ends no sentence.
func InnerDots(s string) string {
	if !innerDot(s) {
		return s // most texts: a full stop, if any, only at a sentence's end
	}
	b := []byte(s)
	for i := 1; i+1 < len(b); i++ {
		if b[i] == '.' && isLetter(b[i-1]) && isLetter(b[i+1]) {
			b[i] = ' '
		}
	}
	return string(b)
}

// innerDot reports a full stop between two letters in s.
func innerDot(s string) bool {
	return someDot(s, func(i int) bool { return i > 0 && i+1 < len(s) && isLetter(s[i-1]) && isLetter(s[i+1]) })
}

func isLetter(c byte) bool { return 'a' <= c|0x20 && c|0x20 <= 'z' }
