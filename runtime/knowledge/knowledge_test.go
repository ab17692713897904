package knowledge

import (
	"bytes"
	"errors"
	"math/rand"
	"os"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	"formation/artifact"
	"formation/canon"
	"formation/internal/testutil"
	"formation/runtime/epistemic"
)

const (
	shaA = "a2356efa501019071d7d67f8bda563bf92814cd95ebee952b8ff19cb53a3f805"
	shaB = "090b25582abf11b87a6e218d77ba4cda14f6a3549d7d7e920f05d62b9587c29c"
)

// opticsVTS returns the Forge output of the conformance compose case
// definition_1 as canonical JSON: 5 concepts, 8 relations, 3 counters (one a
// duplicate), 3 quarantined candidates.
func opticsVTS(t *testing.T) []byte {
	t.Helper()
	raw, err := os.ReadFile(testutil.Vector(t, "compose", "definition_1.input.json"))
	if err != nil {
		t.Fatal(err)
	}
	doc, err := canon.Decode(raw)
	if err != nil {
		t.Fatal(err)
	}
	vts, ok := doc.(*canon.Object).Get("vts")
	if !ok {
		t.Fatal("no vts in the compose input")
	}
	b, err := canon.Marshal(vts)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func loadOptics(t *testing.T) *Knowledge {
	t.Helper()
	k, err := LoadKnowledgeVTS(opticsVTS(t))
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func TestLoadVTS(t *testing.T) {
	k := loadOptics(t)
	got := k.Stats()
	want := Stats{Terms: 10, Definitions: 5, Triples: 8, Counters: 2, Relations: 9, Sources: 5}
	if got != want {
		t.Fatalf("stats %+v, want %+v", got, want)
	}
	for _, term := range []string{"light", "Focal Point", "all light", "sound", "dispersion", "truth"} {
		if !k.HasTerm(term) {
			t.Errorf("term %q unknown", term)
		}
	}
	for _, term := range []string{"optics", "self", "mirror", "rainbow", "lenses"} {
		if k.HasTerm(term) {
			t.Errorf("term %q known; it only occurs in quarantined candidates or not at all", term)
		}
	}
	if !k.HasRelation("causes") || !k.HasRelation("reflects") || k.HasRelation("belongs_to") {
		t.Errorf("relations %v", k.Relations())
	}
	defs := k.Definitions("light")
	if len(defs) != 1 || defs[0].Definition != "electromagnetic radiation visible to the human eye" ||
		len(defs[0].Sources) != 1 || defs[0].Sources[0].SourceSHA != shaA || defs[0].Status != epistemic.Speculative {
		t.Fatalf("light: %+v", defs)
	}
	causes := k.Out("prism", "causes")
	if len(causes) != 1 || causes[0].Tail != "dispersion" || len(causes[0].Sources) == 0 {
		t.Fatalf("prism causes: %+v", causes)
	}
	if c, ok := k.Counter(Key{"light", "is", "sound"}); !ok || c.Status != epistemic.Speculative {
		t.Fatalf("counter light is sound: %+v %v", c, ok)
	}
	held, counters := k.Mentions("light")
	if len(held) != 4 || len(counters) != 1 || held[0].Key() != (Key{"lens", "focuses", "light"}) {
		t.Errorf("mentions of light: %v / %v", held, counters)
	}
	if k.MaxTermWords() != 2 {
		t.Errorf("max term words %d", k.MaxTermWords())
	}
}

func TestLoadVTSRefusesMalformedDocuments(t *testing.T) {
	good := opticsVTS(t)
	cases := map[string][]byte{
		"unknown field": bytes.Replace(good, []byte(`"subject_id"`), []byte(`"extra":1,"subject_id"`), 1),
		"float":         bytes.Replace(good, []byte(`"ordering_hints":[`), []byte(`"ordering_hints":[1.5,`), 1),
		"trailing":      append(append([]byte{}, good...), '}'),
		"quarantined":   bytes.Replace(good, []byte(`"state":"validated"`), []byte(`"state":"quarantined"`), 1),
		"bad sha":       bytes.Replace(good, []byte(shaA), []byte(strings.ToUpper(shaA)), 1),
		"not json":      []byte("subject_id: optics"),
	}
	for name, data := range cases {
		_, err := LoadKnowledgeVTS(data)
		var ke *Error
		if !errors.As(err, &ke) {
			t.Errorf("%s: error %v, want *knowledge.Error", name, err)
		}
	}
}

func TestNormalisationMergeAndOrderIndependence(t *testing.T) {
	cite := func(sha, span string) []Citation { return []Citation{{SourceSHA: sha, Span: span}} }
	concepts := []Concept{
		{Term: "Focal  Point", Definition: "where rays meet", Sources: cite(shaA, "x")},
		{Term: "focal point", Definition: "where rays meet", Sources: cite(shaB, "y")},
		{Term: "focal point", Definition: "a point of convergence", Sources: cite(shaA, "z")},
	}
	triples := []Triple{
		{Head: "Lens", Relation: "Belongs To", Tail: "optics", Sources: cite(shaA, "a")},
		{Head: "lens", Relation: "belongs_to", Tail: "Optics", Sources: cite(shaB, "b"), Status: epistemic.Coherent},
		{Head: "lens", Relation: "has", Tail: "focal point", Sources: cite(shaA, "c"), Status: epistemic.Coherent},
	}
	k, err := NewKnowledge(concepts, triples)
	if err != nil {
		t.Fatal(err)
	}
	defs := k.Definitions("FOCAL POINT")
	if len(defs) != 2 || defs[0].Definition != "a point of convergence" || len(defs[1].Sources) != 2 {
		t.Fatalf("definitions %+v", defs)
	}
	bt, ok := k.Triple(Key{"lens", "belongs_to", "optics"})
	if !ok || len(bt.Sources) != 2 || bt.Status != epistemic.Speculative {
		t.Fatalf("merged triple %+v: a duplicate must unite sources and keep the more doubtful status", bt)
	}
	want := snapshot(t, k)
	rng := rand.New(rand.NewSource(5))
	for i := 0; i < 20; i++ {
		rng.Shuffle(len(concepts), func(a, b int) { concepts[a], concepts[b] = concepts[b], concepts[a] })
		rng.Shuffle(len(triples), func(a, b int) { triples[a], triples[b] = triples[b], triples[a] })
		k2, err := NewKnowledge(concepts, triples)
		if err != nil {
			t.Fatal(err)
		}
		if got := snapshot(t, k2); !bytes.Equal(got, want) {
			t.Fatalf("index depends on input order:\n%s\n%s", got, want)
		}
	}
}

func snapshot(t *testing.T, k *Knowledge) []byte {
	t.Helper()
	b, err := canon.Marshal(map[string]any{
		"triples": k.Triples(), "counters": k.Counters(), "focal": k.Definitions("focal point"),
		"relations": k.Relations(), "sources": k.SourceSHAs(),
	})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestNewKnowledgeRefusesBadInput(t *testing.T) {
	src := []Citation{{SourceSHA: shaA, Span: "s"}}
	cases := []struct {
		name     string
		concepts []Concept
		triples  []Triple
		counters []Triple
		reason   string
	}{
		{"empty term", []Concept{{Term: " ", Definition: "d", Sources: src}}, nil, nil, ReasonEmptyTerm},
		{"concept without source", []Concept{{Term: "x", Definition: "d"}}, nil, nil, ReasonNoSources},
		{"triple without source", nil, []Triple{{Head: "a", Relation: "r", Tail: "b"}}, nil, ReasonNoSources},
		{"empty relation", nil, []Triple{{Head: "a", Relation: "__", Tail: "b", Sources: src}}, nil, ReasonEmptyRelation},
		{"empty tail", nil, []Triple{{Head: "a", Relation: "r", Tail: "!", Sources: src}}, nil, ReasonEmptyTerm},
		{"bad status", nil, []Triple{{Head: "a", Relation: "r", Tail: "b", Sources: src, Status: "final"}}, nil, ReasonInvalidStatus},
		{"path as sha", nil, []Triple{{Head: "a", Relation: "r", Tail: "b", Sources: []Citation{{SourceSHA: "../etc"}}}}, nil, ReasonInvalidSource},
		{"bad range", nil, []Triple{{Head: "a", Relation: "r", Tail: "b", Sources: []Citation{{SourceSHA: shaA, Start: 5, End: 2}}}}, nil, ReasonInvalidSource},
		{"bad counter", nil, nil, []Triple{{Head: "a", Relation: "", Tail: "b"}}, ReasonEmptyRelation},
	}
	for _, c := range cases {
		_, err := NewKnowledge(c.concepts, c.triples, c.counters...)
		var ke *Error
		if !errors.As(err, &ke) || ke.Reason != c.reason {
			t.Errorf("%s: error %v, want reason %s", c.name, err, c.reason)
		}
	}
	// Counter-claims may cite nothing.
	if _, err := NewKnowledge(nil, nil, Triple{Head: "a", Relation: "r", Tail: "b"}); err != nil {
		t.Errorf("sourceless counter refused: %v", err)
	}
}

func TestTripleThatIsAlsoACounterIsContested(t *testing.T) {
	src := []Citation{{SourceSHA: shaA, Span: "s"}}
	k, err := NewKnowledge(nil,
		[]Triple{{Head: "a", Relation: "r", Tail: "b", Sources: src, Status: epistemic.Coherent}},
		Triple{Head: "A", Relation: "R", Tail: "B"})
	if err != nil {
		t.Fatal(err)
	}
	tr, _ := k.Triple(Key{"a", "r", "b"})
	c, _ := k.Counter(Key{"a", "r", "b"})
	if tr.Status != epistemic.Contested || c.Status != epistemic.Contested {
		t.Fatalf("statuses %q %q, want both contested", tr.Status, c.Status)
	}
}

func TestWithStatusIsCopyOnWrite(t *testing.T) {
	orig := Triple{Head: "a", Relation: "r", Tail: "b", Sources: []Citation{{SourceSHA: shaA, Span: "s"}}}
	next := orig.WithStatus(epistemic.Coherent)
	next.Sources[0].Span = "changed"
	if orig.Status != "" || orig.Sources[0].Span != "s" {
		t.Fatalf("WithStatus changed the original: %+v", orig)
	}
	if next.Status != epistemic.Coherent || next.Key() != orig.Key() {
		t.Fatalf("copy %+v", next)
	}
	k := loadOptics(t)
	held, _ := k.Triple(Key{"lens", "refracts", "light"})
	_ = held.WithStatus(epistemic.Falsified)
	held.Sources[0].Span = "scribble"
	again, _ := k.Triple(Key{"lens", "refracts", "light"})
	if again.Status != epistemic.Speculative || again.Sources[0].Span == "scribble" {
		t.Fatal("a record handed out by the index changed the index")
	}
}

// Many sessions read one index at once; run with -race to check.
func TestConcurrentReaders(t *testing.T) {
	k := loadOptics(t)
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			o := NewOverlay(k)
			for i := 0; i < 200; i++ {
				o.Assess(Claim{Key: Key{"light", "is", "sound"}}, i)
				o.Assess(Claim{Key: Key{"lens", "refracts", "light"}, Negated: true}, i)
				_ = k.Out("lens", "refracts")
				_ = k.Definitions("lens")
			}
		}()
	}
	wg.Wait()
	tr, _ := k.Triple(Key{"lens", "refracts", "light"})
	c, _ := k.Counter(Key{"light", "is", "sound"})
	if tr.Status != epistemic.Speculative || c.Status != epistemic.Speculative {
		t.Fatal("sessions changed the shared index")
	}
}

// forbiddenFields are names that would mark a claim as settled for good.
var forbiddenFields = []string{"final", "frozen", "axiom", "permanent", "immutable", "sealed", "locked", "unrevisable", "settled"}

// TestNonHardeningInvariant reflects over every type of the data model and
// fails if any field could mark a claim as beyond revision.
func TestNonHardeningInvariant(t *testing.T) {
	CheckNoHardeningFields(t, Concept{}, Triple{}, Citation{}, Key{}, Claim{}, Assertion{}, Assessment{}, Knowledge{}, Overlay{})
}

func TestHardeningCheckCatchesAFrozenFlag(t *testing.T) {
	type bad struct {
		Inner struct{ IsFrozen bool }
	}
	rec := &recorder{}
	CheckNoHardeningFields(rec, bad{})
	if !rec.failed {
		t.Fatal("a frozen flag went unnoticed")
	}
}

type recorder struct {
	testing.TB
	failed bool
}

func (r *recorder) Helper()               {}
func (r *recorder) Errorf(string, ...any) { r.failed = true }

// CheckNoHardeningFields fails tb for every struct field (at any depth, by Go
// name or json tag) whose name contains a forbidden word.
func CheckNoHardeningFields(tb testing.TB, values ...any) {
	tb.Helper()
	seen := map[reflect.Type]bool{}
	var walk func(reflect.Type, string)
	walk = func(typ reflect.Type, path string) {
		for typ.Kind() == reflect.Pointer || typ.Kind() == reflect.Slice || typ.Kind() == reflect.Array || typ.Kind() == reflect.Map {
			if typ.Kind() == reflect.Map {
				walk(typ.Key(), path+"[key]")
			}
			typ = typ.Elem()
		}
		if typ.Kind() != reflect.Struct || seen[typ] {
			return
		}
		seen[typ] = true
		for i := 0; i < typ.NumField(); i++ {
			f := typ.Field(i)
			for _, name := range []string{f.Name, f.Tag.Get("json")} {
				lower := strings.ToLower(name)
				for _, bad := range forbiddenFields {
					if strings.Contains(lower, bad) {
						tb.Errorf("%s.%s: field name %q marks a claim as settled", path, f.Name, name)
					}
				}
			}
			walk(f.Type, path+"."+f.Name)
		}
	}
	for _, v := range values {
		walk(reflect.TypeOf(v), reflect.TypeOf(v).Name())
	}
}

// Declared relations join the vocabulary (every set's, united), not the
// records: Relations and Stats are unchanged, and without a declaration the
// vocabulary is exactly the records' relations.
func TestDeclaredRelationsJoinTheVocabulary(t *testing.T) {
	k := loadOptics(t)
	if !reflect.DeepEqual(k.Vocabulary(), k.Relations()) || k.Declared() != nil {
		t.Fatalf("vocabulary without a declaration: %v vs %v", k.Vocabulary(), k.Relations())
	}
	vts, err := artifact.Decode[artifact.ValidatedTripleSet](opticsVTS(t))
	if err != nil {
		t.Fatal(err)
	}
	a, b := vts, vts
	a.DeclaredRelations = []string{"provides", "is_part_of"}
	b.DeclaredRelations = []string{"defines", "provides"}
	both, err := FromVTS(a, b)
	if err != nil {
		t.Fatal(err)
	}
	if got := both.Declared(); !reflect.DeepEqual(got, []string{"defines", "is_part_of", "provides"}) {
		t.Fatalf("declared %v", got)
	}
	if !reflect.DeepEqual(both.Relations(), k.Relations()) || both.Stats() != k.Stats() {
		t.Fatalf("a declaration changed the records: %v", both.Relations())
	}
	voc := both.Vocabulary()
	for _, r := range append(k.Relations(), "defines", "is_part_of", "provides") {
		if !slices.Contains(voc, r) {
			t.Errorf("vocabulary %v lacks %q", voc, r)
		}
	}
	if len(voc) != len(k.Relations())+3 {
		t.Fatalf("vocabulary %v", voc)
	}
	if k.Declared() != nil {
		t.Fatal("WithRelations changed the knowledge it was called on")
	}
}
