package smelting

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"formation/relparse"
)

// Reasons a sentence yields nothing, as `formation smelt --sentences`
// reports them. PatternV2 gives only ReasonNoPattern.
const (
	ReasonNoPattern         = "no_pattern"           // PatternV2: no pattern matched
	ReasonCode              = "code"                 // the sentence is program text
	ReasonQuestion          = "question"             // a question asserts nothing
	ReasonListItem          = "list_item"            // an item of a list a sentence ending in ':' introduced
	ReasonConditional       = "conditional"          // the claim holds only under a stated condition or case
	ReasonHedged            = "hedged"               // "typically", "often": a tendency, not a fact
	ReasonNoRelation        = "no_relation_word"     // no relation of the vocabulary is the verb
	ReasonNegated           = "negated"              // a negation that denies no single claim
	ReasonNotDenial         = "not_a_denial"         // "Not …" opens a phrase, it denies nothing
	ReasonCounterUnparsable = "counter_unparsable"   // a counter-claim opening without a readable claim
	ReasonHeadPronoun       = "head_pronoun"         // the subject is a pronoun or deictic
	ReasonHeadClause        = "head_clause"          // the subject opens with a conditional, subordinating or connective word
	ReasonHeadCode          = "head_code"            // the subject is code
	ReasonHeadTooLong       = "head_too_long"        // the subject has more than 8 words
	ReasonHeadLetter        = "head_single_letter"   // the subject is a single letter
	ReasonHeadVerbPhrase    = "head_not_noun_phrase" // the subject holds a verb, a clause or a list
	ReasonNoHead            = "no_head"              // nothing stands before the verb
	ReasonAuxiliary         = "auxiliary"            // the relation word is an auxiliary ("has been", "has to")
	ReasonTailClause        = "tail_clause"          // the complement is a clause ("is that …")
	ReasonTailDeictic       = "tail_deictic"         // the complement points back ("follows this list")
	ReasonTailForward       = "tail_forward"         // the complement points ahead ("has the following members")
	ReasonNoTail            = "no_tail"              // nothing follows the verb
	ReasonAmbiguous         = "ambiguous_relation"   // a stronger relation word in the claim would misread it
	ReasonTailIsHead        = "tail_is_head"         // the complement names the subject again ("Username returns the username")
)

// maxHeadWords is the most words a head may have.
const maxHeadWords = 8

// readerV3 is PatternV3's reader. It holds the subject's declared
// relations and scratch space reused from sentence to sentence; one Smelt
// call uses one reader from a single goroutine.
type readerV3 struct {
	extras  []extraRelation
	toks    []token
	clauses []string
	arena   []byte // lower-cased sentences of the text, see lowerInto
}

// arenaChunk is the size of the blocks lower-cased sentences are written
// into.
const arenaChunk = 64 << 10

// extraRelation is a declared relation: its id, the words it is written
// with in prose, and the plural form of its first word when it is a verb
// in the third person ("returns" → "return").
type extraRelation struct {
	id     string
	words  []string
	plural string
}

func newReaderV3(relations []string) *readerV3 {
	r := &readerV3{}
	for _, id := range relations {
		words := strings.Split(id, "_")
		e := extraRelation{id: id, words: words}
		if w := words[0]; len(w) > 3 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") {
			e.plural = strings.TrimSuffix(w, "s")
		}
		r.extras = append(r.extras, e)
	}
	return r
}

// token is a word of a clause: its byte range in the clause, and the range
// of the word without the punctuation around it.
type token struct{ start, end, bareStart, bareEnd int }

// listState carries what one sentence tells the next: that it introduced a
// list with a colon, whose items are parts of it, not statements; and
// whether the next sentence starts a new block (after a blank line).
type listState struct {
	colon    bool
	newBlock bool
}

func (r *readerV3) text(text string, hits []hit, note noteFunc) []hit {
	var list listState
	prevEnd := 0
	forEachSentenceV3(text, func(start, end int, spaced bool) {
		flat := text[start:end]
		if spaced {
			flat = relparse.CollapseSpace(flat)
		}
		_, breaks := spaceRun(text, prevEnd)
		list.newBlock, prevEnd = breaks >= 2, end
		out := sentenceHits{hits: hits, start: start, end: end}
		reason := r.sentence(flat, &out, &list)
		if len(out.hits) > len(hits) {
			reason = ""
		}
		if note != nil {
			note(start, end, out.hits[len(hits):], reason)
		}
		hits = out.hits
	})
	return hits
}

// sentence reads one whitespace-collapsed sentence and returns why it
// yielded nothing (when it did not).
func (r *readerV3) sentence(flat string, out *sentenceHits, list *listState) string {
	s := relparse.TrimSpace(flat)
	item := listMarkerLen(s, 0)
	switch {
	case item > 0 && list.colon:
		return ReasonListItem // the list goes on
	case item > 0 || list.newBlock:
		list.colon = strings.HasSuffix(s, ":")
	default:
		list.colon = list.colon || strings.HasSuffix(s, ":") // a sentence continuing an item
	}
	s = unwrap(relparse.TrimSpace(s[item:]))
	if strings.HasSuffix(s, "?") {
		return ReasonQuestion
	}
	s = cleanClause(s)
	if s == "" {
		return ReasonNoRelation
	}
	if looksLikeCode(s) {
		return ReasonCode
	}
	low := lowerInto(&r.arena, s, arenaChunk)
	if n := counterMarkerLen(low); n > 0 {
		if strings.HasPrefix(low, "not ") {
			return ReasonNotDenial
		}
		return r.counterSentence(relparse.TrimSpace(low[n:]), out)
	}
	reason := ""
	r.clauses = splitClauses(s, low, r.clauses[:0])
	for _, c := range r.clauses {
		why := r.clause(c, out)
		if reason == "" || reason == ReasonNoRelation {
			reason = why
		}
	}
	r.hint(s, low, out)
	return reason
}

// hint records an ordering hint ("Before A, B", "A requires B", "A depends
// on B") as PatternV2 does, from a sentence without a negation.
func (r *readerV3) hint(s, low string, out *sentenceHits) {
	// Each pattern needs "before" at the start, "requires" or "depends on".
	// The first four letters of each have no other case variant than their
	// ASCII capital, so a sentence whose lower-case form holds none of them
	// cannot match: most sentences stop here.
	if !strings.HasPrefix(low, "befo") && !containsAround(low, "requ", 2) && !containsAround(low, "depe", 2) {
		return
	}
	ends := findTermEnds(s, 0)
	after, before, ok := matchOrdering(s, &ends)
	if !ok || readWords(low).neg.count > 0 {
		return
	}
	a, okA := normalTerm(after)
	b, okB := normalTerm(before)
	if okA && okB && a != b {
		out.emit(kindHint, b, a, "")
	}
}

