package override

import "testing"

// TestRespeltHoldsEveryRespelling holds normalize's shortcut exact: it asks
// slang, bareContractions and misspelt about a token only when respelt
// holds it, so respelt must hold every key of the three (a token it turned
// away is one the maps would have left as it is).
func TestRespeltHoldsEveryRespelling(t *testing.T) {
	for name, keys := range map[string][]string{"slang": keysOf(slang), "bareContractions": keysOf(bareContractions),
		"misspelt": keysOf(misspelt)} {
		if len(keys) == 0 {
			t.Fatalf("%s is empty", name)
		}
		for _, k := range keys {
			if !respelt.Has(k) {
				t.Errorf("respelt lacks %s's %q", name, k)
			}
		}
	}
}

func keysOf[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}
