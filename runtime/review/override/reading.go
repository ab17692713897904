package override

import (
	"slices"

	"formation/runtime/text"
)

// scanStep is one sentence a Scanner read through a Lean: the scanner's
// state before it, the tokens, what Next reported and the state after.
type scanStep struct {
	before, after Scanner
	toks          []string
	f             Finding
	ok            bool
}

// Next is sc.Next(toks) for the k-th sentence a reader of text s reads,
// shared through l with the text's other readers. Next is a pure function
// of the scanner's state and the tokens, so when an earlier reader of s
// read the same tokens as its k-th sentence from the same state, its
// finding and the state it left are taken instead of scanning again (the
// review gate reads a turn clause by clause, and the identity check and
// the gate's weak reading read the same sentences again). Otherwise the
// sentence is scanned, and kept when it extends the record. A nil *Lean
// scans every time. The tokens are kept, not copied: a reader must not
// modify them after.
func (l *Lean) Next(s string, sc *Scanner, k int, toks []string) (Finding, bool) {
	if *sc == (Scanner{}) && l.markedQuiet(toks) || sc.quiet(toks) {
		return Finding{}, false // what Next says of it, without a record
	}
	if l == nil {
		return sc.next(toks)
	}
	if l.scanned != s {
		l.scanned, l.steps = s, l.steps[:0]
	}
	if k < len(l.steps) {
		if st := &l.steps[k]; st.before == *sc && slices.Equal(st.toks, toks) {
			*sc = st.after
			l.reread++
			return st.f, st.ok
		}
	}
	before := *sc
	f, ok := sc.next(toks)
	if k == len(l.steps) {
		l.steps = append(l.steps, scanStep{before: before, after: *sc, toks: toks, f: f, ok: ok})
	}
	return f, ok
}

// Reread is how many sentences Next took from the record instead of
// scanning them again.
func (l *Lean) Reread() int { return l.reread }

// Spelled is text.JoinSpelled(Fold(s)), remembered for the last s: the
// gate, the word scorer and the identity check each start their reading of
// a turn from it. A nil *Lean computes it every time.
func (l *Lean) Spelled(s string) string {
	if l == nil {
		return text.JoinSpelled(Fold(s))
	}
	if !l.spelledDone || l.spelledIn != s {
		l.spelledIn, l.spelledOut, l.spelledDone = s, text.JoinSpelled(Fold(s)), true
	}
	return l.spelledOut
}

// Tokens is text.Tokenize(s), remembered for the last two texts: the parser
// reads a turn's input and the scorer its folded reading (the same text
// when folding changed nothing), the gate and the identity check each
// clause. A nil *Lean tokenizes every time. Callers must not modify the
// tokens.
func (l *Lean) Tokens(s string) []string {
	if l == nil {
		return text.Tokenize(s)
	}
	for i := range l.tokIn {
		if l.tokDone[i] && (l.tokIn[i] == s || sameTokens(l.tokIn[i], s)) {
			return l.tokOut[i]
		}
	}
	k := l.tokNext
	l.tokIn[k], l.tokOut[k], l.tokDone[k] = s, text.Tokenize(s), true
	l.tokNext = 1 - k
	return l.tokOut[k]
}

// MarkQuiet records tokens a caller found every one of which Quiet passes
// (the gate, reading a turn's clauses), so that a reader of the same
// tokens, from a scanner's zero state, takes that instead of asking again.
// The last four are kept; the tokens must not be modified after.
func (l *Lean) MarkQuiet(toks []string) {
	if l == nil {
		return
	}
	l.quiet[l.quietNext] = toks
	l.quietNext = (l.quietNext + 1) % len(l.quiet)
}

// markedQuiet reports tokens equal to ones marked quiet.
func (l *Lean) markedQuiet(toks []string) bool {
	if l == nil {
		return false
	}
	for _, q := range l.quiet {
		if q != nil && slices.Equal(q, toks) {
			return true
		}
	}
	return false
}

// sameTokens reports an ASCII text a that is s followed only by bytes no
// token holds (no letter, digit, underscore or apostrophe): a clause is its
// text with the full stop or question mark that ends it left off, and
// tokenizes as the text does, since the bytes after it neither end a token
// differently nor make one.
func sameTokens(a, s string) bool {
	if len(s) >= len(a) || a[:len(s)] != s || !text.IsASCII(a) {
		return false
	}
	for i := len(s); i < len(a); i++ {
		if c := a[i]; c == '_' || c == '\'' || isLetter(c) || '0' <= c && c <= '9' {
			return false
		}
	}
	return true
}
