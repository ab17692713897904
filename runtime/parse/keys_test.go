package parse

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"formation/internal/testutil"
	"formation/runtime/text"
)

// matchesAtJoined is matchesAt as it was first written: each key joined
// into a new string, every form reading its subject and object anew.
func (g *Grammar) matchesAtJoined(t []string, p int) []match {
	var out []match
	for n := 1; n <= g.maxLen && p+n <= len(t); n++ {
		words := t[p : p+n]
		g.collectJoined(&out, t, p, p+n, strings.Join(words, " "), false)
		if n >= 2 && words[1] == "not" {
			g.collectJoined(&out, t, p, p+n, strings.Join(append([]string{words[0]}, words[2:]...), " "), true)
		}
	}
	return out
}

func (g *Grammar) collectJoined(out *[]match, t []string, start, end int, key string, negated bool) {
	for _, f := range g.forms[key] {
		head, neg := t[:start], negated
		if k := len(head); k >= 2 && head[k-1] == "not" && isAux(head[k-2]) {
			head, neg = head[:k-2], true
		} else if k >= 1 && head[k-1] == "not" {
			head, neg = head[:k-1], true
		}
		h, tl := phrase(head), phrase(t[end:])
		if h == "" || tl == "" || h == "not" {
			continue
		}
		m := match{f: f, pos: start, head: h, tail: tl, negated: neg}
		if g.terms != nil {
			if g.terms.HasTerm(h) {
				m.grounding++
			}
			if g.terms.HasTerm(tl) {
				m.grounding++
			}
		}
		*out = append(*out, m)
	}
}

// walkJoined is walk as it was first written: each key joined into a new
// string and the subject read before the forms are looked at.
func (g *Grammar) walkJoined(rest []string, forms map[string][]form) (Utterance, bool) {
	for k := min(g.maxLen, len(rest)-1); k >= 1; k-- {
		fs := forms[strings.Join(rest[len(rest)-k:], " ")]
		subject := phrase(rest[:len(rest)-k])
		if len(fs) == 0 || subject == "" {
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

// parseInputs are the texts the key tests read: the adversarial suite, the
// held-out parts, the real imperatives and statements and questions made up
// over the optics grammar's relations, negated and not.
func parseInputs(t *testing.T) []string {
	in := []string{"light does not cause sound.", "lens does not belong to optics", "What does light not reveal?",
		"the prism is not a lens", "What is light caused by?", "light is not caused by heat", "not not is is a"}
	for _, rel := range []string{"refracts", "reveals", "produces", "has", "causes", "belongs to", "is caused by", "part of",
		"contrasts with", "is a", "focuses"} {
		in = append(in, "light "+rel+" truth.", "What does light "+rel+"?", "the focal point "+rel+" all light",
			"lens does not "+rel+" the prism", "What is light "+rel+"?", "dog "+rel+" not mammal")
	}
	files := []string{testutil.SuiteFile, testutil.ImperativesFile, testutil.HeldOutFile}
	for n := 2; n <= 27; n++ {
		files = append(files, fmt.Sprintf("heldout%d.jsonl", n))
	}
	for _, file := range files {
		for _, p := range testutil.Phrasings(t, file) {
			in = append(in, p.Text)
		}
	}
	return in
}

// TestFormKeysAreJoined holds matchesAt and walk, which write their form
// keys into a buffer and read a subject only where a form is found, equal
// to joining every key and reading every subject, at every position of
// every input's words.
func TestFormKeysAreJoined(t *testing.T) {
	g := opticsGrammar()
	found := 0
	for _, in := range parseInputs(t) {
		words := text.Words(in)
		for p := range words {
			got, want := g.matchesAt(words, p), g.matchesAtJoined(words, p)
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("%q at %d: matchesAt %+v, joined %+v", in, p, got, want)
			}
			found += len(got)
			for _, forms := range []map[string][]form{g.forms, g.passive} {
				u, ok := g.walk(words[p:], forms)
				wu, wok := g.walkJoined(words[p:], forms)
				if ok != wok || !reflect.DeepEqual(u, wu) {
					t.Fatalf("%q from %d: walk %+v %v, joined %+v %v", in, p, u, ok, wu, wok)
				}
				if ok {
					found++
				}
			}
		}
	}
	if found == 0 {
		t.Fatal("no form read: the test reaches nothing")
	}
}