// containsAround reports whether s contains needle, looking for its byte
// at k first: strings.Contains stops at every occurrence of the first
// byte, and a rarer one ("q" of "requ") leaves fewer stops.
func containsAround(s, needle string, k int) bool {
	for from := 0; ; {
		j := strings.IndexByte(s[from:], needle[k])
		if j < 0 {
			return false
		}
		if at := from + j - k; at >= 0 && strings.HasPrefix(s[at:], needle) {
			return true
		}
		from += j + 1
	}
}

// counterSentence reads the claim after a counter-claim opening ("It is a
// misconception that …") and records it as a counter-claim.
func (r *readerV3) counterSentence(rest string, out *sentenceHits) string {
	var claims sentenceHits
	reason := r.clause(rest, &claims)
	n := 0
	for _, h := range claims.hits {
		if h.kind == kindRelation {
			out.emit(kindCounter, h.a, h.b, h.c)
			n++
		}
	}
	if n == 0 {
		if reason == "" || reason == ReasonNoRelation {
			return ReasonCounterUnparsable
		}
		return reason
	}
	return ""
}

// unwrap removes brackets around a whole sentence: "(Note that …)".
func unwrap(s string) string {
	for len(s) > 2 && (s[0] == '(' || s[0] == '[') {
		open, close := s[0], s[len(s)-1]
		inner := s[1 : len(s)-1]
		if close == '.' && len(s) > 3 {
			close, inner = s[len(s)-2], s[1:len(s)-2]+"."
		}
		if !(open == '(' && close == ')') && !(open == '[' && close == ']') {
			return s
		}
		if strings.ContainsAny(inner, "()[]") {
			return s
		}
		s = relparse.TrimSpace(inner)
	}
	return s
}

// cleanClause trims a sentence or clause and removes its terminators and
// a final colon.
func cleanClause(s string) string {
	s = relparse.TrimSpace(s)
	for len(s) > 0 && (isTerminator(s[len(s)-1]) || s[len(s)-1] == ':' || s[len(s)-1] == ';') {
		s = relparse.TrimSpace(s[:len(s)-1])
	}
	return s
}

// splitClauses cuts a sentence into the clauses that may each state a
// claim: at "; " and at ": " when a new sentence starts after the colon
// (a capital) and the colon does not introduce the complement of a verb.
// Clauses are returned lower-cased.
func splitClauses(s, low string, out []string) []string {
	from := 0
	sameBytes := len(s) == len(low)
	for i := 0; i+1 < len(low); i++ {
		j := indexSeparator(low[i:])
		if j < 0 {
			break
		}
		i += j
		if i+1 >= len(low) || low[i+1] != ' ' {
			continue
		}
		if low[i] == ':' {
			if !sameBytes || i+2 >= len(s) || s[i+2] < 'A' || s[i+2] > 'Z' || copulaBefore(low, from, i) {
				continue
			}
		}
		if c := cleanClause(low[from:i]); c != "" {
			out = append(out, c)
		}
		from = i + 2
	}
	if c := cleanClause(low[from:]); c != "" {
		out = append(out, c)
	}
	return out
}

// indexSeparator returns the offset of the first ';' or ':' in s, or -1.
func indexSeparator(s string) int {
	semi, colon := strings.IndexByte(s, ';'), strings.IndexByte(s, ':')
	if semi < 0 || (colon >= 0 && colon < semi) {
		return colon
	}
	return semi
}

// copulaBefore reports whether the word before low[colon] is "is", "are",
// "include" or "includes": the colon then opens the complement.
func copulaBefore(low string, from, colon int) bool {
	w := colon
	for w > from && low[w-1] != ' ' {
		w--
	}
	switch low[w:colon] {
	case "is", "are", "include", "includes", "has", "have":
		return true
	}
	return false
}

// looksLikeCode reports a sentence that is program text rather than prose:
// it holds an operator only code uses (":=", "==", "!=", "&&", "||", "->",
// "=>", "<-", "/*", "*/", "//" outside a URL), a brace that opens or closes
// a block, or it opens like a declaration, a preprocessor line or a shell
// prompt.
func looksLikeCode(s string) bool {
	switch s[0] {
	case 'f', 't', 'v', 'c', 'p', 'i', '#', '$', 'r', 'd', '}':
		for _, p := range [...]string{"func ", "type ", "var ", "const ", "package ", "import ", "#include", "#define", "$ ", "return ", "defer ", "}"} {
			if strings.HasPrefix(s, p) && !strings.HasPrefix(s, "type of") {
				return true
			}
		}
	}
	for i := 0; i+1 < len(s); i++ {
		if i+9 <= len(s) && !anyOperator(s[i:i+8]) {
			i += 7 // none of the eight bytes starts an operator
			continue
		}
		a := s[i]
		if !hasClass(a, classOperator) {
			continue
		}
		b := s[i+1]
		switch {
		case (a == ':' || a == '=' || a == '!') && b == '=', a == '&' && b == '&', a == '|' && b == '|',
			(a == '-' || a == '=') && b == '>', a == '<' && b == '-', a == '/' && b == '*', a == '*' && b == '/':
			return true
		case a == '/' && b == '/' && (i == 0 || s[i-1] != ':'):
			return true
		case a == '{' && (b == ' ' || b == '}'), a == '}' && i > 0 && s[i-1] == ' ':
			return true
		case a == '=' && i > 0 && s[i-1] == ' ' && b == ' ':
			return true // an assignment
		case a == '(' && b == '"':
			return true // a call with a string literal
		}
	}
	n := len(s)
	return s[n-1] == '{' || (n > 1 && s[n-1] == '}' && s[n-2] == ' ')
}

// anyOperator reports whether one of the eight bytes of b may start an
// operator, with one test of their classes together.
func anyOperator(b string) bool {
	_ = b[7]
	c := byteClass[b[0]] | byteClass[b[1]] | byteClass[b[2]] | byteClass[b[3]] |
		byteClass[b[4]] | byteClass[b[5]] | byteClass[b[6]] | byteClass[b[7]]
	return c&classOperator != 0
}

// tokenize splits a single-spaced clause into words.
func (r *readerV3) tokenize(c string) []token {
	toks := r.toks[:0]
	for i := 0; i < len(c); {
		j := strings.IndexByte(c[i:], ' ')
		if j < 0 {
			j = len(c) - i
		}
		if j > 0 {
			bs, be := bareRange(c[i : i+j])
			toks = append(toks, token{i, i + j, i + bs, i + be})
		}
		i += j + 1
	}
	r.toks = toks
	return toks
}

// bare returns a word without the punctuation around it.
func bare(w string) string {
	start, end := bareRange(w)
	return w[start:end]
}

