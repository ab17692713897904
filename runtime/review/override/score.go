package override

// A word-evidence reading of a whole text, beside the forms: the forms
// need an override's parts in a shape they know, and new wordings of the
// same request keep slipping past them. The scorer weighs what the text is
// made of instead: each word and each pair of adjacent words it holds
// counts for or against an override attempt by how often it occurs in the
// suite's adversarial phrasings against how often in ordinary text, in the
// manner of a naive Bayes classifier over the presence of those features.
// The table (scoretable.tsv.gz) is computed from the repository's own data
// only, by TestScoreTableIsCurrent, which fails when the table and the data
// disagree; weights are integers (thousandths of a nat), so a score is an
// exact sum, the same on every machine.

import (
	"bufio"
	"bytes"
	"cmp"
	"compress/gzip"
	_ "embed"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"

	"formation/runtime/text"
)

//go:embed scoretable.tsv.gz
var scoreTableGz []byte

// ScoreTable is the scorer's weights: a bias, a threshold above which a
// text leans towards an override, and a weight per feature, all in
// thousandths of a nat of log-odds.
type ScoreTable struct {
	Bias      int64
	Threshold int64
	Weights   map[string]int64

	// fast is Weights for lookup by word and by pair (features.go), built
	// by ParseScoreTable; nil in a table built otherwise, which sums
	// through the map.
	fast *features
}

// loadedTable reads the embedded table once; it is never written after.
var loadedTable = sync.OnceValue(func() *ScoreTable {
	t, err := ParseScoreTable(scoreTableGz)
	if err != nil {
		panic(fmt.Sprintf("override: the embedded score table: %v", err)) // built with the package; TestScoreTableIsCurrent reads it
	}
	return t
})

// Leans reports a text whose score passes the table's threshold, with the
// features that weigh most for it.
func Leans(s string) (bool, []string) { return leansSpelled(nil, text.JoinSpelled(Fold(s))) }

// leansSpelled is Leans of a text already folded and with its spelled-out
// words joined (Lean.Spelled), tokenized through l (which may be nil).
func leansSpelled(l *Lean, spelled string) (bool, []string) {
	t := loadedTable()
	w, _ := normalize(l.Tokens(spelled))
	if t.sum(w) <= t.Threshold {
		return false, nil
	}
	return true, t.top(w)
}

// Lean is the scorer's reading of one text, computed at most once: a turn
// that the gate and the identity check both read scores its input once
// instead of once for each. The zero value is ready; a nil *Lean computes
// every time. It is not safe for concurrent use (one turn holds it).
type Lean struct {
	text string
	done bool
	lean bool
	top  []string

	// spelledIn and spelledOut are the last text Spelled read and its
	// reading.
	spelledIn, spelledOut string
	spelledDone           bool

	// tokIn and tokOut are the last two texts Tokens read and their
	// tokens; tokNext is the one to replace next.
	tokIn   [2]string
	tokOut  [2][]string
	tokDone [2]bool
	tokNext int

	// quiet are the last token lists marked quiet (MarkQuiet); quietNext is
	// the one to replace next.
	quiet     [4][]string
	quietNext int

	// scanned is the text whose sentences steps records (Next).
	scanned string
	steps   []scanStep
	reread  int
}

// Of is Leans(s), remembered for the last s. Callers must not modify the
// features it returns.
func (l *Lean) Of(s string) (bool, []string) {
	if l == nil {
		return Leans(s)
	}
	if !l.done || l.text != s {
		l.lean, l.top = leansSpelled(l, l.Spelled(s))
		l.text, l.done = s, true
	}
	return l.lean, l.top
}

// Score is the table's score of s: the bias plus the weight of every
// distinct feature of s the table has, and up to three features that
// weigh most for it.
func (t *ScoreTable) Score(s string) (int64, []string) {
	w := scoreWords(s)
	return t.sum(w), t.top(w)
}

// scoreWords are the words of s as the signal reads them (folded,
// spelled-out and letter-by-letter words joined, contractions, text-speak
// and digits for letters read back).
func scoreWords(s string) []string {
	w, _ := normalize(text.Tokenize(text.JoinSpelled(Fold(s))))
	return w
}

// sum adds the bias and the weight of each distinct feature of w. It runs
// on every turn the forms pass, so it looks pairs up through one reused
// buffer and finds repeats by comparing with the words before (a set only
// for long texts) instead of building and sorting the features.
func (t *ScoreTable) sum(w []string) int64 {
	if t.fast != nil && len(w) <= longText {
		return t.sumFast(w)
	}
	score := t.Bias
	each(w, func(word string, pair []byte) {
		if pair != nil {
			score += t.Weights[string(pair)] // looked up without a copy
		} else {
			score += t.Weights[word]
		}
	})
	return score
}

