package forge

import (
	"fmt"
	"strings"
	"testing"

	"formation/artifact"
	"formation/relparse"
)

// TestTypeAllIsOneTyping holds R1 typed in parts side by side equal to one
// typing reading the batch in order, on a batch large enough to be shared
// out and mixing every way a candidate passes or fails R1: compound and
// declared relations, unknown relations, case and spacing a user would
// not type, articles, possessives, predicates hiding in a term, empty
// parts.
func TestTypeAllIsOneTyping(t *testing.T) {
	vocab, err := relparse.NewVocabulary([]string{"orbits", "is_made_of"})
	if err != nil {
		t.Fatal(err)
	}
	shapes := [][3]string{
		{"lens%d", "belongs_to", "optics"}, {"The Lens%d", "causes", "glare"}, {"lens%d", "is", "a mirror causes heat"},
		{"moon%d", "orbits", "earth"}, {"wall%d", "is_made_of", "brick"}, {"x%d", "flies_over", "y"},
		{"lens%d's rim", "grounds", "frame"}, {"  lens%d ", "means", "glass."}, {"", "causes", "heat%d"},
		{"heat%d", "causes", "_"}, {"what lens%d", "reveals", "the truth"}, {"Light%d", "is_caused_by", "Sun"},
	}
	numbered := func(s string, i int) string {
		if strings.Contains(s, "%d") {
			return fmt.Sprintf(s, i)
		}
		return s
	}
	var cs []artifact.RelationCandidate
	for i := range 3 * parallelTyping {
		s := shapes[i%len(shapes)]
		cs = append(cs, artifact.RelationCandidate{Head: numbered(s[0], i), Relation: s[1], Tail: numbered(s[2], i)})
	}
	got := typeAll(newTyping(vocab), cs, (*typing).wellTyped)
	one := newTyping(vocab)
	want := make([]typed[artifact.Triple], len(cs))
	for i, c := range cs {
		want[i].norm, want[i].why = one.wellTyped(c)
	}
	failed := 0
	for i := range cs {
		if got[i] != want[i] {
			t.Fatalf("candidate %d %+v: in parts %+v, in one %+v", i, cs[i], got[i], want[i])
		}
		if want[i].why != "" {
			failed++
		}
	}
	if failed == 0 || failed == len(cs) {
		t.Fatalf("%d of %d candidates fail R1: the batch does not mix both", failed, len(cs))
	}
}

// TestTypeAllConceptsIsOneTyping is the same for concepts.
func TestTypeAllConceptsIsOneTyping(t *testing.T) {
	vocab, err := relparse.NewVocabulary(nil)
	if err != nil {
		t.Fatal(err)
	}
	terms := []string{"lens%d", "The Lens%d", "lens%d's rim", "what lens%d", "_", "  lens%d ", "light%d causes heat", "Prism%d."}
	var cs []artifact.ConceptCandidate
	for i := range 3 * parallelTyping {
		term := terms[i%len(terms)]
		if strings.Contains(term, "%d") {
			term = fmt.Sprintf(term, i)
		}
		def := "a curved glass"
		if i%5 == 0 {
			def = "  "
		}
		cs = append(cs, artifact.ConceptCandidate{CanonicalTerm: term, Definition: def})
	}
	got := typeAll(newTyping(vocab), cs, (*typing).wellFormedConcept)
	one := newTyping(vocab)
	failed := 0
	for i, c := range cs {
		term, why := one.wellFormedConcept(c)
		if got[i].norm != term || got[i].why != why {
			t.Fatalf("concept %d %+v: in parts %+v, in one %q %q", i, c, got[i], term, why)
		}
		if why != "" {
			failed++
		}
	}
	if failed == 0 || failed == len(cs) {
		t.Fatalf("%d of %d concepts fail R1: the batch does not mix both", failed, len(cs))
	}
}