// bareRange returns the byte range of w without the punctuation around it.
func bareRange(w string) (start, end int) {
	end = len(w)
	if end > 0 && plainWordEnd(w[0]) && plainWordEnd(w[end-1]) {
		return 0, end // most words have no punctuation around them
	}
	for end > 0 {
		n := closingPunct(w[:end])
		if n == 0 {
			break
		}
		end -= n
	}
	for start < end {
		switch {
		case w[start] == '(' || w[start] == '[' || w[start] == '"' || w[start] == '\'':
			start++
			continue
		case strings.HasPrefix(w[start:end], "“") || strings.HasPrefix(w[start:end], "‘"):
			start += 3
			continue
		}
		break
	}
	return start, end
}

// closingPunct returns the byte length of the punctuation mark that ends
// w, or 0.
func closingPunct(w string) int {
	switch w[len(w)-1] {
	case ',', '.', ';', ':', '!', '?', ')', ']', '"', '\'':
		return 1
	case 0x9D, 0x99: // ” and ’ end in these bytes
		if strings.HasSuffix(w, "”") || strings.HasSuffix(w, "’") {
			return 3
		}
	}
	return 0
}

// clauseReader reads one clause: its words, and what has been found.
type clauseReader struct {
	r    *readerV3
	c    string
	toks []token
}

func (cr *clauseReader) word(i int) string {
	if i < 0 || i >= len(cr.toks) {
		return ""
	}
	t := cr.toks[i]
	return cr.c[t.bareStart:t.bareEnd]
}

func (cr *clauseReader) raw(i int) string { return cr.c[cr.toks[i].start:cr.toks[i].end] }

// span returns the clause's text from word i to word j (exclusive).
func (cr *clauseReader) span(i, j int) string {
	if i >= j {
		return ""
	}
	return cr.c[cr.toks[i].start:cr.toks[j-1].end]
}

// clause reads one lower-cased clause and emits what it states; it returns
// why it stated nothing.
func (r *readerV3) clause(c string, out *sentenceHits) string {
	cr := &clauseReader{r: r, c: c, toks: r.tokenize(c)}
	k, reason := cr.intro()
	if reason != "" {
		return reason
	}
	var buf [8]candidate
	v, cands := cr.verb(k, buf[:0])
	if v < 0 {
		return ReasonNoRelation
	}
	reason = ReasonNoRelation
	for _, cand := range cands {
		why := cr.read(k, v, cand, out)
		if why == "" {
			return ""
		}
		if reason == ReasonNoRelation {
			reason = why
		}
	}
	return reason
}

// intro skips what may open a clause without changing its claim (a
// connective and its comma, "note that", a purpose clause "To …,", a
// prepositional phrase before a comma) and returns the index of the
// clause's first word, or why the clause states no fact.
func (cr *clauseReader) intro() (int, string) {
	k := 0
	for k < len(cr.toks) {
		w, raw := cr.word(k), cr.raw(k)
		switch {
		case strings.HasSuffix(raw, ",") && introConnective(w):
			k++
			continue
		case w == "note" && cr.word(k+1) == "that":
			k += 2
			continue
		case strings.HasSuffix(raw, ":") && label(w):
			k++
			continue
		case w == "also" && cr.word(k+1) == "note":
			k++
			continue
		case hedge(w):
			return 0, ReasonHedged
		case subordinator(w):
			return 0, ReasonConditional
		case w == "to" || (preposition(w) && w != "as"):
			end := cr.introPhraseEnd(k)
			if end < 0 {
				return k, ""
			}
			// A purpose ("To prevent surprises, …") and a connective
			// phrase ("In addition, …") leave the claim as it is; any other
			// opening phrase ("On Unix, …", "In the latter case, …") says
			// where or when the claim holds, which a triple cannot keep.
			if w != "to" && !connectivePhrase(cr.span(k, end)) {
				return 0, ReasonConditional
			}
			k = end
			continue
		}
		return k, ""
	}
	return k, ""
}

// connectivePhrase reports an opening phrase that links a sentence to the
// one before without restricting it.
func connectivePhrase(p string) bool {
	switch strings.TrimSuffix(p, ",") {
	case "in addition", "in particular", "in fact", "of course", "in contrast", "by contrast", "on the other hand",
		"in other words", "in short", "in summary", "in practice", "as a result", "for this reason", "above all",
		"at the same time", "by design", "in turn":
		return true
	}
	return false
}

// label reports a word that labels a remark ("Note: …", "Warning: …").
func label(w string) bool {
	switch w {
	case "note", "notes", "warning", "tip", "important", "caution", "hint", "remark", "nb":
		return true
	}
	return false
}

// introPhraseEnd returns the index after the comma that closes an opening
// phrase starting at word k, or -1 when none closes it within a few words
// or a verb of the vocabulary comes first.
func (cr *clauseReader) introPhraseEnd(k int) int {
	for j := k; j < len(cr.toks) && j < k+12; j++ {
		if j > k && cr.relationWord(cr.word(j)) {
			return -1
		}
		if strings.HasSuffix(cr.raw(j), ",") {
			return j + 1
		}
	}
	return -1
}

// relationWord reports whether w alone may be the verb of a claim.
func (cr *clauseReader) relationWord(w string) bool {
	switch w {
	case "is", "are", "has", "have":
		return true
	}
	return relparse.IsRelation(w)
}

// candidate is one reading of the verb at a position: the relation, how
// many words it takes, and whether it is denied ("does not return").
type candidate struct {
	rel    string
	n      int
	denied bool
}

// verb finds the clause's verb: the first word from k on that is a
// relation of the vocabulary or a declared one, in a form that can be the
// predicate of the words before it. It returns the verb's index and its
// readings, longest phrase first, or -1.
func (cr *clauseReader) verb(k int, dst []candidate) (int, []candidate) {
	for i := k + 1; i < len(cr.toks); i++ {
		if cands := cr.verbAt(i, k, dst); len(cands) > 0 {
			return i, cands
		}
	}
	return -1, nil
}