// sumFast is sum through the fast table, for a text of at most longText
// words: each distinct word and each distinct pair of adjacent words, found
// as each finds them, weighed without joining the pair.
func (t *ScoreTable) sumFast(w []string) int64 {
	score := t.Bias
	for i, x := range w {
		if !repeatedWord(w, i, nil, x) {
			score += t.fast.word(x)
		}
		if i > 0 && !repeatedPair(w, i, nil, nil) {
			score += t.fast.pair(w[i-1], x)
		}
	}
	return score
}

// top returns up to three features of w that weigh most for an override,
// heaviest first (ties in byte order).
func (t *ScoreTable) top(w []string) []string {
	type weighed struct {
		f string
		w int64
	}
	var all []weighed
	each(w, func(word string, pair []byte) {
		if pair != nil {
			word = string(pair)
		}
		if v := t.Weights[word]; v > 0 {
			all = append(all, weighed{word, v})
		}
	})
	slices.SortFunc(all, func(a, b weighed) int {
		if a.w != b.w {
			return cmp.Compare(b.w, a.w)
		}
		return strings.Compare(a.f, b.f)
	})
	var out []string
	for _, x := range all[:min(3, len(all))] {
		out = append(out, x.f)
	}
	return out
}

// longText is the word count past which each keeps a set of the features
// seen instead of comparing with the words before.
const longText = 64

// each calls f once for each distinct feature of w: every word, as word,
// and every pair of adjacent words joined by a space, as pair (valid only
// during the call).
func each(w []string, f func(word string, pair []byte)) {
	var seen map[string]bool
	if len(w) > longText {
		seen = make(map[string]bool, 2*len(w))
	}
	buf := make([]byte, 0, 64)
	for i, x := range w {
		if !repeatedWord(w, i, seen, x) {
			f(x, nil)
		}
		if i == 0 {
			continue
		}
		buf = append(append(append(buf[:0], w[i-1]...), ' '), x...)
		if !repeatedPair(w, i, seen, buf) {
			f("", buf)
		}
	}
}

func repeatedWord(w []string, i int, seen map[string]bool, x string) bool {
	if seen != nil {
		if seen[x] {
			return true
		}
		seen[x] = true
		return false
	}
	return slices.Contains(w[:i], x)
}

func repeatedPair(w []string, i int, seen map[string]bool, pair []byte) bool {
	if seen != nil {
		if seen[string(pair)] {
			return true
		}
		seen[string(pair)] = true
		return false
	}
	for j := 1; j < i; j++ {
		if w[j] == w[i] && w[j-1] == w[i-1] {
			return true
		}
	}
	return false
}

// scoreFeatures returns the distinct features of s in byte order: its
// words as the signal reads them and every pair of adjacent words, joined
// by a space.
func scoreFeatures(s string) []string {
	var out []string
	each(scoreWords(s), func(word string, pair []byte) {
		if pair != nil {
			word = string(pair)
		}
		out = append(out, word)
	})
	slices.Sort(out)
	return out
}

// ParseScoreTable reads a gzip-compressed table: lines "bias\tN",
// "threshold\tN", then "feature\tweight" in byte order of feature; lines
// starting with "#" are comments.
func ParseScoreTable(gz []byte) (*ScoreTable, error) {
	zr, err := gzip.NewReader(bytes.NewReader(gz))
	if err != nil {
		return nil, fmt.Errorf("score table: %w", err)
	}
	t := &ScoreTable{Weights: map[string]int64{}}
	sc := bufio.NewScanner(zr)
	seen := map[string]bool{}
	prev := ""
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if line == "" || line[0] == '#' {
			continue
		}
		key, num, ok := strings.Cut(line, "\t")
		v, err := strconv.ParseInt(num, 10, 64)
		if !ok || err != nil {
			return nil, fmt.Errorf("score table line %d: want key<TAB>integer", n)
		}
		switch {
		case key == "bias" && !seen[key]:
			t.Bias = v
		case key == "threshold" && !seen[key]:
			t.Threshold = v
		case strings.HasPrefix(key, "f:") && key > prev:
			t.Weights[key[2:]] = v
			prev = key
		default:
			return nil, fmt.Errorf("score table line %d: %q repeated, out of order or unknown", n, key)
		}
		seen[key] = true
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("score table: %w", err)
	}
	if !seen["bias"] || !seen["threshold"] || len(t.Weights) == 0 {
		return nil, fmt.Errorf("score table: bias, threshold or weights missing")
	}
	t.fast = newFeatures(t.Weights)
	return t, nil
}
