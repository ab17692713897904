package parse

import "testing"

func TestReadDefinition(t *testing.T) {
	for _, tc := range []struct {
		in, term, def string
		ok            bool
	}{
		{"A lens is a curved glass.", "lens", "curved glass", true},
		{"No, a lens is the glass of a camera.", "lens", "the glass of a camera", true},
		{"Actually, focal length is defined as the distance to the focus.", "focal length", "the distance to the focus", true},
		{"Refraction means the bending of light.", "refraction", "the bending of light", true},
		{"An optic nerve cell is a neuron.", "optic nerve cell", "neuron", true},
		{"A lens is not a mirror.", "", "", false},
		{"What is a lens?", "", "", false},
		{"Is a lens a mirror?", "", "", false},
		{"The very long subject of this thing is big.", "", "", false},
		{"A lens is.", "", "", false},
		{"Lenses bend light.", "", "", false},
	} {
		term, def, ok := ReadDefinition(tc.in)
		if ok != tc.ok || term != tc.term || def != tc.def {
			t.Errorf("ReadDefinition(%q) = %q, %q, %v; want %q, %q, %v", tc.in, term, def, ok, tc.term, tc.def, tc.ok)
		}
	}
}

// Parse never reads a definition statement: only a teaching session does.
func TestParseNeverReturnsDefinitionStatements(t *testing.T) {
	g := NewGrammar([]string{"causes"}, nil)
	if u := g.Parse("A lens is a curved glass."); u.Intent != Unknown {
		t.Fatalf("intent %s", u.Intent)
	}
}