// verbAt appends to dst the readings of the word at i as a verb after the
// head toks[k:i].
func (cr *clauseReader) verbAt(i, k int, dst []candidate) []candidate {
	w := cr.word(i)
	if !cr.r.maybeVerb(w) {
		return dst // most words: nothing below can read them as a verb
	}
	prev := cr.word(i - 1)
	plural := pluralWord(prev)
	if (w == "does" || w == "do") && cr.word(i+1) == "not" {
		if c, ok := cr.baseVerb(i+2, w == "do"); ok {
			c.n, c.denied = c.n+2, true
			return append(dst, c)
		}
	}
	if w == "doesn't" || w == "doesn’t" || w == "don't" || w == "don’t" {
		if c, ok := cr.baseVerb(i+1, strings.HasPrefix(w, "don")); ok {
			c.n, c.denied = c.n+1, true
			return append(dst, c)
		}
	}
	out := dst
	switch w {
	case "is", "are", "isn't", "aren't", "isn’t", "aren’t":
		denied := strings.HasPrefix(w, "isn") || strings.HasPrefix(w, "aren")
		for _, p := range [...][2]string{{"caused", "is_caused_by"}, {"defined", "is_defined_as"}, {"verified", "is_verified_as"}} {
			next := "by"
			if p[0] != "caused" {
				next = "as"
			}
			if !denied && cr.word(i+1) == p[0] && cr.word(i+2) == next {
				out = append(out, candidate{rel: p[1], n: 3})
			}
		}
		out = cr.extrasAt(i, plural, out)
		return append(out, candidate{rel: "is", n: 1, denied: denied})
	case "has", "have", "hasn't", "haven't", "hasn’t", "haven’t":
		denied := strings.HasPrefix(w, "hasn") || strings.HasPrefix(w, "haven")
		if !denied && cr.word(i+1) == "steps" {
			out = append(out, candidate{rel: "has_steps", n: 2})
		}
		return append(out, candidate{rel: "has", n: 1, denied: denied})
	}
	if prev == "" || determiner(prev) || preposition(prev) || auxiliary(prev) || prev == "not" {
		return nil
	}
	out = cr.extrasAt(i, plural, out)
	if c, ok := cr.vocabVerb(i, plural); ok {
		out = append(out, c)
	}
	return out
}

// maybeVerb reports whether w is a word verbAt may read as a verb, or as
// the start of one: an auxiliary it knows, a relation of the vocabulary, a
// verb vocabVerb knows, or the first word of a declared relation.
func (r *readerV3) maybeVerb(w string) bool {
	switch w {
	case "does", "do", "doesn't", "doesn’t", "don't", "don’t",
		"is", "are", "isn't", "aren't", "isn’t", "aren’t",
		"has", "have", "hasn't", "haven't", "hasn’t", "haven’t",
		"belongs", "belong", "contrasts", "contrast", "precede", "produce", "reveal":
		return true
	}
	if relparse.IsRelation(w) {
		return true
	}
	for _, e := range r.extras {
		if w == e.words[0] || (e.plural != "" && w == e.plural) {
			return true
		}
	}
	return false
}

// pluralWord reports whether the word before a verb can be a plural noun,
// so that the verb's plural form ("return", "mean") agrees with it.
func pluralWord(w string) bool {
	if len(w) < 3 || !strings.HasSuffix(w, "s") || strings.HasSuffix(w, "ss") || strings.HasSuffix(w, "us") ||
		strings.HasSuffix(w, "'s") || strings.HasSuffix(w, "’s") {
		return false
	}
	switch w {
	case "is", "was", "has", "does", "this", "its", "his", "thus", "yes", "always", "sometimes", "perhaps", "whereas", "besides", "towards":
		return false
	}
	return !pronoun(w) && !auxiliary(w) && !preposition(w)
}

// vocabVerb reads the word at i as one of the vocabulary's verbs other
// than "is" and "has" (with "belongs to" and "contrasts with"), in the
// third person, or in the plural after a plural noun.
func (cr *clauseReader) vocabVerb(i int, plural bool) (candidate, bool) {
	w := cr.word(i)
	switch w {
	case "belongs", "belong":
		if (w == "belongs" || plural) && cr.word(i+1) == "to" {
			return candidate{rel: "belongs_to", n: 2}, true
		}
		return candidate{}, false
	case "contrasts", "contrast":
		if (w == "contrasts" || plural) && cr.word(i+1) == "with" {
			return candidate{rel: "contrasts_with", n: 2}, true
		}
		return candidate{}, false
	}
	if relparse.IsRelation(w) && !strings.Contains(w, "_") {
		return candidate{rel: w, n: 1}, true
	}
	// Plural forms only of the verbs that are nothing else: "correct",
	// "mean", "cause", "ground", "recall" and "follow" are also adjectives
	// or nouns ("gives correct behaviour").
	if plural && (w == "precede" || w == "produce" || w == "reveal") {
		return candidate{rel: w + "s", n: 1}, true
	}
	return candidate{}, false
}

// baseVerb reads the word at i as the bare form of a relation verb after
// "does not" ("return", "have", "mean"): has for "have", a declared
// relation or a vocabulary verb.
func (cr *clauseReader) baseVerb(i int, _ bool) (candidate, bool) {
	w := cr.word(i)
	if w == "have" {
		return candidate{rel: "has", n: 1}, true
	}
	var buf [4]candidate
	if cands := cr.extrasAt(i, true, buf[:0]); len(cands) > 0 {
		return cands[0], true
	}
	return cr.vocabVerb(i, true)
}

// extrasAt appends to out the declared relations written at word i, in
// priority order.
func (cr *clauseReader) extrasAt(i int, plural bool, out []candidate) []candidate {
	for _, e := range cr.r.extras {
		w := cr.word(i)
		if w != e.words[0] && !(plural && e.plural != "" && w == e.plural) {
			continue
		}
		ok := true
		for j := 1; j < len(e.words) && ok; j++ {
			ok = cr.word(i+j) == e.words[j]
		}
		if ok {
			out = append(out, candidate{rel: e.id, n: len(e.words)})
		}
	}
	return out
}

// extraAt reports whether a declared relation is written at word j.
func (cr *clauseReader) extraAt(j int) bool {
	var buf [4]candidate
	return len(cr.extrasAt(j, true, buf[:0])) > 0
}

