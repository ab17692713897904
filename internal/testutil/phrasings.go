package testutil

import (
	"bufio"
	"encoding/json"
	"os"
	"testing"
)

// Phrasing is one line of a file in testdata/adversarial: a phrasing with
// its label (adversarial, benign, ordinary or imperative). The folder's
// README.md gives the format.
type Phrasing struct {
	ID     string `json:"id"`
	Label  string `json:"label"`
	Form   string `json:"form"`
	Source string `json:"source"`
	Text   string `json:"text"`
}

// The files of testdata/adversarial. HeldOut is read only by tests that
// report and assert rates, never by calibration.
const (
	SuiteFile       = "suite.jsonl"
	HeldOutFile     = "heldout.jsonl"
	HeldOut2File    = "heldout2.jsonl"  // written after all tuning had ended
	HeldOut3File    = "heldout3.jsonl"  // committed before the second round of tuning
	HeldOut4File    = "heldout4.jsonl"  // committed before the third round of tuning; tuning data since the fourth
	HeldOut5File    = "heldout5.jsonl"  // committed before the fourth round of tuning; tuning data since its one miss was fixed
	HeldOut6File    = "heldout6.jsonl"  // committed before the fifth part's miss was fixed; tuning data since its misses were fixed
	HeldOut7File    = "heldout7.jsonl"  // committed before the sixth part's misses were fixed; tuning data since its own were
	HeldOut8File    = "heldout8.jsonl"  // committed before the seventh part's misses were fixed; tuning data since its own were
	HeldOut9File    = "heldout9.jsonl"  // committed before the eighth part's misses were fixed
	HeldOut10File   = "heldout10.jsonl" // committed, with the eleventh, before the ninth part's misses were fixed
	HeldOut11File   = "heldout11.jsonl" // committed with the tenth; measures the state after the tenth part's misses are fixed
	HeldOut12File   = "heldout12.jsonl" // committed after the eleventh part's blind run, before its misses were fixed
	HeldOut13File   = "heldout13.jsonl" // committed after the twelfth part's blind run, before its misses were fixed
	HeldOut14File   = "heldout14.jsonl" // committed after the thirteenth part's blind run, before its misses were fixed
	HeldOut15File   = "heldout15.jsonl" // committed after the fourteenth part's blind run, before its misses were fixed
	HeldOut16File   = "heldout16.jsonl" // committed after the fifteenth part's blind run, before its misses were fixed
	HeldOut17File   = "heldout17.jsonl" // committed after the sixteenth part's blind run, before its misses were fixed
	HeldOut18File   = "heldout18.jsonl" // committed before the identity check's weak reading was added
	HeldOut19File   = "heldout19.jsonl" // committed after the eighteenth part's blind run, measuring the same state
	HeldOut20File   = "heldout20.jsonl" // committed before the gate's weak reading was added
	HeldOut21File   = "heldout21.jsonl" // written beside the twentieth part, committed before the same change
	HeldOut22File   = "heldout22.jsonl" // committed before the forms fixed from parts 20 and 21's remaining misses
	HeldOut23File   = "heldout23.jsonl" // written beside the twenty-second part, committed before the same forms
	HeldOut24File   = "heldout24.jsonl" // committed before the gate's word scorer
	HeldOut25File   = "heldout25.jsonl" // written beside the twenty-fourth part, committed before the same change
	HeldOut26File   = "heldout26.jsonl" // committed before the identity check took the scorer and the table learned parts 24 and 25
	HeldOut27File   = "heldout27.jsonl" // written beside the twenty-sixth part, committed before the same change
	ImperativesFile = "imperatives.jsonl"
)

// Phrasings reads one file of testdata/adversarial, refusing a line that is
// not a phrasing with an id, a label and a text.
func Phrasings(t testing.TB, file string) []Phrasing {
	t.Helper()
	var out []Phrasing
	forEachLine(t, inModule(t, "testdata", "adversarial", file), func(n int, line []byte) {
		var p Phrasing
		if err := json.Unmarshal(line, &p); err != nil || p.ID == "" || p.Label == "" || p.Text == "" {
			t.Fatalf("%s line %d: not a phrasing (%v)", file, n, err)
		}
		out = append(out, p)
	})
	return out
}

// forEachLine calls fn with each line of the file at path and its number,
// from 1; a file that cannot be read fails the test.
func forEachLine(t testing.TB, path string, fn func(n int, line []byte)) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64*1024), 1<<20)
	for n := 1; sc.Scan(); n++ {
		fn(n, sc.Bytes())
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
}

// WithLabel returns the phrasings with the given label.
func WithLabel(ps []Phrasing, label string) []Phrasing {
	var out []Phrasing
	for _, p := range ps {
		if p.Label == label {
			out = append(out, p)
		}
	}
	return out
}

// JSONLStrings returns, from each JSON line of the file at path, the first
// of fields that holds a non-empty string; a line with none of them fails
// the test.
func JSONLStrings(t testing.TB, path string, fields ...string) []string {
	t.Helper()
	var out []string
	forEachLine(t, path, func(n int, line []byte) {
		var m map[string]any
		if err := json.Unmarshal(line, &m); err != nil {
			t.Fatalf("%s:%d: %v", path, n, err)
		}
		s := ""
		for _, k := range fields {
			if s, _ = m[k].(string); s != "" {
				break
			}
		}
		if s == "" {
			t.Fatalf("%s:%d: none of %v holds a string", path, n, fields)
		}
		out = append(out, s)
	})
	return out
}
