package artifact

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"formation/canon"
)

// directStrings are the strings the generated artifacts draw from: plain,
// empty, escaped, non-ASCII and control characters.
var directStrings = []string{
	"", "lens", "focal length", "a \"quoted\" span", `back\slash`, "tab\there", "line\nbreak",
	"café", "日本語", "\u2028sep", "nul\x00byte", "del\x7f", "</script>", "😀 emoji",
	"0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
}

func pick(r *rand.Rand) string { return directStrings[r.IntN(len(directStrings))] }

func genRefs(r *rand.Rand) []SourceRef {
	var refs []SourceRef // nil and empty both occur
	if r.IntN(4) > 0 {
		refs = []SourceRef{}
	}
	for range r.IntN(3) {
		ref := SourceRef{SourceSHA: pick(r), Span: pick(r), Adapter: pick(r), RetrievedAt: pick(r)}
		if r.IntN(2) == 0 {
			start, end := r.Int64N(1<<40)-1<<20, r.Int64()
			ref.TextSHA, ref.Start, ref.End, ref.Extractor = pick(r), &start, &end, pick(r)
		}
		refs = append(refs, ref)
	}
	return refs
}

func genRelations(r *rand.Rand) []RelationCandidate {
	out := []RelationCandidate{}
	for range r.IntN(4) {
		out = append(out, RelationCandidate{Head: pick(r), Relation: pick(r), Tail: pick(r), Sources: genRefs(r),
			State: CandidateState(pick(r)), RejectionReason: pick(r)})
	}
	return out
}

func genBundle(r *rand.Rand) SmeltedBundle {
	b := SmeltedBundle{Relations: genRelations(r), Counters: genRelations(r)}
	for range r.IntN(3) {
		b.Concepts = append(b.Concepts, ConceptCandidate{CanonicalTerm: pick(r), Definition: pick(r), Sources: genRefs(r),
			State: CandidateState(pick(r)), RejectionReason: pick(r)})
	}
	for range r.IntN(3) {
		b.OrderingHints = append(b.OrderingHints, OrderingHint{Before: pick(r), After: pick(r), Sources: genRefs(r)})
	}
	return b
}

func genValidatedSet(r *rand.Rand) ValidatedTripleSet {
	b := genBundle(r)
	v := ValidatedTripleSet{SubjectID: pick(r), Concepts: b.Concepts, Relations: b.Relations, Counters: b.Counters,
		OrderingHints: b.OrderingHints, Quarantined: genRelations(r), SchemaVersion: pick(r)}
	for range r.IntN(3) {
		v.DeclaredRelations = append(v.DeclaredRelations, pick(r))
	}
	return v
}

// checkDecode holds the direct reading of data to canon.Unmarshal's: when
// it accepts, Unmarshal accepts with an equal value; either way Decode
// returns what Unmarshal gives. It reports whether the direct reader
// accepted.
func checkDecode[T any](t *testing.T, data []byte) bool {
	t.Helper()
	var direct, slow T
	accepted := decodeDirect(data, &direct)
	slowErr := canon.Unmarshal(data, &slow)
	if accepted && (slowErr != nil || !reflect.DeepEqual(direct, slow)) {
		t.Fatalf("direct reader accepted %q as %+v; Unmarshal: %+v, %v", data, direct, slow, slowErr)
	}
	got, err := Decode[T](data)
	if fmt.Sprint(unwrapAll(err)) != fmt.Sprint(slowErr) || (err == nil && !reflect.DeepEqual(got, slow)) {
		t.Fatalf("Decode(%q) = %+v, %v; Unmarshal: %+v, %v", data, got, err, slow, slowErr)
	}
	checkSplits(t, data, accepted, direct)
	return accepted
}