// read reads the clause with the verb at v (reading cand) after the words
// from k: it checks the head, cuts the complement at its clause boundary,
// resolves a denial, and emits the relation or counter-claim and any
// concept. It returns why it emitted nothing.
func (cr *clauseReader) read(k, v int, cand candidate, out *sentenceHits) string {
	tail := v + cand.n
	denied := cand.denied
	switch cand.rel {
	case "is":
		if !denied && cr.word(tail) == "not" {
			denied, tail = true, tail+1
		}
	case "has":
		switch next := cr.word(cr.skipAdverbs(cr.skipParenthesis(tail))); {
		case next == "not" && !denied:
			return ReasonAuxiliary // "has not been", "has not yet"
		case next == "been" || next == "to" || next == "got" || (len(next) > 4 && strings.HasSuffix(next, "ed")):
			return ReasonAuxiliary
		}
	}
	if cand.rel == "is" && participle(cr.word(cr.skipParenthesis(tail))) {
		return ReasonAuxiliary // "is helping": a progressive, not a state
	}
	if !denied && cr.word(tail) == "no" && cr.word(tail+1) != "longer" && cr.word(tail+1) != "more" {
		denied, tail = true, tail+1
	}
	for tail < len(cr.toks) && trailingAdverb(cr.word(tail)) {
		tail++
	}
	if tail < len(cr.toks) && hedge(cr.word(tail)) {
		return ReasonHedged
	}
	if cr.word(tail) == "not" {
		return ReasonNegated
	}
	end, second, reason := cr.cutTail(tail)
	if reason != "" {
		return reason
	}
	if tail >= end {
		return ReasonNoTail
	}
	isCalled := cand.rel == "is" && !denied && cr.word(tail) == "called"
	h, reason := cr.head(k, v, isCalled)
	if reason != "" {
		return reason
	}
	if isCalled {
		return cr.called(h, tail+1, end, out)
	}
	if h.no {
		if denied || (cand.rel != "is" && cand.rel != "has") {
			return ReasonNegated // "No TZ means …" is not "no TZ is …"
		}
		denied = true
	}
	t, reason := cr.complement(tail, end, cand.rel, h.text)
	if reason != "" {
		return reason
	}
	if denied {
		out.emit(kindCounter, h.text, cand.rel, t.text)
	} else {
		out.emit(kindRelation, h.text, cand.rel, t.text)
		cr.concept(h, cand.rel, t, out)
	}
	if second > 0 && !denied {
		cr.secondPredicate(h, second, out)
	}
	if !denied && end+1 < len(cr.toks) && cr.word(end) == "which" && strings.HasSuffix(cr.raw(end-1), ",") {
		cr.whichClause(t.text, end+1, out)
	}
	return ""
}

// whichClause reads ", which is Y" after a complement X as the claim
// (X, is, Y): a non-restrictive relative clause describes the noun phrase
// right before it. Only the copula is read there, and X must be a plain
// noun phrase.
func (cr *clauseReader) whichClause(x string, at int, out *sentenceHits) {
	if w := cr.word(at); (w != "is" && w != "are") || cr.word(at+1) == "not" ||
		strings.Contains(x, ",") || codeWord(x) || len(strings.Fields(x)) > maxHeadWords {
		return
	}
	tail := at + 1
	for tail < len(cr.toks) && trailingAdverb(cr.word(tail)) {
		tail++
	}
	end, _, reason := cr.cutTail(tail)
	if reason != "" || tail >= end || hedge(cr.word(tail)) {
		return
	}
	if t, reason := cr.complement(tail, end, "is", x); reason == "" {
		out.emit(kindRelation, x, "is", t.text)
	}
}

// secondPredicate reads "…, but is not B" or "… and has C" after a first
// predicate as a second claim about the same head.
func (cr *clauseReader) secondPredicate(h head, at int, out *sentenceHits) {
	var buf [8]candidate
	cands := cr.verbAt(at, at-1, buf[:0])
	for _, cand := range cands {
		tail := at + cand.n
		denied := cand.denied
		if cand.rel == "is" && !denied && cr.word(tail) == "not" {
			denied, tail = true, tail+1
		}
		end, _, reason := cr.cutTail(tail)
		if reason != "" || tail >= end {
			continue
		}
		t, reason := cr.complement(tail, end, cand.rel, h.text)
		if reason != "" {
			continue
		}
		kind := kindRelation
		if denied {
			kind = kindCounter
		}
		out.emit(kind, h.text, cand.rel, t.text)
		return
	}
}

// head is a checked head: its normal form, whether it carried an
// indefinite or no article (so that "X is a Y" may define X), a term named
// beside it in an appositive, and whether it opened with "no".
type head struct {
	text       string
	definable  bool
	appositive string
	no         bool
}

// head checks the words toks[k:v] as the noun phrase a claim is about;
// relative allows a relative clause in it ("a function that runs
// concurrently is called a goroutine").
func (cr *clauseReader) head(k, v int, relative bool) (head, string) {
	for v > k && (trailingAdverb(cr.word(v-1)) || cr.word(v-1) == "only" || cr.word(v-1) == "currently") {
		v--
	}
	if k < v && cr.word(k) == "currently" {
		k++
	}
	if v <= k {
		return head{}, ReasonNoHead
	}
	var h head
	first := cr.word(k)
	if first == "no" {
		h.no = true
		k++
		first = cr.word(k)
	}
	if k >= v {
		return head{}, ReasonNoHead
	}
	h.definable = first != "the"
	if x, y, ok := cr.appositive(k, v); ok {
		h.appositive = y
		v = x
	}
	if reason := cr.nounPhrase(k, v, relative); reason != "" {
		return head{}, reason
	}
	if articleWord(cr.word(v - 1)) {
		return head{}, ReasonHeadLetter // a name such as "A" the forge would strip as an article
	}
	h.text = normalPhrase(cr.span(k, v))
	if h.text == "" {
		return head{}, ReasonNoHead
	}
	if !hasWord(h.text) {
		return head{}, ReasonHeadCode // "The _ means …": a symbol, not a name a user can ask about
	}
	return h, ""
}

// hasWord reports whether s holds a letter or a digit.
func hasWord(s string) bool {
	return strings.IndexFunc(s, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }) >= 0
}

// appositive recognises "X, or Y," and "X, called Y," as the head: it
// returns the end of X and the normal form of Y.
func (cr *clauseReader) appositive(k, v int) (int, string, bool) {
	if !strings.HasSuffix(cr.raw(v-1), ",") {
		return 0, "", false
	}
	for j := k; j < v-2; j++ {
		if !strings.HasSuffix(cr.raw(j), ",") {
			continue
		}
		if w := cr.word(j + 1); w != "or" && w != "called" {
			return 0, "", false
		}
		if cr.nounPhrase(j+2, v, false) != "" || cr.nounPhrase(k, j+1, false) != "" {
			return 0, "", false
		}
		y := normalPhrase(cr.span(j+2, v))
		if !validTermV3(y) {
			return 0, "", false
		}
		return j + 1, y, true
	}
	return 0, "", false
}

