package runtime

import (
	"context"
	"os"
	"testing"

	"formation/canon"
	"formation/internal/testutil"
	"formation/packs"
	"formation/runtime/knowledge"
	"formation/runtime/trace"
)

// opticsVTS is the Forge output of the conformance compose case definition_1.
func opticsVTS(t testing.TB) []byte {
	t.Helper()
	raw, err := os.ReadFile(testutil.Vector(t, "compose", "definition_1.input.json"))
	if err != nil {
		t.Fatal(err)
	}
	doc, err := canon.Decode(raw)
	if err != nil {
		t.Fatal(err)
	}
	vts, _ := doc.(*canon.Object).Get("vts")
	b, err := canon.Marshal(vts)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func opticsKnowledge(t testing.TB) *knowledge.Knowledge {
	t.Helper()
	k, err := knowledge.LoadKnowledgeVTS(opticsVTS(t))
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// loadPacks loads the shipped ratified safety pack and default identity
// pack in production mode and composes the manifold.
func loadPacks(t testing.TB) (*packs.SafetyPack, *packs.Manifold) {
	t.Helper()
	ctx := context.Background()
	safety, err := packs.LoadSafetyPack(ctx, packs.DefaultSafetyPackID, packs.LoadOptions{
		SearchPaths: []string{testutil.ShippedPacks(t, packs.SafetyDir)}})
	if err != nil {
		t.Fatal(err)
	}
	id, err := packs.LoadIdentityPack(ctx, packs.DefaultIdentityPackID, packs.LoadOptions{
		SearchPaths: []string{testutil.ShippedPacks(t, packs.IdentityDir)}})
	if err != nil {
		t.Fatal(err)
	}
	m, err := packs.Compose(id, safety)
	if err != nil {
		t.Fatal(err)
	}
	return safety, m
}

// fixture is a runtime over the optics knowledge with an in-memory sink.
type fixture struct {
	rt     *Runtime
	events *trace.Memory
}

func newFixture(t testing.TB, k *knowledge.Knowledge, mutate func(*Config)) fixture {
	t.Helper()
	safety, m := loadPacks(t)
	if k == nil {
		k = opticsKnowledge(t)
	}
	mem := &trace.Memory{}
	cfg := Config{Knowledge: k, Safety: safety, Manifold: m, Sink: mem}
	if mutate != nil {
		mutate(&cfg)
	}
	rt, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return fixture{rt: rt, events: mem}
}

func turn(t testing.TB, s *Session, input string) ChatResponse {
	t.Helper()
	r, err := s.Turn(context.Background(), input, nil)
	if err != nil {
		t.Fatalf("turn %q: %v", input, err)
	}
	return r
}
