package parse

import (
	"strings"

	"formation/runtime/text"
)

// isWhWord: wh-words open questions; one that matches no question form is
// Unknown rather than being read as a statement.
func isWhWord(w string) bool {
	switch w {
	case "what", "who", "which", "where", "when", "why", "how":
		return true
	}
	return false
}

// markers are dropped from the start, at most once (the original's list).
func markers() [][]string {
	return [][]string{{"actually"}, {"no"}, {"indeed"}, {"really"}, {"in", "fact"}, {"rather"}, {"instead"}}
}

// irregular expands contractions the suffix rules get wrong.
func irregular(t string) ([]string, bool) {
	switch t {
	case "can't":
		return []string{"can", "not"}, true
	case "won't":
		return []string{"will", "not"}, true
	case "what's":
		return []string{"what", "is"}, true
	case "who's":
		return []string{"who", "is"}, true
	case "it's":
		return []string{"it", "is"}, true
	case "that's":
		return []string{"that", "is"}, true
	case "let's":
		return []string{"let", "us"}, true
	}
	return nil, false
}

// Parse reads one utterance. Tokens (what the field embeds) are the
// tokenizer's; the reading itself runs on the utterance's words
// (text.Words), so that a name such as "a[x]" or "node.js" stays one word
// and a subject or object comes out in text.NormalTerm's form, the form the
// forge validates terms in.
func (g *Grammar) Parse(input string) Utterance { return g.ParseTokens(input, text.Tokenize(input)) }

// ParseTokens is Parse with the input's tokens, text.Tokenize(input), from
// a caller that has them already (the runtime's other readers of a turn
// tokenize it too). It does not modify them.
func (g *Grammar) ParseTokens(input string, tokens []string) Utterance {
	toks := expand(tokens)
	if len(toks) == 0 {
		return Utterance{Intent: Empty, Tokens: toks}
	}
	u := g.read(input)
	u.Tokens = toks
	return u
}

// read is Parse without the tokens: the reading of an input that holds at
// least one word character.
func (g *Grammar) read(input string) Utterance {
	u := Utterance{Intent: Unknown, Question: strings.HasSuffix(strings.TrimSpace(input), "?")}
	words := text.Words(input)
	if len(words) == 0 {
		return u
	}
	body := dropMarker(words)
	if r, ok := g.question(body); ok {
		r.Question = true
		return r
	}
	if isWhWord(body[0]) {
		return u
	}
	if r, ok := g.statement(body); ok {
		r.Question = u.Question
		return r
	}
	return u
}

// expand splits underscore-joined tokens and expands contractions: the
// tokens the field embeds.
func expand(toks []string) []string {
	out := make([]string, 0, len(toks))
	for _, t := range toks {
		switch c, ok := irregular(t); {
		case strings.Contains(t, "_"):
			out = append(out, text.RelationWords(t)...)
		case ok:
			out = append(out, c...)
		case strings.HasSuffix(t, "n't") && len(t) > 3:
			out = append(out, strings.TrimSuffix(t, "n't"), "not")
		case strings.HasSuffix(t, "'s") && len(t) > 2:
			out = append(out, strings.TrimSuffix(t, "'s"))
		default:
			out = append(out, t)
		}
	}
	return out
}

func dropMarker(toks []string) []string {
	for _, m := range markers() {
		if len(toks) > len(m) && equal(toks[:len(m)], m) {
			return toks[len(m):]
		}
	}
	return toks
}

func equal(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// phrase is a subject or object: the words in text.NormalTerm's form.
func phrase(words []string) string { return text.NormalTerm(strings.Join(words, " ")) }

// question reads the definition and walk forms.
func (g *Grammar) question(t []string) (Utterance, bool) {
	switch {
	case len(t) > 2 && t[0] == "what" && (t[1] == "does" || t[1] == "do" || t[1] == "did" || t[1] == "can" || t[1] == "will"):
		if u, ok := g.walk(t[2:], g.forms); ok {
			return u, true
		}
		if t[len(t)-1] == "mean" && len(t) > 3 {
			return definition(t[2 : len(t)-1])
		}
	case len(t) > 2 && t[0] == "what" && (t[1] == "is" || t[1] == "are" || t[1] == "was"):
		if u, ok := g.walk(t[2:], g.passive); ok {
			return u, true
		}
		return definition(t[2:])
	case len(t) > 2 && t[0] == "who" && (t[1] == "is" || t[1] == "are"):
		return definition(t[2:])
	case len(t) > 3 && t[0] == "tell" && t[1] == "me" && t[2] == "about":
		return definition(t[3:])
	case len(t) > 1 && (t[0] == "define" || t[0] == "describe" || t[0] == "explain"):
		return definition(t[1:])
	case len(t) > 3 && (t[0] == "does" || t[0] == "do" || t[0] == "did"):
		return g.statement(t[1:])
	}
	return Utterance{}, false
}

func definition(rest []string) (Utterance, bool) {
	s := phrase(rest)
	if s == "" {
		return Utterance{}, false
	}
	return Utterance{Intent: Definition, Subject: s}, true
}

// walk reads "<subject> <relation>" with the relation as the longest known
// suffix.
func (g *Grammar) walk(rest []string, forms map[string][]form) (Utterance, bool) {
	var buf [64]byte // the form keys are written here and looked up without being allocated
	for k := min(g.maxLen, len(rest)-1); k >= 1; k-- {
		words := rest[len(rest)-k:]
		fs := forms[string(appendJoined(buf[:0], words[0], words[1:]))]
		if len(fs) == 0 {
			continue // no form: the subject before it is not read
		}
		subject := phrase(rest[:len(rest)-k])
		if subject == "" {
			continue
		}
		best := fs[0]
		for _, f := range fs[1:] {
			if f.exact && !best.exact || f.exact == best.exact && f.relation < best.relation {
				best = f
			}
		}
		return Utterance{Intent: Walk, Subject: subject, Relation: best.relation}, true
	}
	return Utterance{}, false
}
