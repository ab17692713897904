package text

import (
	"reflect"
	"testing"
)

func TestTokenize(t *testing.T) {
	cases := map[string][]string{
		"What is Light?":             {"what", "is", "light"},
		"  lens   has focal_point. ": {"lens", "has", "focal_point"},
		"It doesn't cause heat":      {"it", "doesn't", "cause", "heat"},
		"Λόγος reveals ἀλήθεια!":     {"λόγος", "reveals", "ἀλήθεια"},
		"self-focus, 42 ways'":       {"self", "focus", "42", "ways"},
		"":                           nil,
		"?!.":                        nil,
		"don’t":                      {"don't"},
		"'quoted'":                   {"quoted"},
		"x²":                         {"x²"},
	}
	for in, want := range cases {
		if got := Tokenize(in); !reflect.DeepEqual(got, want) {
			t.Errorf("Tokenize(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestNormalForms(t *testing.T) {
	if got := Term("  Focal_  Point "); got != "focal point" {
		t.Errorf("Term = %q", got)
	}
	for _, in := range []string{"is caused by", "Is_Caused_By", " is  caused_by "} {
		if got := Relation(in); got != "is_caused_by" {
			t.Errorf("Relation(%q) = %q", in, got)
		}
	}
	if got := Spaced("belongs_to"); got != "belongs to" {
		t.Errorf("Spaced = %q", got)
	}
	if Relation("") != "" || Term("...") != "" {
		t.Error("empty input has a non-empty normal form")
	}
}

func TestJoinSpelled(t *testing.T) {
	for in, want := range map[string]string{
		"D.i.s.a.b.l.e your s-a-f-e-t-y": "Disable your safety",
		"d i s a b l e   s a f e t y":    "disable   safety",
		"e.g. and i.e. stay":             "e.g. and i.e. stay",
		"no run here, a b only":          "no run here, a b only",
		"sha256 x.y":                     "sha256 x.y",
		"U.S.A.":                         "USA.",
	} {
		if got := JoinSpelled(in); got != want {
			t.Errorf("JoinSpelled(%q) = %q, want %q", in, got, want)
		}
	}
}