// checkSplits holds the direct reader with a relation list's tail read on
// a second goroutine to the one without, wherever the tail is guessed to
// start: at relation objects (every one of a small document, 12 spread
// over a large one), at 4 other objects, at relationSplit's guess, and at
// offsets that start no object.
func checkSplits[T any](t *testing.T, data []byte, accepted bool, want T) {
	t.Helper()
	offsets := []int{-1, 0, len(data) / 2, len(data), len(data) + 5, relationSplit(data)}
	var relations, others []int
	for i, c := range data {
		switch {
		case c != '{':
		case bytes.HasPrefix(data[i:], []byte(`{"head":`)):
			relations = append(relations, i)
		default:
			others = append(others, i)
		}
	}
	spread := func(at []int, most int) {
		for k := range min(len(at), most) {
			offsets = append(offsets, at[k*len(at)/min(len(at), most)])
		}
	}
	spread(relations, 12)
	spread(others, 4)
	var plain T
	if decodeSplit(data, &plain, -1) != accepted || accepted && !reflect.DeepEqual(plain, want) {
		t.Fatalf("the direct reader without a split reads %q otherwise", data)
	}
	for _, at := range offsets {
		var got T
		ok := decodeSplit(data, &got, at)
		if ok != accepted || accepted && !reflect.DeepEqual(got, want) {
			t.Fatalf("split at %d of %q: accepted %v, %+v; without a split: %v, %+v", at, data, ok, got, accepted, want)
		}
	}
}

func unwrapAll(err error) error {
	for err != nil && errors.Unwrap(err) != nil {
		err = errors.Unwrap(err)
	}
	return err
}

// checkEncode holds Encode's bytes (or error) to canon.Marshal's and
// reports whether the direct writer produced them.
func checkEncode(t *testing.T, v any) bool {
	t.Helper()
	want, wantErr := canon.Marshal(v)
	got, err := Encode(v)
	if !bytes.Equal(got, want) || fmt.Sprint(unwrapAll(err)) != fmt.Sprint(wantErr) {
		t.Fatalf("Encode(%T) = %q, %v; canon.Marshal: %q, %v", v, got, err, want, wantErr)
	}
	got, direct := encodeDirect(v)
	// With the relation list's tail written on a second goroutine, from
	// every size up, the bytes and the verdict are the same.
	if split, ok := encodeSplit(v, 0); ok != direct || ok && !bytes.Equal(split, got) {
		t.Fatalf("Encode(%T) with a split: %q, %v; without: %q, %v", v, split, ok, got, direct)
	}
	return direct
}

// Generated bundles and sets: written byte for byte as canon.Marshal
// writes them, read back by the direct reader (never falling back) to the
// value Unmarshal reads, indented or not.
func TestDirectCodecMatchesCanon(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 2000 {
		b, v := genBundle(r), genValidatedSet(r)
		for _, a := range []any{b, &b, v, &v} {
			if !checkEncode(t, a) {
				t.Fatalf("case %d: the direct writer declined %T", i, a)
			}
		}
		for _, raw := range [][]byte{mustEncode(t, b), indent(t, mustEncode(t, b))} {
			if !checkDecode[SmeltedBundle](t, raw) {
				t.Fatalf("case %d: the direct reader declined a bundle: %q", i, raw)
			}
		}
		for _, raw := range [][]byte{mustEncode(t, v), indent(t, mustEncode(t, v))} {
			if !checkDecode[ValidatedTripleSet](t, raw) {
				t.Fatalf("case %d: the direct reader declined a set: %q", i, raw)
			}
		}
	}
}

