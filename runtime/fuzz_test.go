package runtime

import (
	"context"
	"reflect"
	"sync"
	"testing"

	"formation/canon"
	"formation/runtime/review/override"
)

// FuzzTurn: no input makes a turn panic or break the response contract, and
// two fresh sessions, and a session reset after every earlier input, answer
// any input identically.
func FuzzTurn(f *testing.F) {
	for _, s := range mixedInputs {
		f.Add(s)
	}
	f.Add("What does lens belong to?")
	f.Add("light is not not sound")
	fx := newFixture(f, nil, func(c *Config) { c.Sink = nil })
	var mu sync.Mutex
	reused := fx.rt.NewSession()
	f.Fuzz(func(t *testing.T, in string) {
		a, errA := fx.rt.NewSession().Turn(context.Background(), in, nil)
		b, errB := fx.rt.NewSession().Turn(context.Background(), in, nil)
		if errA != nil || errB != nil {
			t.Fatalf("turn errors: %v / %v", errA, errB)
		}
		if !reflect.DeepEqual(a, b) {
			t.Fatalf("not deterministic:\n%+v\n%+v", a, b)
		}
		mu.Lock()
		reused.Reset()
		c, errC := reused.Turn(context.Background(), in, nil)
		mu.Unlock()
		if errC != nil || !reflect.DeepEqual(a, c) {
			t.Fatalf("a reset session answers otherwise (%v):\n%+v\n%+v", errC, a, c)
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
		// The turn's shared reading (the gate's signal scans and folded text
		// taken by the identity check) reads as each reader alone.
		var shared override.Lean
		gotOut, wantOut := fx.rt.gate.ReviewLean(in, &shared), fx.rt.gate.ReviewLean(in, nil)
		gotScore, gotErr := fx.rt.geometry.CheckTurnLean(in, nil, &shared)
		wantScore, wantErr := fx.rt.geometry.CheckTurnLean(in, nil, nil)
		if gotOut != wantOut || !reflect.DeepEqual(gotScore, wantScore) || (gotErr == nil) != (wantErr == nil) {
			t.Fatalf("shared reading differs: %+v %+v (%v), alone %+v %+v (%v)", gotOut, gotScore, gotErr, wantOut, wantScore, wantErr)
		}
	})
}
