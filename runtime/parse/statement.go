package parse

// match is one way to read a statement.
type match struct {
	f         form
	pos       int
	head      string
	tail      string
	negated   bool
	grounding int
}

// better orders readings as the package comment says.
func (m match) better(o match) bool {
	switch {
	case m.grounding != o.grounding:
		return m.grounding > o.grounding
	case m.f.exact != o.f.exact:
		return m.f.exact
	case m.f.words != o.f.words:
		return m.f.words > o.f.words
	case m.pos != o.pos:
		return m.pos < o.pos
	}
	return m.f.relation < o.f.relation
}

// statement finds the best "head relation tail" reading of t.
func (g *Grammar) statement(t []string) (Utterance, bool) {
	var best *match
	for p := 1; p < len(t)-1; p++ {
		for _, m := range g.matchesAt(t, p) {
			if best == nil || m.better(*best) {
				m := m
				best = &m
			}
		}
	}
	if best == nil {
		return Utterance{}, false
	}
	return Utterance{Intent: Statement, Subject: best.head, Relation: best.f.relation, Object: best.tail, Negated: best.negated}, true
}

// matchesAt lists readings with the relation starting at p, including the
// negated shapes "does not R", "R-first-word not rest" and "not R".
func (g *Grammar) matchesAt(t []string, p int) []match {
	var out []match
	var buf [64]byte // the form keys are written here and looked up without being allocated
	for n := 1; n <= g.maxLen && p+n <= len(t); n++ {
		words := t[p : p+n]
		key := appendJoined(buf[:0], words[0], words[1:])
		g.collect(&out, t, p, p+n, g.forms[string(key)], false)
		if n >= 2 && words[1] == "not" {
			key = appendJoined(buf[:0], words[0], words[2:])
			g.collect(&out, t, p, p+n, g.forms[string(key)], true)
		}
	}
	return out
}

// appendJoined appends strings.Join(append([]string{first}, rest...), " ")
// to b.
func appendJoined(b []byte, first string, rest []string) []byte {
	b = append(b, first...)
	for _, w := range rest {
		b = append(append(b, ' '), w...)
	}
	return b
}

// collect adds a reading for each form fs, the forms of the words at
// [start, end). The subject and object phrases are the same for every form,
// so they are read once.
func (g *Grammar) collect(out *[]match, t []string, start, end int, fs []form, negated bool) {
	if len(fs) == 0 {
		return
	}
	head, neg := t[:start], negated
	if k := len(head); k >= 2 && head[k-1] == "not" && isAux(head[k-2]) {
		head, neg = head[:k-2], true
	} else if k >= 1 && head[k-1] == "not" {
		head, neg = head[:k-1], true
	}
	h, tl := phrase(head), phrase(t[end:])
	if h == "" || tl == "" || h == "not" {
		return
	}
	grounding := 0
	if g.terms != nil {
		if g.terms.HasTerm(h) {
			grounding++
		}
		if g.terms.HasTerm(tl) {
			grounding++
		}
	}
	for _, f := range fs {
		*out = append(*out, match{f: f, pos: start, head: h, tail: tl, negated: neg, grounding: grounding})
	}
}

func isAux(w string) bool { return w == "does" || w == "do" || w == "did" }
