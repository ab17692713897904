package parse

import (
	"reflect"
	"testing"
)

type termSet map[string]bool

func (s termSet) HasTerm(t string) bool { return s[t] }

var opticsTerms = termSet{"light": true, "lens": true, "truth": true, "image": true, "focal point": true,
	"refraction": true, "dispersion": true, "prism": true, "sound": true, "optics": true, "wheel": true, "car": true,
	"all light": true, "heat": true, "dog": true, "mammal": true}

func opticsGrammar() *Grammar {
	return NewGrammar([]string{"refracts", "reveals", "produces", "has", "causes", "grounds", "focuses",
		"reflects", "is", "belongs_to", "is_caused_by", "part_of", "contrasts_with", "is_a"}, opticsTerms)
}

func TestParse(t *testing.T) {
	g := opticsGrammar()
	cases := []struct {
		in   string
		want Utterance
	}{
		{"What is light?", Utterance{Intent: Definition, Subject: "light", Question: true}},
		{"what's the focal point", Utterance{Intent: Definition, Subject: "focal point", Question: true}},
		{"Define refraction.", Utterance{Intent: Definition, Subject: "refraction", Question: true}},
		{"Tell me about a prism", Utterance{Intent: Definition, Subject: "prism", Question: true}},
		{"What does light reveal?", Utterance{Intent: Walk, Subject: "light", Relation: "reveals", Question: true}},
		{"What does light reveals?", Utterance{Intent: Walk, Subject: "light", Relation: "reveals", Question: true}},
		{"What does the lens focus?", Utterance{Intent: Walk, Subject: "lens", Relation: "focuses", Question: true}},
		{"What does wheel part of?", Utterance{Intent: Walk, Subject: "wheel", Relation: "part_of", Question: true}},
		{"What does lens belong to?", Utterance{Intent: Walk, Subject: "lens", Relation: "belongs_to", Question: true}},
		{"What is light caused by?", Utterance{Intent: Walk, Subject: "light", Relation: "is_caused_by", Question: true}},
		{"What does dog is a?", Utterance{Intent: Walk, Subject: "dog", Relation: "is_a", Question: true}},
		{"light reveals truth.", Utterance{Intent: Statement, Subject: "light", Relation: "reveals", Object: "truth"}},
		{"Lens belongs to optics.", Utterance{Intent: Statement, Subject: "lens", Relation: "belongs_to", Object: "optics"}},
		{"Lens belongs_to optics", Utterance{Intent: Statement, Subject: "lens", Relation: "belongs_to", Object: "optics"}},
		{"The lens has a focal point.", Utterance{Intent: Statement, Subject: "lens", Relation: "has", Object: "focal point"}},
		{"Actually, light reveals truth.", Utterance{Intent: Statement, Subject: "light", Relation: "reveals", Object: "truth"}},
		{"In fact prism causes dispersion", Utterance{Intent: Statement, Subject: "prism", Relation: "causes", Object: "dispersion"}},
		{"Light does not cause sound.", Utterance{Intent: Statement, Subject: "light", Relation: "causes", Object: "sound", Negated: true}},
		{"Light doesn't cause sound.", Utterance{Intent: Statement, Subject: "light", Relation: "causes", Object: "sound", Negated: true}},
		{"light is not sound", Utterance{Intent: Statement, Subject: "light", Relation: "is", Object: "sound", Negated: true}},
		{"light isn't sound", Utterance{Intent: Statement, Subject: "light", Relation: "is", Object: "sound", Negated: true}},
		{"light is sound.", Utterance{Intent: Statement, Subject: "light", Relation: "is", Object: "sound"}},
		{"dog is a mammal.", Utterance{Intent: Statement, Subject: "dog", Relation: "is_a", Object: "mammal"}},
		{"wheel part of car.", Utterance{Intent: Statement, Subject: "wheel", Relation: "part_of", Object: "car"}},
		{"light is caused by heat", Utterance{Intent: Statement, Subject: "light", Relation: "is_caused_by", Object: "heat"}},
		{"lens reflects all light.", Utterance{Intent: Statement, Subject: "lens", Relation: "reflects", Object: "all light"}},
		{"Does prism cause dispersion?", Utterance{Intent: Statement, Subject: "prism", Relation: "causes", Object: "dispersion", Question: true}},
		{"Hello there.", Utterance{Intent: Unknown}},
		{"What does light eat?", Utterance{Intent: Unknown, Question: true}},
		{"Why is the sky blue?", Utterance{Intent: Unknown, Question: true}},
		{"  ?!. ", Utterance{Intent: Empty}},
	}
	for _, c := range cases {
		got := g.Parse(c.in)
		got.Tokens = nil
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("Parse(%q) =\n  %+v\nwant\n  %+v", c.in, got, c.want)
		}
	}
}

