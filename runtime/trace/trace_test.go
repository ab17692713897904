package trace

import (
	"bytes"
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"

	"formation/canon"
)

func TestFormatCondition(t *testing.T) {
	cases := map[float64]string{0: "0.0e+00", 1e-7: "1.000e-07", 2.5e-16: "2.500e-16", 1e-6: "1.000e-06", 0.002001: "2.001e-03"}
	for v, want := range cases {
		if got := FormatCondition(v); got != want {
			t.Errorf("FormatCondition(%g) = %q, want %q", v, got, want)
		}
	}
}

func basePayload() Payload {
	return Payload{
		InputText: "What is light?", FilteredTokens: []string{"what", "is", "light"},
		Surface: "Light is radiation.", WalkSurface: "light", ArticulationSurface: "Light is radiation.",
		DialogueRole: "assert", VersorCondition: FormatCondition(3e-16), VaultHits: 1, IntentTag: "definition",
		EpistemicStatus: "speculative", Citations: []Cite{{SourceSHA: strings.Repeat("a", 64), Span: "x"}},
	}
}

func TestTraceHashFoldsRefusalOnlyWhenSet(t *testing.T) {
	p := basePayload()
	h1, err := ComputeTraceHash(p)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := canon.Marshal(p)
	if bytes.Contains(b, []byte("refusal_reason")) {
		t.Fatal("empty refusal_reason is serialised")
	}
	p.RefusalReason = "ungrounded_relation"
	h2, _ := ComputeTraceHash(p)
	if h1 == h2 {
		t.Fatal("a non-empty refusal_reason is not folded")
	}
	p = basePayload()
	p.EpistemicStatus = "contested"
	if h3, _ := ComputeTraceHash(p); h3 == h1 {
		t.Fatal("epistemic status is not folded")
	}
	if again, _ := ComputeTraceHash(basePayload()); again != h1 {
		t.Fatal("hash is not deterministic")
	}
}

// Every field of the payload changes the hash.
func TestEveryFieldIsLoadBearing(t *testing.T) {
	base, _ := ComputeTraceHash(basePayload())
	v := reflect.ValueOf(basePayload())
	for i := 0; i < v.NumField(); i++ {
		p := basePayload()
		f := reflect.ValueOf(&p).Elem().Field(i)
		switch f.Kind() {
		case reflect.String:
			f.SetString(f.String() + "!")
		case reflect.Int:
			f.SetInt(f.Int() + 1)
		case reflect.Slice:
			f.Set(reflect.Append(f, reflect.New(f.Type().Elem()).Elem()))
		}
		if h, _ := ComputeTraceHash(p); h == base {
			t.Errorf("field %s does not change the hash", v.Type().Field(i).Name)
		}
	}
}

func TestDigestIsTheCanonicalSHA256(t *testing.T) {
	for _, v := range []any{basePayload(), map[string]any{"a": []string{"λ"}}, "x", 7} {
		want, err := canon.SHA256Hex(v)
		if err != nil {
			t.Fatal(err)
		}
		if got, err := Digest(v); err != nil || got != want {
			t.Errorf("Digest(%v) = %s, %v; want %s", v, got, err, want)
		}
	}
}

func TestNilAndEmptyListsHashAlike(t *testing.T) {
	p := basePayload()
	p.Citations, p.Graph = nil, nil
	a, _ := ComputeTraceHash(p)
	p.Citations, p.Graph = []Cite{}, []Edge{}
	b, _ := ComputeTraceHash(p)
	if a != b {
		t.Fatal("nil and empty lists hash differently")
	}
}

func TestTraceHashRefusesInvalidUTF8(t *testing.T) {
	p := basePayload()
	p.InputText = "\xff"
	if _, err := ComputeTraceHash(p); err == nil {
		t.Fatal("invalid UTF-8 hashed")
	}
}

func TestJSONLWriter(t *testing.T) {
	var buf bytes.Buffer
	w := NewJSONLWriter(&buf)
	ctx := context.Background()
	for i := 0; i < 3; i++ {
		if err := w.Emit(ctx, TurnEvent{Turn: i, Surface: "λ <&>", TraceHash: strings.Repeat("b", 64)}); err != nil {
			t.Fatal(err)
		}
	}
	lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
	if len(lines) != 3 {
		t.Fatalf("%d lines", len(lines))
	}
	for i, l := range lines {
		doc, err := canon.Decode([]byte(l))
		if err != nil {
			t.Fatalf("line %d is not canonical JSON: %v", i, err)
		}
		o := doc.(*canon.Object)
		for _, key := range []string{"surface", "walk_surface", "articulation_surface", "vault_hits", "flagged", "trace_hash", "refusal_reason", "epistemic_status", "safety_violated"} {
			if !o.Has(key) {
				t.Errorf("line %d lacks %q", i, key)
			}
		}
		if again, _ := canon.Marshal(o); string(again) != l {
			t.Errorf("line %d is not in canonical form", i)
		}
	}
	if !strings.Contains(lines[0], `"surface":"λ <&>"`) {
		t.Errorf("text not written raw: %s", lines[0])
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if err := w.Emit(cctx, TurnEvent{}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled emit: %v", err)
	}
}

// teaching_epistemic_status is folded only when set, as refusal_reason is:
// a payload without it hashes as before the field existed.
func TestTraceHashFoldsTeachingStatusOnlyWhenSet(t *testing.T) {
	p := basePayload()
	b, _ := canon.Marshal(p)
	if bytes.Contains(b, []byte("teaching_epistemic_status")) {
		t.Fatal("an empty teaching_epistemic_status is serialised")
	}
	h1, _ := ComputeTraceHash(p)
	p.TeachingEpistemicStatus = "speculative"
	h2, _ := ComputeTraceHash(p)
	p.TeachingEpistemicStatus = "coherent"
	h3, _ := ComputeTraceHash(p)
	if h1 == h2 || h2 == h3 {
		t.Fatal("the teaching status is not folded")
	}
}

// TestStreamedListDigestIsDigest holds the streamed digest of a list of
// strings (canon.SHA256Hex, which a replay assertion takes) to Digest's of
// its whole encoding, across the hash pipe's chunks and for strings that
// need escapes; invalid UTF-8 is refused by both.
func TestStreamedListDigestIsDigest(t *testing.T) {
	long := make([]string, 5000) // about 330 KB encoded: several chunks
	for i := range long {
		long[i] = strings.Repeat(string(rune('a'+i%26)), 64)
	}
	long[1234] = "quote \" backslash \\ newline \n tab \t λ \u2028"
	for _, list := range [][]string{nil, {}, {""}, {"a", "", "b"}, long, append(long, strings.Repeat("é", 20000))} {
		want, err := Digest(list)
		if err != nil {
			t.Fatal(err)
		}
		if got, err := canon.SHA256Hex(list); err != nil || got != want {
			t.Errorf("SHA256Hex of %d strings = %s, %v; want %s", len(list), got, err, want)
		}
	}
	if _, err := canon.SHA256Hex([]string{"ok", "\xff"}); err == nil {
		t.Error("SHA256Hex took invalid UTF-8")
	}
}
