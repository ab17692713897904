package forge

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"testing"

	"formation/artifact"
	"formation/relparse"
)

// FuzzValidate feeds arbitrary candidate JSON to the Forge: it must never
// panic, must give byte-identical results for the same input and for the
// same input in another order, and must account for every candidate (in the
// set, in the quarantine, or in a finding). The seed corpus lives in
// testdata/fuzz/FuzzValidate.
func FuzzValidate(f *testing.F) {
	fx := newFixture(f)
	fx.cite(primarySHA, "Lens has focus.") // one stored text for ranged citations to hit
	// A declared vocabulary and a curator exclusion, so that their paths are
	// fuzzed too: "Light is energy." as a sentence, and the first bytes of
	// the stored text.
	fx.cfg.Relations = []string{"defines", "is_part_of"}
	head := fx.cite(primarySHA, "Light is energy.")
	sum := sha256.Sum256([]byte("Light is energy."))
	excl, err := fx.cfg.Allowlist.Exclude(Exclusion{SentenceSHA: hex.EncodeToString(sum[:]), Reason: "fuzz"})
	if err == nil {
		excl, err = excl.Exclude(Exclusion{TextSHA: head.TextSHA, Start: ptr(0), End: ptr(30), Reason: "fuzz"})
	}
	if err != nil {
		f.Fatal(err)
	}
	fx.cfg.Allowlist = excl
	f.Fuzz(func(t *testing.T, data []byte) {
		b, err := artifact.Decode[artifact.SmeltedBundle](data)
		if err != nil {
			return
		}
		res, err := Validate(t.Context(), fx.cfg, "fuzz", b)
		if err != nil {
			t.Fatalf("Validate refused a decoded bundle: %v", err)
		}
		first := encodeResult(t, res)
		again, err := Validate(t.Context(), fx.cfg, "fuzz", permuted(b, 1))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(first, encodeResult(t, again)) {
			t.Fatalf("order changed the result:\n%s\n%s", first, encodeResult(t, again))
		}
		checkInvariants(t, b, res, fx.cfg.Relations)
	})
}

func checkInvariants(t *testing.T, in artifact.SmeltedBundle, res Result, declared []string) {
	t.Helper()
	vocab, err := relparse.NewVocabulary(declared)
	if err != nil {
		t.Fatal(err)
	}
	denied := map[artifact.Triple]bool{}
	for _, c := range res.VTS.Counters {
		denied[c.Triple()] = true
	}
	for _, c := range res.VTS.Relations {
		if denied[c.Triple()] {
			t.Fatalf("%v validated both as a relation and as a counter-claim", c.Triple())
		}
	}
	accounted := map[string]bool{}
	for _, fd := range res.Findings {
		accounted[fd.Kind+fd.Key] = true
	}
	for _, c := range res.VTS.Relations {
		if c.State != artifact.StateValidated || c.RejectionReason != "" || len(c.Sources) == 0 {
			t.Fatalf("bad validated relation %+v", c)
		}
		accounted[KindRelation+tripleKey(c.Triple())] = true
	}
	for _, c := range res.VTS.Quarantined {
		if c.State != artifact.StateQuarantined || c.RejectionReason == "" || !accounted[KindRelation+tripleKey(c.Triple())] {
			t.Fatalf("quarantined relation without state, reason or finding: %+v", c)
		}
	}
	for _, c := range res.VTS.Counters {
		accounted[KindCounter+tripleKey(c.Triple())] = true
	}
	for _, c := range res.VTS.Concepts {
		accounted[KindConcept+keyJSON(c.CanonicalTerm, c.Definition)] = true
	}
	for _, h := range res.VTS.OrderingHints {
		accounted[KindOrderingHint+keyJSON(h.Before, h.After)] = true
	}
	for _, list := range []struct {
		kind string
		cs   []artifact.RelationCandidate
	}{{KindRelation, in.Relations}, {KindCounter, in.Counters}} {
		for _, c := range list.cs {
			k, _ := newTyping(vocab).wellTyped(c)
			if !accounted[list.kind+tripleKey(k)] {
				t.Fatalf("%s %q vanished without a finding", list.kind, c.Triple())
			}
		}
	}
	for _, c := range in.Concepts {
		term, _ := newTyping(vocab).wellFormedConcept(c)
		if !accounted[KindConcept+keyJSON(term, c.Definition)] {
			t.Fatalf("concept %q vanished without a finding", c.CanonicalTerm)
		}
	}
	for _, h := range in.OrderingHints {
		before, after, _ := wellFormedHint(h)
		if !accounted[KindOrderingHint+keyJSON(before, after)] {
			t.Fatalf("hint %q>%q vanished without a finding", h.Before, h.After)
		}
	}
}