func mustEncode(t *testing.T, v any) []byte {
	t.Helper()
	b, err := canon.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func indent(t *testing.T, b []byte) []byte {
	t.Helper()
	var out bytes.Buffer
	if err := json.Indent(&out, b, " ", "\t"); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

// Documents Unmarshal reads differently or refuses: the direct reader
// declines each, and Decode gives Unmarshal's reading or error.
func TestDirectDecodeDeclines(t *testing.T) {
	ref := `{"adapter":"a","retrieved_at":"r","source_sha":"s","span":"x"}`
	rel := `{"head":"h","rejection_reason":"","relation":"is","sources":[` + ref + `],"state":"proposed","tail":"t"}`
	bundle := func(rels string) string {
		return `{"concepts":[],"counters":[],"ordering_hints":[],"relations":[` + rels + `]}`
	}
	for _, doc := range []string{
		bundle(`{"head":"h","head":"g","rejection_reason":"","relation":"is","sources":[],"state":"p","tail":"t"}`), // duplicate key
		bundle(`{"head":"h","relation":"is","sources":[],"state":"p","tail":"t"}`),                                  // missing field
		bundle(`{"extra":1,"head":"h","rejection_reason":"","relation":"is","sources":[],"state":"p","tail":"t"}`),  // unknown field
		bundle(`{"head":null,"rejection_reason":"","relation":"is","sources":[],"state":"p","tail":"t"}`),           // null string
		bundle(`{"he\u0061d":"h","rejection_reason":"","relation":"is","sources":[],"state":"p","tail":"t"}`),       // escaped key
		bundle(`{"head":"h","rejection_reason":"","relation":"is","sources":null,"state":"p","tail":"t"}`),          // null list
		bundle(rel[:len(rel)-1] + `,"sources":[]}`),
		`{"concepts":[],"counters":[],"ordering_hints":[],"relations":[]} x`,
		`{"concepts":[],"counters":[],"ordering_hints":[]}`,
		bundle(`{"head":"h","rejection_reason":"","relation":"is","sources":[{"adapter":"a","end":1.5,"retrieved_at":"r","source_sha":"s","span":"x"}],"state":"p","tail":"t"}`),
		bundle(`{"head":"h","rejection_reason":"","relation":"is","sources":[{"adapter":"a","end":99999999999999999999,"retrieved_at":"r","source_sha":"s","span":"x"}],"state":"p","tail":"t"}`),
		bundle(`{"head":"h","rejection_reason":"","relation":"is","sources":[{"adapter":"a","end":012,"retrieved_at":"r","source_sha":"s","span":"x"}],"state":"p","tail":"t"}`),
		bundle(`{"head":"\xff","rejection_reason":"","relation":"is","sources":[],"state":"p","tail":"t"}`),
		bundle(rel + `,`),
		`[]`, ``, `{`,
	} {
		if checkDecode[SmeltedBundle](t, []byte(doc)) {
			t.Errorf("the direct reader accepted %q", doc)
		}
	}
	// Read alike, though not canonical: null offsets, -0, keys in any order.
	for _, doc := range []string{
		bundle(`{"head":"h","rejection_reason":"","relation":"is","sources":[{"adapter":"a","end":null,"retrieved_at":"r","source_sha":"s","span":"x","start":-0}],"state":"p","tail":"t"}`),
		bundle(`{"tail":"t","state":"p","sources":[],"relation":"is","rejection_reason":"","head":"h"}`),
	} {
		if !checkDecode[SmeltedBundle](t, []byte(doc)) {
			t.Errorf("the direct reader declined %q", doc)
		}
	}
}

// A string the canonical form cannot carry: the direct writer declines
// and Encode returns canon.Marshal's error.
func TestDirectEncodeInvalidUTF8(t *testing.T) {
	bad := RelationCandidate{Head: "ok", Tail: "bad \xff"}
	good := RelationCandidate{Head: "ok", Tail: "fine"}
	// Alone, and first or last of a list whose tail checkEncode also has
	// written on a second goroutine.
	for _, rels := range [][]RelationCandidate{{bad}, {bad, good, good}, {good, good, bad}} {
		b := SmeltedBundle{Relations: rels}
		if checkEncode(t, b) || checkEncode(t, ValidatedTripleSet{Relations: rels}) {
			t.Fatal("the direct writer encoded invalid UTF-8")
		}
		if _, err := Encode(b); err == nil {
			t.Fatal("Encode accepted invalid UTF-8")
		}
	}
}

// Damaged copies of a canonical set: whatever the direct reader accepts,
// Unmarshal reads the same way, and Decode always answers as Unmarshal.
func TestDirectDecodeDamaged(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	v := genValidatedSet(r)
	for len(v.Relations) == 0 {
		v = genValidatedSet(r)
	}
	good := mustEncode(t, v)
	for range 3000 {
		checkDecode[ValidatedTripleSet](t, damage(r, good))
		checkDecode[SmeltedBundle](t, damage(r, good))
	}
}

// damage flips, drops or inserts a few bytes, JSON punctuation favoured.
func damage(r *rand.Rand, good []byte) []byte {
	b := bytes.Clone(good)
	const punct = `{}[],:"\ 0n-`
	for range 1 + r.IntN(3) {
		i := r.IntN(len(b))
		switch r.IntN(3) {
		case 0:
			b[i] = punct[r.IntN(len(punct))]
		case 1:
			b = append(b[:i], b[i+1:]...)
		default:
			b = append(b[:i], append([]byte{punct[r.IntN(len(punct))]}, b[i:]...)...)
		}
	}
	return b
}

func FuzzDecodeDirect(f *testing.F) {
	r := rand.New(rand.NewPCG(5, 6))
	for range 4 {
		b, err := canon.Marshal(genValidatedSet(r))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte(`{"concepts":[],"counters":[],"ordering_hints":[],"relations":[]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		checkDecode[SmeltedBundle](t, data)
		checkDecode[ValidatedTripleSet](t, data)
	})
}

func FuzzEncodeDirect(f *testing.F) {
	f.Add("lens", "is", "a \"glass\"", int64(3), "caf\xc3\xa9")
	f.Add("", "", "", int64(-1), "\xff")
	f.Fuzz(func(t *testing.T, head, rel, tail string, start int64, span string) {
		ref := SourceRef{SourceSHA: head, Span: span, Adapter: rel, RetrievedAt: tail, Start: &start, End: &start, TextSHA: span}
		b := SmeltedBundle{Relations: []RelationCandidate{{Head: head, Relation: rel, Tail: tail, Sources: []SourceRef{ref}}}}
		v := ValidatedTripleSet{SubjectID: head, Relations: b.Relations, DeclaredRelations: []string{rel, tail}, SchemaVersion: span}
		checkEncode(t, b)
		checkEncode(t, &v)
		if raw, err := canon.Marshal(v); err == nil && !checkDecode[ValidatedTripleSet](t, raw) {
			t.Fatalf("the direct reader declined %q", raw)
		}
	})
}

// A set whose strings need no escaping is written into one allocation.
func TestDirectEncodeSizesPlainSets(t *testing.T) {
	start, end := int64(12345678901), int64(-98765432109)
	ref := SourceRef{SourceSHA: "a", Span: "b", Adapter: "c", RetrievedAt: "d", TextSHA: "e", Start: &start, End: &end, Extractor: "f"}
	rel := RelationCandidate{Head: "h", Relation: "r", Tail: "t", Sources: []SourceRef{ref, {}}, State: StateValidated}
	v := ValidatedTripleSet{SubjectID: "s", Concepts: []ConceptCandidate{{Sources: []SourceRef{ref}}}, Relations: []RelationCandidate{rel},
		Counters: []RelationCandidate{rel}, Quarantined: []RelationCandidate{{}}, OrderingHints: []OrderingHint{{Sources: []SourceRef{ref}}},
		DeclaredRelations: []string{"x"}}
	b := SmeltedBundle{Concepts: v.Concepts, Relations: v.Relations, Counters: v.Counters, OrderingHints: v.OrderingHints}
	for _, c := range []struct {
		v    any
		size int
	}{{&v, validatedSetSize(&v)}, {&b, bundleSize(&b)}} {
		got, ok := encodeDirect(c.v)
		if !ok || len(got) > c.size {
			t.Errorf("%T: %d bytes written, %d sized", c.v, len(got), c.size)
		}
	}
}

// BenchmarkValidatedSetSHA digests the compose projection of a set of
// 10,000 relations and 5,000 concepts with one source each: compose, run,
// ratify, promote and reviewed each compute it.
func BenchmarkValidatedSetSHA(b *testing.B) {
	v := ValidatedTripleSet{SubjectID: "bench", SchemaVersion: "1"}
	for i := range 10000 {
		n := strconv.Itoa(i)
		ref := SourceRef{SourceSHA: strings.Repeat("ab", 32), Span: n + ":" + n, Adapter: "file", RetrievedAt: "2026-05-16T00:00:00Z"}
		v.Relations = append(v.Relations, RelationCandidate{Head: "term " + n, Relation: "is", Tail: "a thing " + n, Sources: []SourceRef{ref}})
		if i%2 == 0 {
			v.Concepts = append(v.Concepts, ConceptCandidate{CanonicalTerm: "term " + n, Definition: "what term " + n + " is", Sources: []SourceRef{ref}})
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ValidatedSetSHA(v); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDecodeValidatedSet decodes the set of BenchmarkValidatedSetSHA,
// as compose, run and ratify each do on every miss.
func BenchmarkDecodeValidatedSet(b *testing.B) {
	v := ValidatedTripleSet{SubjectID: "bench", SchemaVersion: "1", Concepts: []ConceptCandidate{}, Counters: []RelationCandidate{},
		Quarantined: []RelationCandidate{}, OrderingHints: []OrderingHint{}, DeclaredRelations: []string{}}
	start, end := int64(100), int64(160)
	for i := range 10000 {
		n := strconv.Itoa(i)
		ref := SourceRef{SourceSHA: strings.Repeat("ab", 32), Span: "the span of claim " + n + " as the source words it", Adapter: "file",
			RetrievedAt: "2026-05-16T00:00:00Z", TextSHA: strings.Repeat("cd", 32), Start: &start, End: &end, Extractor: "markdown"}
		v.Relations = append(v.Relations, RelationCandidate{Head: "term " + n, Relation: "is", Tail: "a thing " + n, Sources: []SourceRef{ref, ref}, State: StateValidated})
		if i%2 == 0 {
			v.Concepts = append(v.Concepts, ConceptCandidate{CanonicalTerm: "term " + n, Definition: "what term " + n + " is", Sources: []SourceRef{ref}, State: StateValidated})
		}
	}
	raw, err := Encode(v)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(raw)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Decode[ValidatedTripleSet](raw); err != nil {
			b.Fatal(err)
		}
	}
}

// manyRelations is n relations "term i is thing i", each citing refs
// copies of one source whose span is spanHead followed by "i is a thing".
func manyRelations(n int, spanHead string, refs int, state CandidateState) []RelationCandidate {
	out := make([]RelationCandidate, 0, n)
	for i := range n {
		num := strconv.Itoa(i)
		ref := SourceRef{SourceSHA: strings.Repeat("ab", 32), Span: spanHead + num + " is a thing",
			Adapter: "wikipedia", RetrievedAt: "2026-05-16T00:00:00Z"}
		sources := make([]SourceRef, refs)
		for j := range sources {
			sources[j] = ref
		}
		out = append(out, RelationCandidate{Head: "term " + num, Relation: "is", Tail: "thing " + num, Sources: sources, State: state})
	}
	return out
}

// A document past splitFrom has its relation list's tail read on a second
// goroutine from the guessed offset, and read so, it is what Unmarshal
// reads.
func TestLargeDocumentSplits(t *testing.T) {
	var b SmeltedBundle
	b.Relations = manyRelations(3000, "the source states, in so many words, that term ", 2, StateProposed)
	for i := 0; i < 3000; i += 2 {
		b.Concepts = append(b.Concepts, ConceptCandidate{CanonicalTerm: b.Relations[i].Head, Definition: "defined",
			Sources: b.Relations[i].Sources[:1], State: StateProposed})
	}
	b.Counters, b.OrderingHints = []RelationCandidate{}, []OrderingHint{}
	data := mustEncode(t, b)
	if len(data) < splitFrom {
		t.Fatalf("%d bytes: too small to split", len(data))
	}
	at := relationSplit(data)
	l := canon.NewLexer(data)
	tail := forkTail(l, at)
	var got SmeltedBundle
	ok := readBundle(l, &got, tail) && l.End()
	tail.end()
	if !ok || !tail.taken || len(tail.elems) == 0 || len(tail.elems) == len(b.Relations) {
		t.Fatalf("split at %d: read %v, tail taken %v with %d of %d relations", at, ok, tail.taken, len(tail.elems), len(b.Relations))
	}
	if !reflect.DeepEqual(got, b) {
		t.Fatal("the bundle read in two parts is not the bundle")
	}
	if !checkDecode[SmeltedBundle](t, data) {
		t.Fatal("the direct reader declined the large bundle")
	}
}

// A large set, on more than one CPU, has its relation list's tail written
// on a second goroutine; the bytes are canon.Marshal's.
func TestLargeSetEncodesSplit(t *testing.T) {
	v := ValidatedTripleSet{Relations: manyRelations(6000, "the source states that term ", 1, StateValidated)}
	size := validatedSetSize(&v)
	tail := splitTail(v.Relations, size, splitFrom)
	if size < splitFrom || tail == nil || tail.first < len(v.Relations)/3 || tail.first > len(v.Relations)*2/3 {
		t.Fatalf("%d bytes: tail %+v", size, tail)
	}
	<-tail.done
	if !checkEncode(t, &v) {
		t.Fatal("the direct writer declined the large set")
	}
}