// nounPhrase checks the words toks[k:v] as a noun phrase that names what a
// claim is about, and returns why they are not one. relative allows a
// relative clause inside it ("a function that runs concurrently").
func (cr *clauseReader) nounPhrase(k, v int, relative bool) string {
	words := v - k
	first := cr.word(k)
	if first == "a" || first == "an" || first == "the" {
		words--
		first = cr.word(k + 1)
	}
	switch {
	case words <= 0:
		return ReasonNoHead
	case words > maxHeadWords:
		return ReasonHeadTooLong
	case subordinator(first) || connective(first) || preposition(first) || first == "only" || first == "just" || first == "even":
		return ReasonHeadClause
	case words == 1 && pronoun(first), deicticDeterminer(first):
		return ReasonHeadPronoun
	case quantifier(first) && cr.word(k+1) == "of":
		return ReasonHeadPronoun
	case cr.timeClause(k, v):
		return ReasonHeadClause // "The next time X is triggered, …"
	}
	text := cr.span(k, v)
	if codeWord(text) {
		return ReasonHeadCode
	}
	if words == 1 && utf8.RuneCountInString(bare(text)) == 1 {
		return ReasonHeadLetter
	}
	commas := 0
	for j := k; j < v; j++ {
		w, raw := cr.word(j), cr.raw(j)
		switch {
		case personal(w) || w == "such" || w == "said":
			return ReasonHeadPronoun
		case auxiliary(w) || negating(w) && j > k:
			return ReasonHeadVerbPhrase
		case clauseWord(w) && !(relative && relativePronoun(w)):
			return ReasonHeadClause
		case j > k && determiner(w) && !preposition(cr.word(j-1)) && cr.word(j-1) != "and" && cr.word(j-1) != "or" && !(relative && relativePronoun(cr.word(j-1))):
			return ReasonHeadVerbPhrase
		}
		if strings.HasSuffix(raw, ",") && j < v-1 {
			commas++
		}
	}
	if commas > 0 && !cr.listHead(k, v) {
		return ReasonHeadVerbPhrase
	}
	if last := cr.word(v - 1); preposition(last) || determiner(last) || last == "and" || last == "or" {
		return ReasonHeadVerbPhrase
	}
	return ""
}

// timeClause reports a head that opens a clause of time: "the next time
// …", "each time …", "every time …".
func (cr *clauseReader) timeClause(k, v int) bool {
	for j := k + 1; j < v; j++ {
		if cr.word(j) == "time" || cr.word(j) == "moment" {
			switch cr.word(j - 1) {
			case "next", "first", "last", "each", "every", "any", "same":
				return true
			}
		}
	}
	return false
}

// listHead accepts commas in a head only as a list of single names closed
// by "and" or "or": "the withcancel, withdeadline, and withtimeout
// functions".
func (cr *clauseReader) listHead(k, v int) bool {
	seg := 0
	for j := k; j < v; j++ {
		seg++
		if strings.HasSuffix(cr.raw(j), ",") {
			if seg > 2 || (seg == 2 && j-1 != k) {
				return false
			}
			seg = 0
		}
	}
	last := 0
	for j := v - 1; j >= k && !strings.HasSuffix(cr.raw(j), ","); j-- {
		last = j
	}
	w := cr.word(last)
	return w == "and" || w == "or"
}

// codeWord reports program syntax or a path in a head: brackets, operators,
// quotes, slashes, or a word opening with '-' (a command-line flag).
func codeWord(s string) bool {
	for i := 0; i < len(s); i++ {
		if hasClass(s[i], classCode) || (s[i] == '-' && (i == 0 || s[i-1] == ' ')) {
			return true
		}
	}
	return false
}

// normalPhrase puts a phrase into the forge's normal form: trimmed, single
// spaced, without trailing ".?!,;:" and without a leading or trailing
// article.
func normalPhrase(s string) string {
	s = relparse.TrimSpace(s)
	for len(s) > 0 && strings.IndexByte(".?!,;:", s[len(s)-1]) >= 0 {
		s = relparse.TrimSpace(s[:len(s)-1])
	}
	return relparse.StripArticles(s)
}

// complement is a checked complement: its normal form and whether it
// opened with an article ("X is a Y" may define X).
type complement struct {
	text    string // normal form, as a relation's tail
	def     string // as a definition: as written, without a leading "a" or "an"
	article bool
	words   int
}

// cutTail returns where the complement starting at word from ends: at the
// end of the clause, or before a clause it does not need (after a comma: a
// non-restrictive relative clause, a reason, a concession, a participle,
// an example, or a new clause joined by "and", "or" or "but"; a dash; a
// colon; "even if"). A coordinated second predicate about the same head
// ("…, but is not B") is returned as second. A condition in the
// complement ("… if …", "… unless …") makes the claim conditional.
func (cr *clauseReader) cutTail(from int) (end, second int, reason string) {
	relative := false
	for j := from; j < len(cr.toks); j++ {
		w, raw := cr.word(j), cr.raw(j)
		switch {
		case raw == "–" || raw == "—" || raw == "--" || raw == "-":
			return j, 0, ""
		case w == "if" || w == "unless" || w == "except" || w == "otherwise" || w == "provided":
			if cr.word(j-1) == "even" && j-1 > from {
				return j - 1, 0, ""
			}
			if cr.word(j-1) == "as" || cr.word(j-1) == "whether" {
				continue
			}
			return 0, 0, ReasonConditional
		case relativePronoun(w):
			relative = true
		}
		if j > from && endsWithComma(cr.raw(j-1)) {
			switch {
			case cutAfterComma(w), participle(w), hedge(w):
				return j, 0, ""
			case (w == "for" && (cr.word(j+1) == "example" || cr.word(j+1) == "instance")) || (w == "such" && cr.word(j+1) == "as"):
				return j, 0, ""
			case (w == "and" || w == "or" || w == "but") && pronoun(cr.word(j+1)):
				return j, 0, "" // "…, but these support …"
			case w == "and" || w == "or" || w == "but":
				if cr.clauseFollows(j + 1) {
					if !relative && cr.predicateAt(j+1) {
						return j, j + 1, ""
					}
					return j, 0, ""
				}
			case !subordinator(w) && !relativePronoun(w) && cr.clauseFollows(j):
				return j, 0, "" // "…, SeekCurrent means …": a new clause after a comma
			}
		}
		if (w == "but" || w == "and" || w == "or") && j > from {
			switch next := cr.word(j + 1); {
			case !relative && w != "or" && cr.predicateAt(j+1):
				return j, j + 1, ""
			case auxiliary(next) || (determiner(next) && next != "a" && next != "an" && next != "the" && cr.clauseFollows(j+1)):
				return j, 0, "" // "… and can accept …", "… and all sessions are …": another clause
			case pluralWord(next) && determiner(cr.word(j+2)):
				return j, 0, "" // "… and takes the same options …": another verb
			}
		}
		if strings.HasSuffix(raw, ":") && j+1 < len(cr.toks) {
			return j + 1, 0, ""
		}
	}
	return len(cr.toks), 0, ""
}

// endsWithComma reports a word followed by a comma, inside closing quotes
// or not ("clock,”").
func endsWithComma(raw string) bool {
	for len(raw) > 0 {
		switch {
		case strings.HasSuffix(raw, ","):
			return true
		case strings.HasSuffix(raw, "”"), strings.HasSuffix(raw, "’"):
			raw = raw[:len(raw)-3]
		case strings.HasSuffix(raw, "\""), strings.HasSuffix(raw, "'"), strings.HasSuffix(raw, ")"):
			raw = raw[:len(raw)-1]
		default:
			return false
		}
	}
	return false
}

