package extracteval

import (
	"context"
	"path/filepath"
	"testing"
)

// setDir is the labelled set's folder.
var setDir = filepath.Join("..", "..", "smelting", "testdata", "realtext")

// TestSetIsWhole checks the labelled set without judging any extractor:
// the labels load and are well formed, every unit is found in its file's
// mined text, and the set is as large as its README says it must be.
func TestSetIsWhole(t *testing.T) {
	set, err := Load(setDir)
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[string]bool{}
	prose, heldOut, relations := 0, 0, 0
	for i := range set.Documents {
		d := &set.Documents[i]
		kinds[d.Kind] = true
		ex, err := Extract(context.Background(), set, d)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := locateAll(d, ex); err != nil {
			t.Error(err)
		}
		for _, u := range d.Units {
			if u.Kind == KindProse {
				prose++
				if u.HeldOut() {
					heldOut++
				}
			}
			relations += len(u.Relations)
		}
	}
	if len(set.Documents) < 5 || len(kinds) < 2 {
		t.Errorf("%d documents of %d kinds: want at least 5 of 2", len(set.Documents), len(kinds))
	}
	if prose < 400 || heldOut < 100 {
		t.Errorf("%d prose units, %d held out: want at least 400 and 100", prose, heldOut)
	}
	if relations == 0 {
		t.Error("no relation is labelled")
	}
}

func TestHeadProblem(t *testing.T) {
	for head, want := range map[string]string{
		"it": "pronoun", "The following": "pronoun", "this": "pronoun",
		"if the buffer": "clause", "when a context is canceled": "clause", "for example the list": "clause", "however x": "clause",
		"a[x]": "code", "// comment": "code", "f()": "code", "--keep": "code", "~/.ssh/known_hosts": "code",
		"x":            "single letter",
		"context type": "", "ffi_cif": "", "pip's caching behaviour": "", "node:querystring module": "", "thistle": "", "iffy claim": "",
	} {
		if got := HeadProblem(head); got != want {
			t.Errorf("HeadProblem(%q) = %q, want %q", head, got, want)
		}
	}
}
