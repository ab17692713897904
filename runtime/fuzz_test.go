package runtime

import (
	"context"
	"reflect"
	"testing"

	"formation/canon"
)

// FuzzTurn: no input makes a turn panic or break the response contract, and
// two fresh sessions answer any input identically.
func FuzzTurn(f *testing.F) {
	for _, s := range mixedInputs {
		f.Add(s)
	}
	f.Add("What does lens belong to?")
	f.Add("light is not not sound")
	fx := newFixture(f, nil, func(c *Config) { c.Sink = nil })
	f.Fuzz(func(t *testing.T, in string) {
		a, errA := fx.rt.NewSession().Turn(context.Background(), in, nil)
		b, errB := fx.rt.NewSession().Turn(context.Background(), in, nil)
		if errA != nil || errB != nil {
			t.Fatalf("turn errors: %v / %v", errA, errB)
		}
		if !reflect.DeepEqual(a, b) {
			t.Fatalf("not deterministic:\n%+v\n%+v", a, b)
		}
		if a.Surface == "" || a.TraceHash == "" || len(a.TraceHash) != 64 {
			t.Fatalf("incomplete response %+v", a)
		}
		if a.Refused() != (a.Kind == KindRefusal) || (a.Refused() && !a.RefusalReason.Valid()) {
			t.Fatalf("refusal contract broken: %+v", a)
		}
		if a.GateFired && (a.Surface != UnknownDomainSurface || a.VaultHits != 0) {
			t.Fatalf("gate contract broken: %+v", a)
		}
		if !a.GateFired && a.Surface != a.ArticulationSurface {
			t.Fatalf("selection policy broken: %+v", a)
		}
		if _, err := canon.Marshal(a); err != nil {
			t.Fatalf("response is not canonical JSON: %v", err)
		}
	})
}