// participle reports a present participle, which after a comma opens a
// phrase the claim does not need (", using …", ", ensuring …").
func participle(w string) bool {
	if len(w) < 5 || !strings.HasSuffix(w, "ing") {
		return false
	}
	switch w {
	case "string", "strings", "thing", "things", "nothing", "something", "anything", "everything", "during",
		"padding", "encoding", "setting", "settings", "mapping", "warning", "building", "ceiling", "morning",
		"evening", "spring", "meaning", "offspring", "binding", "heading", "wording", "timing":
		return false
	}
	return true
}

// clauseFollows reports a verb, an auxiliary or a personal pronoun before
// the next comma from word j: what follows is a clause, not a list item.
func (cr *clauseReader) clauseFollows(j int) bool {
	for ; j < len(cr.toks); j++ {
		w := cr.word(j)
		if auxiliary(w) || personal(w) || cr.relationWord(w) || w == "is" || w == "are" || cr.extraAt(j) {
			return true
		}
		if strings.HasSuffix(cr.raw(j), ",") {
			return false
		}
	}
	return false
}

// predicateAt reports a second predicate starting at word j: a relation
// verb ("is", "has", a declared relation) with the subject left out.
func (cr *clauseReader) predicateAt(j int) bool {
	switch cr.word(j) {
	case "is", "are", "has", "have", "isn't", "aren't":
		return true
	}
	return cr.extraAt(j)
}

// complement checks the words toks[from:end] as the complement of rel
// after the head h: not a clause, not pointing back or ahead, no
// condition; a negation only inside a relative clause, which is then
// dropped; and the triple must read back as itself under the forge's
// parser (a stronger relation word in it is dropped with the relative
// clause holding it, or the clause yields nothing).
func (cr *clauseReader) complement(from, end int, rel, h string) (complement, string) {
	first := cr.word(from)
	switch {
	case tailClause(first):
		return complement{}, ReasonTailClause
	case deicticDeterminer(first) || (end-from == 1 && pronoun(first)):
		if first == "following" || first == "above" || first == "below" {
			return complement{}, ReasonTailForward
		}
		return complement{}, ReasonTailDeictic
	}
	if last := cr.word(end - 1); last == "here" || last == "there" {
		return complement{}, ReasonTailDeictic
	}
	for j := from; j < end; j++ {
		w := cr.word(j)
		if w == "following" || (w == "as" && cr.word(j+1) == "follows") {
			return complement{}, ReasonTailForward
		}
		if modal(w) && !cr.clauseWordBefore(from, j) {
			return complement{}, ReasonTailClause // "… all you can hope for": a clause of its own
		}
		if negating(w) || strings.HasSuffix(w, "n't") || strings.HasSuffix(w, "n’t") {
			if rp := cr.relativeBefore(from, j); rp > from {
				end = rp
				break
			}
			return complement{}, ReasonNegated
		}
	}
	if first == "both" || first == "either" || first == "neither" {
		if !cr.hasWord(from+1, end, "and") && !cr.hasWord(from+1, end, "or") && !cr.hasWord(from+1, end, "nor") {
			return complement{}, ReasonAmbiguous // "both A" without its "and B"
		}
	}
	if end > from+1 && articleWord(cr.word(end-1)) {
		return complement{}, ReasonAmbiguous // "… precedes A": the forge would strip the name as an article
	}
	end = cr.dropReference(from, end)
	c := complement{article: articleWord(first), words: end - from}
	c.text = normalPhrase(cr.span(from, end))
	if !hasWord(c.text) {
		return complement{}, ReasonNoTail
	}
	c.def = definitionPhrase(cr.span(from, end))
	if cr.r.readsBack(h, rel, c.text) {
		return c.notHead(h)
	}
	if rp := cr.relativeBefore(from, end); rp > from {
		c.text = normalPhrase(cr.span(from, rp))
		c.def = definitionPhrase(cr.span(from, rp))
		c.words = rp - from
		if c.text != "" && cr.r.readsBack(h, rel, c.text) {
			return c.notHead(h)
		}
	}
	return complement{}, ReasonAmbiguous
}

// notHead refuses a complement that names the head again ("Context returns
// a context that …" cut to "context"): a term related to itself teaches
// nothing, and a walk from it never reaches it.
func (c complement) notHead(h string) (complement, string) {
	if strings.EqualFold(c.text, h) {
		return complement{}, ReasonTailIsHead
	}
	return c, ""
}

// definitionPhrase is a complement as a definition: trimmed, without
// trailing ".?!,;:", and without the leading "a" or "an" that "X is a Y"
// consumes, as PatternV2 reads it; "the" stays ("the return of light").
func definitionPhrase(s string) string {
	s = relparse.TrimSpace(s)
	for len(s) > 0 && strings.IndexByte(".?!,;:", s[len(s)-1]) >= 0 {
		s = relparse.TrimSpace(s[:len(s)-1])
	}
	for _, a := range [...]string{"a ", "an "} {
		if strings.HasPrefix(s, a) {
			return s[len(a):]
		}
	}
	return s
}

// skipParenthesis returns the index of the first word at or after i that
// is not inside a parenthesis opening at i.
func (cr *clauseReader) skipParenthesis(i int) int {
	if i >= len(cr.toks) || !strings.HasPrefix(cr.raw(i), "(") {
		return i
	}
	for j := i; j < len(cr.toks); j++ {
		if strings.HasSuffix(cr.raw(j), ")") {
			return j + 1
		}
	}
	return i
}

// skipAdverbs returns the index of the first word at or after i that is
// not an adverb in "-ly" ("has previously supported").
func (cr *clauseReader) skipAdverbs(i int) int {
	for i < len(cr.toks) && len(cr.word(i)) > 4 && strings.HasSuffix(cr.word(i), "ly") {
		i++
	}
	return i
}

// articleWord reports "a", "an" or "the", which the forge strips from the
// ends of a head or tail.
func articleWord(w string) bool { return w == "a" || w == "an" || w == "the" }

// dropReference removes a parenthesis that closes the complement and only
// points elsewhere ("(see Fig. 3)", "(e.g. …)"), returning the new end.
func (cr *clauseReader) dropReference(from, end int) int {
	for j := end - 1; j > from; j-- {
		raw := cr.raw(j)
		if !strings.HasPrefix(raw, "(") {
			continue
		}
		if !strings.HasSuffix(cr.raw(end-1), ")") {
			return end
		}
		switch cr.word(j) {
		case "see", "cf", "e.g", "i.e", "eg", "ie":
			return j
		}
		return end
	}
	return end
}

