package vault

import (
	"fmt"
	"math"
	"math/rand"
	"sort"
	"testing"

	"formation/runtime/algebra"
	"formation/runtime/epistemic"
	"formation/runtime/field"
)

func TestRecallOrderAndExactMatch(t *testing.T) {
	var v Vault
	q := field.WordRotor("light")
	words := []string{"lens", "light", "prism", "light", "image"}
	for i, w := range words {
		v.Store(Entry{Versor: field.WordRotor(w), Turn: i, Role: "user"})
	}
	hits := v.Recall(q, 5, "")
	if len(hits) != 5 {
		t.Fatalf("recalled %d", len(hits))
	}
	if !hits[0].Exact || !hits[1].Exact || hits[0].Index != 1 || hits[1].Index != 3 {
		t.Fatalf("exact matches not first in storage order: %+v", hits[:2])
	}
	if math.Abs(hits[0].Score-1) > 1e-12 {
		t.Fatalf("a rotor scores %v against itself, want 1", hits[0].Score)
	}
	for i := 2; i < len(hits); i++ {
		if hits[i].Exact || (i > 2 && hits[i].Score > hits[i-1].Score) {
			t.Fatalf("non-exact hits not in descending score order: %+v", hits)
		}
		if hits[i].Score < -1-1e-12 || hits[i].Score > 1+1e-12 {
			t.Fatalf("score %v outside [-1,1]", hits[i].Score)
		}
	}
	if got := v.Recall(q, 2, ""); len(got) != 2 || got[1].Index != 3 {
		t.Fatalf("top-2 = %+v", got)
	}
	if v.Recall(q, 0, "") != nil {
		t.Fatal("top-0 recalled something")
	}
}

func TestTiesBreakByIndex(t *testing.T) {
	var v Vault
	r, _ := algebra.PlaneRotor(6, 0.4)
	s, _ := algebra.PlaneRotor(7, 0.4) // same score against the identity
	v.Store(Entry{Versor: s})
	v.Store(Entry{Versor: r})
	v.Store(Entry{Versor: s})
	hits := v.Recall(algebra.One(), 3, "")
	for i, h := range hits {
		if h.Index != i {
			t.Fatalf("tie order %v", hits)
		}
	}
}

func TestStatusFilterAndDefault(t *testing.T) {
	var v Vault
	q := field.WordRotor("q")
	v.Store(Entry{Versor: q})
	v.Store(Entry{Versor: q, Status: epistemic.Coherent})
	v.Store(Entry{Versor: q, Status: epistemic.Falsified})
	if e, _ := v.Entry(0); e.Status != epistemic.Speculative {
		t.Fatalf("default status %q", e.Status)
	}
	if got := v.Recall(q, 10, ""); len(got) != 2 {
		t.Fatalf("falsified entry recalled: %+v", got)
	}
	if got := v.Recall(q, 10, epistemic.Coherent); len(got) != 1 || got[0].Index != 1 {
		t.Fatalf("coherent filter: %+v", got)
	}
}

// Recall never rewrites memory: after many stores every entry is still the
// rotor that was stored and still recalls itself exactly.
func TestNoReprojection(t *testing.T) {
	var v Vault
	for i := 0; i < 200; i++ {
		v.Store(Entry{Versor: field.WordRotor(fmt.Sprint(i)), Turn: i})
		v.Recall(field.WordRotor("probe"), 3, "")
	}
	for i := 0; i < 200; i++ {
		q := field.WordRotor(fmt.Sprint(i))
		e, _ := v.Entry(i)
		if e.Versor != q {
			t.Fatalf("entry %d was rewritten", i)
		}
		if h := v.Recall(q, 1, ""); len(h) != 1 || h[0].Index != i || !h[0].Exact {
			t.Fatalf("entry %d no longer recalls itself: %+v", i, h)
		}
	}
}

// recallWhole is Recall as it sorted before: whole hits, entries included.
func recallWhole(v *Vault, q algebra.MV, topK int, min epistemic.Status) []Hit {
	if topK <= 0 {
		return nil
	}
	hits := make([]Hit, 0, len(v.entries))
	for i, e := range v.entries {
		if !epistemic.Passes(e.Status, min) {
			continue
		}
		hits = append(hits, Hit{Index: i, Score: algebra.ScalarProduct(q, e.Versor), Exact: e.Versor == q, Entry: e})
	}
	sort.SliceStable(hits, func(a, b int) bool {
		return before(hitKey{hits[a].Index, hits[a].Score, hits[a].Exact}, hitKey{hits[b].Index, hits[b].Score, hits[b].Exact})
	})
	if len(hits) > topK {
		hits = hits[:topK]
	}
	return hits
}

// TestRecallSortsKeysAsWholeHits holds Recall, which sorts the hits' keys
// and copies the top entries out, equal to sorting whole hits, over vaults
// with exact repeats, tied scores, NaN scores and filtered statuses, longer
// than one insertion-sort block.
func TestRecallSortsKeysAsWholeHits(t *testing.T) {
	rng := rand.New(rand.NewSource(5))
	rotor := func() algebra.MV {
		return field.EncodePrompt([]string{fmt.Sprint("w", rng.Intn(6)), fmt.Sprint("v", rng.Intn(3))})
	}
	statuses := []epistemic.Status{"", epistemic.Speculative, epistemic.Falsified}
	for round := 0; round < 40; round++ {
		var v Vault
		q := rotor()
		for n := rng.Intn(70); n > 0; n-- {
			m := rotor()
			switch rng.Intn(8) {
			case 0:
				m = q
			case 1:
				m[0] = math.NaN()
			}
			v.Store(Entry{Versor: m, Turn: n, Subject: fmt.Sprint("s", n), Status: statuses[rng.Intn(len(statuses))]})
		}
		for _, k := range []int{0, 1, 3, 25, 100} {
			got, want := v.Recall(q, k, ""), recallWhole(&v, q, k, "")
			if len(got) != len(want) {
				t.Fatalf("round %d top %d: %d hits, want %d", round, k, len(got), len(want))
			}
			for i := range got {
				if got[i].Index != want[i].Index || got[i].Exact != want[i].Exact || got[i].Entry.Turn != want[i].Entry.Turn ||
					math.Float64bits(got[i].Score) != math.Float64bits(want[i].Score) {
					t.Fatalf("round %d top %d hit %d: %+v, want %+v", round, k, i, got[i], want[i])
				}
			}
		}
	}
}