// Subjects and objects come out in text.NormalTerm's form: names with
// brackets or dots stay whole (an "a" glued to a bracket is no article),
// possessives are dropped, punctuation around words goes.
func TestSidesAreNormalTerms(t *testing.T) {
	g := NewGrammar([]string{"is", "has", "belongs_to", "defines"}, termSet{"a[x]": true, "go scheduler": true})
	cases := []struct {
		in   string
		want Utterance
	}{
		{"a[x] is the element x of a.", Utterance{Intent: Statement, Subject: "a[x]", Relation: "is", Object: "element x of a"}},
		{"What is a[x]?", Utterance{Intent: Definition, Subject: "a[x]", Question: true}},
		{"Go's scheduler has a run queue.", Utterance{Intent: Statement, Subject: "go scheduler", Relation: "has", Object: "run queue"}},
		{"What is Go's scheduler?", Utterance{Intent: Definition, Subject: "go scheduler", Question: true}},
		{"Package strings defines the Builder type.", Utterance{Intent: Statement, Subject: "package strings", Relation: "defines", Object: "builder type"}},
		{"(node.js) is a runtime", Utterance{Intent: Statement, Subject: "node.js", Relation: "is", Object: "runtime"}},
		{"no_identity_override belongs_to safety", Utterance{Intent: Statement, Subject: "no_identity_override", Relation: "belongs_to", Object: "safety"}},
	}
	for _, c := range cases {
		got := g.Parse(c.in)
		got.Tokens = nil
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("Parse(%q) =\n  %+v\nwant\n  %+v", c.in, got, c.want)
		}
	}
}

// A statement is read where both sides are known terms, even when another
// relation word occurs earlier.
func TestGroundedReadingWins(t *testing.T) {
	g := NewGrammar([]string{"is", "causes"}, termSet{"heat is rising": false, "friction": true, "heat": true})
	u := g.Parse("friction causes heat")
	if u.Subject != "friction" || u.Relation != "causes" || u.Object != "heat" {
		t.Fatalf("%+v", u)
	}
	g = NewGrammar([]string{"is", "causes"}, termSet{"what friction is": true, "heat": true})
	if u := g.Parse("what friction is causes heat"); u.Intent != Unknown {
		t.Fatalf("wh-question read as a statement: %+v", u)
	}
}

// Relations come from the knowledge: a grammar without "causes" does not read it.
func TestNoFixedVerbList(t *testing.T) {
	g := NewGrammar([]string{"orbits"}, termSet{"moon": true, "earth": true})
	if u := g.Parse("moon orbits earth"); u.Intent != Statement || u.Relation != "orbits" {
		t.Fatalf("%+v", u)
	}
	if u := g.Parse("What does the moon orbit?"); u.Intent != Walk || u.Subject != "moon" || u.Relation != "orbits" {
		t.Fatalf("%+v", u)
	}
	if u := g.Parse("moon causes tides"); u.Intent != Unknown {
		t.Fatalf("a relation outside the knowledge was read: %+v", u)
	}
}

func TestTokensAreTheFilteredInput(t *testing.T) {
	u := opticsGrammar().Parse("Light doesn't cause Sound!")
	if want := []string{"light", "does", "not", "cause", "sound"}; !reflect.DeepEqual(u.Tokens, want) {
		t.Fatalf("tokens %q", u.Tokens)
	}
}

func BenchmarkParseStatement(b *testing.B) {
	g := opticsGrammar()
	for i := 0; i < b.N; i++ {
		g.Parse("Actually, the lens does not belong to optics.")
	}
}