// hasWord reports whether the word w stands among the words from..to-1.
func (cr *clauseReader) hasWord(from, to int, w string) bool {
	for j := from; j < to; j++ {
		if cr.word(j) == w {
			return true
		}
	}
	return false
}

// clauseWordBefore reports a word opening a clause (a relative pronoun, a
// subordinator, a wh-word) among the words from..to-1.
func (cr *clauseReader) clauseWordBefore(from, to int) bool {
	for j := from; j < to; j++ {
		if w := cr.word(j); clauseWord(w) || relativePronoun(w) || subordinator(w) {
			return true
		}
	}
	return false
}

// relativeBefore returns the index of the first relative pronoun between
// from (exclusive) and to, or -1.
func (cr *clauseReader) relativeBefore(from, to int) int {
	for j := from + 1; j < to; j++ {
		if relativePronoun(cr.word(j)) {
			return j
		}
	}
	return -1
}

// concept records "X is a Y" (X named without "the"), "X is defined as
// Y" and "X means Y" as the definition of the term X, and an appositive
// term beside X with the same definition.
func (cr *clauseReader) concept(h head, rel string, t complement, out *sentenceHits) {
	switch rel {
	case "is":
		if !h.definable || !t.article {
			return
		}
	case "is_defined_as", "means":
	default:
		return
	}
	words := strings.Fields(t.text)
	if len(words) == 0 || len(words) == 1 && vagueDefinition(words[0]) {
		return
	}
	// A case in the definition ("X is a write operation when it returns
	// true") makes it hold only sometimes, unless the case belongs to a
	// participle inside the definition ("the error returned by Err when
	// the context is canceled").
	participle := false
	for i, w := range words {
		if i > 0 && pastParticiple(w) {
			participle = true
		}
		if (w == "when" || w == "if" || w == "unless" || w == "whenever") && !participle {
			return
		}
	}
	for _, term := range [2]string{h.text, h.appositive} {
		if validTermV3(term) {
			out.emit(kindConcept, term, t.def, "")
		}
	}
}

// called records "X is called Y" as the definition of the term Y by X.
func (cr *clauseReader) called(h head, from, end int, out *sentenceHits) string {
	term := normalPhrase(cr.span(from, end))
	if !validTermV3(term) {
		return ReasonNoTail
	}
	out.emit(kindConcept, term, h.text, "")
	return ""
}

// validTermV3 is PatternV3's term test: one to three words, each a
// lower-case ASCII letter followed by letters and digits, with single '_',
// '-', '.' or ':' between them (identifiers such as "ffi_cif" and
// "context.err").
func validTermV3(t string) bool {
	if t == "" || len(t) > 60 {
		return false
	}
	words := strings.Split(t, " ")
	if len(words) > 3 {
		return false
	}
	for _, w := range words {
		if w == "" || w[0] < 'a' || w[0] > 'z' {
			return false
		}
		sep := false
		for i := 1; i < len(w); i++ {
			c := w[i]
			switch {
			case 'a' <= c && c <= 'z', '0' <= c && c <= '9':
				sep = false
			case strings.IndexByte("_-.:", c) >= 0 && !sep:
				sep = true
			default:
				return false
			}
		}
		if sep {
			return false
		}
	}
	return true
}

// readsBack reports whether the forge will read "<h> <rel> <t>" back as
// exactly the triple (h, rel, t). The relation parser takes the relation of
// highest priority that occurs anywhere, at its first occurrence; so no
// relation ranked before rel may occur in head or tail, rel itself may not
// occur in the head, and the head may not open with a discourse marker the
// parser drops. Declared relations rank after the vocabulary's 17, in
// their declared order; for one of them, no relation of the vocabulary
// may occur at all. Head and tail are in normal form by construction.
func (r *readerV3) readsBack(h, rel, t string) bool {
	if h == "" || t == "" || startsWithMarker(h) {
		return false
	}
	p := relparse.Priority(rel)
	if p < 0 {
		p = numVocabulary
		for _, e := range r.extras {
			if e.id == rel {
				break
			}
			if containsPhrase(h, e) || containsPhrase(t, e) {
				return false
			}
		}
		for _, e := range r.extras {
			if e.id == rel && containsPhrase(h, e) {
				return false
			}
		}
	}
	return !relationWordIn(h, p, true) && !relationWordIn(t, p, false)
}

// numVocabulary is the number of relations of the vocabulary; a declared
// relation ranks after all of them.
const numVocabulary = 17

// relationWordIn reports whether s holds, as a whole word, a relation of
// the vocabulary ranked before priority p (or at p when orEqual).
func relationWordIn(s string, p int, orEqual bool) bool {
	for i := 0; i < len(s); {
		end := wordEnd(s, i)
		if end == i {
			i += runeLen(s, i)
			continue
		}
		if !mayBeRelation(s[i:end]) {
			i = end
			continue
		}
		if q := relparse.Priority(s[i:end]); q >= 0 && (q < p || (orEqual && q == p)) {
			return true
		}
		i = end
	}
	return false
}

// mayBeRelation is false for most words that are no relation of the
// vocabulary, at the cost of two comparisons: every relation has 2 to 14
// bytes and starts with one of "bcfghimpr".
func mayBeRelation(w string) bool {
	const firsts = 1<<('b'-'a') | 1<<('c'-'a') | 1<<('f'-'a') | 1<<('g'-'a') | 1<<('h'-'a') |
		1<<('i'-'a') | 1<<('m'-'a') | 1<<('p'-'a') | 1<<('r'-'a')
	if len(w) < 2 || len(w) > 14 || w[0] < 'a' || w[0] > 'z' {
		return false
	}
	return firsts>>(w[0]-'a')&1 != 0
}

// startsWithMarker reports a head the relation parser would cut: one that
// opens with a discourse marker followed by a space or a comma.
func startsWithMarker(h string) bool {
	for _, m := range [...]string{"actually", "no", "indeed", "really", "in fact", "rather", "instead"} {
		if len(h) > len(m) && h[:len(m)] == m && (h[len(m)] == ' ' || h[len(m)] == ',' || h[len(m)] == ';') {
			return true
		}
	}
	return false
}

// containsPhrase reports whether the declared relation e occurs in s as
// whole words, in its id or its prose form.
func containsPhrase(s string, e extraRelation) bool {
	for _, form := range [2]string{e.id, strings.Join(e.words, " ")} {
		for i := 0; ; {
			j := strings.Index(s[i:], form)
			if j < 0 {
				break
			}
			at := i + j
			if wordBoundary(s, at) && wordBoundary(s, at+len(form)) {
				return true
			}
			i = at + 1
		}
	}
	return false
}
