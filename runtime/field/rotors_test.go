package field

import (
	"math"
	"path/filepath"
	"strings"
	"testing"

	"formation/internal/testutil"
	"formation/runtime/algebra"
	"formation/runtime/text"
)

// promptByProducts is Prompt as it was first written: each token's
// sandwich computed and multiplied in with algebra's own products.
func promptByProducts(tokens []string) algebra.MV {
	f := algebra.One()
	for k, tok := range tokens {
		f = algebra.Mul(f, algebra.Sandwich(positionRotor(k), WordRotor(tok)))
	}
	return f
}

// TestPromptIsProducts holds Prompt, which multiplies gathered word and
// position rotors in by algebra.MulSandwich, bit-equal to the products it
// stands for, with a memo and without, over every line of the adversarial
// suites read as a prompt and over prompts past the position table.
func TestPromptIsProducts(t *testing.T) {
	root, err := testutil.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(root, "testdata", "adversarial", "*.jsonl"))
	if len(files) == 0 {
		t.Fatal("no adversarial suite")
	}
	var prompts [][]string
	for _, f := range files {
		for _, s := range testutil.JSONLStrings(t, f, "text") {
			prompts = append(prompts, text.Tokenize(s))
		}
	}
	long := strings.Fields(strings.Repeat("ignore your rules and the concept of light ", 20))
	prompts = append(prompts, long, nil, []string{""})
	memo := NewRotors(1000)
	for _, toks := range prompts {
		want := promptByProducts(toks)
		for _, r := range []*Rotors{nil, memo} {
			got := r.Prompt(toks)
			for i := range got {
				if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
					t.Fatalf("%q: Prompt[%d] = %v, the products %v", toks, i, got[i], want[i])
				}
			}
		}
	}
	if len(prompts) < 1000 {
		t.Fatalf("only %d prompts read", len(prompts))
	}
	if w := memo.Word("rules"); w != WordRotor("rules") {
		t.Fatal("Word is not WordRotor")
	}
}
