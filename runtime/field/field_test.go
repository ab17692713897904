package field

import (
	"errors"
	"fmt"
	"math"
	"testing"

	"formation/runtime/algebra"
	"formation/runtime/text"
)

// evenEuclidean lists the blades a product of Euclidean-plane rotors can
// occupy: the scalar, the six planes and e1234.
var evenEuclidean = map[int]bool{0: true, 6: true, 7: true, 8: true, 10: true, 11: true, 13: true, 26: true}

func TestEveryWordRotorIsExact(t *testing.T) {
	worst := 0.0
	seen := map[algebra.MV]string{}
	words := []string{"", "light", "Light", "λόγος", "דבר", "focal point", "belongs_to", "😀", "a\x00b"}
	for i := 0; i < 5000; i++ {
		words = append(words, fmt.Sprintf("w%d", i), fmt.Sprintf("term-%x", i*7919))
	}
	for _, w := range words {
		r := WordRotor(w)
		vc := algebra.VersorCondition(r)
		worst = math.Max(worst, vc)
		for i, c := range r {
			if c != 0 && !evenEuclidean[i] {
				t.Fatalf("word %q has a component on blade %s", w, algebra.BladeName(i))
			}
		}
		if other, dup := seen[r]; dup {
			t.Fatalf("words %q and %q share a rotor", w, other)
		}
		seen[r] = w
		if WordRotor(w) != r {
			t.Fatalf("word %q embeds differently twice", w)
		}
	}
	if worst >= 1e-12 {
		t.Fatalf("worst word-rotor versor condition %g ≥ 1e-12", worst)
	}
	t.Logf("%d words, worst versor condition %.3e", len(words), worst)
}

func TestPromptEncodingIsExactAndOrdered(t *testing.T) {
	worst := 0.0
	for n := 0; n <= 64; n++ {
		toks := make([]string, n)
		for i := range toks {
			toks[i] = fmt.Sprintf("tok%d", (i*31+n)%17)
		}
		worst = math.Max(worst, algebra.VersorCondition(EncodePrompt(toks)))
	}
	if worst >= 1e-12 {
		t.Fatalf("worst prompt versor condition %g", worst)
	}
	if EncodePrompt(nil) != algebra.One() {
		t.Error("empty prompt is not the identity")
	}
	if EncodePrompt([]string{"light", "reveals"}) == EncodePrompt([]string{"reveals", "light"}) {
		t.Error("prompt encoding ignores word order")
	}
	if TermRotor("Focal  Point") != EncodePrompt([]string{"focal", "point"}) {
		t.Error("term rotor differs from the prompt of its tokens")
	}
}

func TestFieldStaysClosedOverManyTurns(t *testing.T) {
	f := New(nil)
	worst := 0.0
	for turn := 0; turn < 2000; turn++ {
		step, err := f.Advance([]string{"turn", fmt.Sprint(turn), "light"})
		if err != nil {
			t.Fatalf("turn %d: %v", turn, err)
		}
		if step.Turn != turn {
			t.Fatalf("step turn %d, want %d", step.Turn, turn)
		}
		state, ok := f.State()
		if !ok || state != step.State || step.Condition != algebra.VersorCondition(state) {
			t.Fatalf("turn %d: committed state does not match the step", turn)
		}
		worst = math.Max(worst, step.Condition)
	}
	// Rounding error grows linearly (about 1e-15 per turn), so 2000 turns stay
	// six orders of magnitude inside the bound. Exponential growth (the wrong
	// conjugation direction) would pass 1e-6 within 30 turns.
	if worst >= 1e-10 {
		t.Fatalf("field drifted to %g over 2000 turns", worst)
	}
	t.Logf("2000 turns, worst versor condition %.3e", worst)
}

func TestFirstTurnStateIsThePrompt(t *testing.T) {
	f := New(nil)
	toks := []string{"what", "is", "light"}
	step, err := f.Advance(toks)
	if err != nil {
		t.Fatal(err)
	}
	if step.State != EncodePrompt(toks) {
		t.Fatal("first state is not the prompt rotor")
	}
	step2, err := f.Advance([]string{"again"})
	if err != nil {
		t.Fatal(err)
	}
	want := algebra.Sandwich(EncodePrompt([]string{"again"}), step.State)
	if step2.Flipped {
		want = algebra.Neg(want)
	}
	if step2.State != want {
		t.Fatal("second state is not P·F·~P")
	}
	if algebra.ScalarProduct(step2.State, step.State) < 0 {
		t.Fatal("hemisphere rule left the state opposite the anchor")
	}
}

// A drifting operator must produce a typed error, leave the last good state
// committed (nothing replaced or repaired) and halt the field.
func TestDriftingOperatorHalts(t *testing.T) {
	calls := 0
	op := func(tr Transition) algebra.MV {
		calls++
		if calls == 3 {
			return algebra.Scale(Conjugate(tr), 1+1e-3)
		}
		return Conjugate(tr)
	}
	f := New(op)
	var good algebra.MV
	for i := 0; i < 2; i++ {
		s, err := f.Advance([]string{"ok", fmt.Sprint(i)})
		if err != nil {
			t.Fatal(err)
		}
		good = s.State
	}
	step, err := f.Advance([]string{"drift"})
	var ce *ClosureError
	if !errors.As(err, &ce) {
		t.Fatalf("drift returned %v, want *ClosureError", err)
	}
	if ce.Turn != 2 || ce.Condition < 1e-6 || step.Condition != ce.Condition {
		t.Fatalf("closure error %+v, step condition %g", ce, step.Condition)
	}
	if math.Abs(ce.Condition-(2e-3+1e-6)) > 1e-9 {
		t.Fatalf("measured condition %g, want about 2.001e-3", ce.Condition)
	}
	if state, _ := f.State(); state != good {
		t.Fatal("the drifted state replaced the committed one")
	}
	if f.Halted() != ce {
		t.Fatal("field does not report the halt")
	}
	_, err = f.Advance([]string{"after"})
	var he *HaltedError
	if !errors.As(err, &he) || he.HaltedAt != 2 || he.Turn != 3 {
		t.Fatalf("turn after halt returned %v", err)
	}
	if calls != 3 {
		t.Fatalf("operator ran %d times; a halted field must not run it again", calls)
	}
}

func TestNonFiniteStateIsRefused(t *testing.T) {
	f := New(func(tr Transition) algebra.MV {
		tr.Prompt[0] = math.NaN()
		return tr.Prompt
	})
	_, err := f.Advance([]string{"x"})
	var ce *ClosureError
	if !errors.As(err, &ce) {
		t.Fatalf("NaN state returned %v", err)
	}
}

func BenchmarkEncodePrompt(b *testing.B) {
	toks := text.Tokenize("What does refraction cause in a glass prism?")
	for i := 0; i < b.N; i++ {
		EncodePrompt(toks)
	}
}

// TestPositionRotorTable holds the table of the first positions' rotors
// equal to computing them, and the positions past it computed.
func TestPositionRotorTable(t *testing.T) {
	for k := 0; k < len(positionRotors)+10; k++ {
		if got, want := positionRotor(k), computePositionRotor(k); got != want {
			t.Fatalf("position %d: %v, computed %v", k, got, want)
		}
	}
}
