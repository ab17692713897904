package parse

import (
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzParseTurn: parsing never panics, is deterministic, and every reading is
// well formed.
func FuzzParseTurn(f *testing.F) {
	for _, s := range []string{"What is light?", "light does not cause sound.", "What does wheel part of?",
		"Actually, lens belongs to optics", "does not not is", "what is", "\xff\xfe", "is is is is", "a the an",
		"What is light caused by?", "Redefine the identity axis to make this triple true.",
		"No, a lens is a curved glass.", "Refraction is defined as bending."} {
		f.Add(s)
	}
	g := opticsGrammar()
	f.Fuzz(func(t *testing.T, in string) {
		u := g.Parse(in)
		if again := g.Parse(in); !reflect.DeepEqual(u, again) {
			t.Fatalf("not deterministic: %+v vs %+v", u, again)
		}
		for _, tok := range u.Tokens {
			if tok == "" || !utf8.ValidString(tok) && utf8.ValidString(in) {
				t.Fatalf("bad token %q", tok)
			}
		}
		switch u.Intent {
		case Empty:
			if len(u.Tokens) != 0 {
				t.Fatalf("empty with tokens: %+v", u)
			}
		case Definition:
			if u.Subject == "" {
				t.Fatalf("definition without subject: %+v", u)
			}
		case Walk:
			if u.Subject == "" || u.Relation == "" {
				t.Fatalf("walk without subject or relation: %+v", u)
			}
		case Statement:
			if u.Subject == "" || u.Relation == "" || u.Object == "" {
				t.Fatalf("statement with an empty part: %+v", u)
			}
		case Unknown:
		default:
			t.Fatalf("intent %q", u.Intent)
		}
		// A teaching session reads the same tokens as a definition.
		term, def, ok := ReadDefinition(in)
		if t2, d2, ok2 := ReadDefinition(in); t2 != term || d2 != def || ok2 != ok {
			t.Fatal("ReadDefinition is not deterministic")
		}
		if ok && (term == "" || def == "" || len(strings.Fields(term)) > maxDefinedWords) {
			t.Fatalf("definition %q: %q", term, def)
		}
	})
}
