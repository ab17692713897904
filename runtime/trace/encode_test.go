package trace

import (
	"bytes"
	"math/rand/v2"
	"strings"
	"testing"

	"formation/canon"
)

// randomPayload builds a payload from r with the strings a turn can carry:
// plain, escaped, non-ASCII, empty and invalid UTF-8, lists empty, full or
// nil, and omitempty fields both zero and set.
func randomPayload(r *rand.Rand) Payload {
	strs := []string{"", "light", "What is light?", "a \"quoted\" word", "back\\slash", "tab\there", "line\nbreak",
		"ctrl\x01\x1f", "café", "日本語", "\u2028sep", "bad\xffutf8", "<html>&amp;", "emoji 🙂"}
	s := func() string { return strs[r.IntN(len(strs))] }
	p := Payload{
		InputText: s(), Surface: s(), WalkSurface: s(), ArticulationSurface: s(), DialogueRole: s(),
		VersorCondition: s(), VaultHits: r.IntN(5) - 1, IntentTag: s(), ReviewHash: s(), ClaimID: s(),
		EpistemicStatus: s(), OperatorInvocation: s(), RefusalReason: s(), TeachingEpistemicStatus: s(),
		FilteredTokens: []string{}, Citations: []Cite{}, Graph: []Edge{},
	}
	for range r.IntN(4) {
		p.FilteredTokens = append(p.FilteredTokens, s())
	}
	for range r.IntN(3) {
		p.Citations = append(p.Citations, Cite{SourceSHA: s(), Span: s(), TextSHA: s(), Start: r.IntN(3) * 17, End: r.IntN(3) * -5})
	}
	for range r.IntN(3) {
		p.Graph = append(p.Graph, Edge{Head: s(), Relation: s(), Tail: s()})
	}
	if r.IntN(4) == 0 { // canon writes a nil list as []
		p.FilteredTokens, p.Citations, p.Graph = nil, nil, nil
	}
	return p
}

// The payload's direct encoding is canon.Marshal's, byte for byte, and
// fails exactly where canon.Marshal does.
func TestPayloadEncodingIsCanon(t *testing.T) {
	agreesWithCanon(t, "payload", rand.New(rand.NewPCG(7, 11)), randomPayload, appendPayload, false)
}

// agreesWithCanon encodes 20,000 values gen makes with direct and with
// canon.Marshal: the bytes must be equal, both must fail on the same values
// (with the same message when sameMessage), and the values must include
// both outcomes.
func agreesWithCanon[T any](t *testing.T, what string, r *rand.Rand, gen func(*rand.Rand) T,
	direct func([]byte, *T) ([]byte, error), sameMessage bool) {
	t.Helper()
	const n = 20000
	failed := 0
	for i := range n {
		v := gen(r)
		want, wantErr := canon.Marshal(v)
		got, err := direct(nil, &v)
		if (err != nil) != (wantErr != nil) || (sameMessage && err != nil && err.Error() != wantErr.Error()) {
			t.Fatalf("%s %d: direct error %v, canon error %v", what, i, err, wantErr)
		}
		if err != nil {
			failed++
			continue
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("%s %d:\ndirect %s\ncanon  %s", what, i, got, want)
		}
	}
	if failed == 0 || failed == n {
		t.Fatalf("%d of %d values failed to encode: the test does not cover both outcomes", failed, n)
	}
}

func FuzzPayloadEncoding(f *testing.F) {
	f.Add("What is light?", "light", "Light is radiation.", "", "a", "x", 1, 0, 0)
	f.Add("bad\xff", "", "\"q\"\n", "refused", "", "", 0, 3, -2)
	f.Fuzz(func(t *testing.T, input, token, surface, refusal, source, span string, hits, start, end int) {
		p := Payload{InputText: input, FilteredTokens: []string{token, input}, Surface: surface, WalkSurface: token,
			RefusalReason: refusal, TeachingEpistemicStatus: refusal, VaultHits: hits,
			Citations: []Cite{{SourceSHA: source, Span: span, Start: start, End: end, TextSHA: span}},
			Graph:     []Edge{{Head: token, Relation: span, Tail: surface}}}
		want, wantErr := canon.Marshal(p)
		got, err := appendPayload(nil, &p)
		if (err != nil) != (wantErr != nil) || (err == nil && !bytes.Equal(got, want)) {
			t.Fatalf("direct %q (%v), canon %q (%v)", got, err, want, wantErr)
		}
	})
}

// randomEvent builds an event from r, lists nil, empty or not and the
// omitempty fields both zero and set.
func randomEvent(r *rand.Rand) TurnEvent {
	p := randomPayload(r)
	list := func() []string {
		switch r.IntN(3) {
		case 0:
			return nil
		case 1:
			return []string{}
		}
		return append([]string(nil), p.FilteredTokens...)
	}
	b := func() bool { return r.IntN(2) == 0 }
	return TurnEvent{Turn: r.IntN(100) - 1, InputTokens: list(), Surface: p.Surface, WalkSurface: p.WalkSurface,
		ArticulationSurface: p.ArticulationSurface, DialogueRole: p.DialogueRole, Intent: p.IntentTag,
		GroundingSource: p.ClaimID, StubPath: b(), VaultHits: p.VaultHits, VersorCondition: p.VersorCondition,
		Flagged: b(), IdentityScore: p.ReviewHash, IdentityDeviation: list(), EpistemicStatus: p.EpistemicStatus,
		RefusalReason: p.RefusalReason, RefusalEmitted: b(), CitedSourceSHAs: list(), SafetyPackID: p.InputText,
		IdentityPackID: p.OperatorInvocation, SafetyUpheld: b(), SafetyViolated: list(), SafetyCheckableCount: r.IntN(9),
		IdentityHashBefore: p.WalkSurface, IdentityHashAfter: p.Surface, Halted: b(), TraceHash: p.ClaimID,
		TeachingProposal: p.TeachingEpistemicStatus, TeachingEpistemicStatus: p.RefusalReason}
}

// An event's direct encoding is canon.Marshal's, byte for byte, and fails
// exactly where canon.Marshal does, with its error.
func TestEventEncodingIsCanon(t *testing.T) {
	agreesWithCanon(t, "event", rand.New(rand.NewPCG(3, 5)), randomEvent, AppendEvent, true)
}

func FuzzEventEncoding(f *testing.F) {
	f.Add("What is light?", "light", "", "a", 1, true, false)
	f.Add("bad\xff", "\"q\"\n", "refused", "", -1, false, true)
	f.Fuzz(func(t *testing.T, input, token, refusal, source string, turn int, flagged, nilLists bool) {
		e := TurnEvent{Turn: turn, InputTokens: []string{token, input}, Surface: input, RefusalReason: refusal,
			TeachingProposal: refusal, CitedSourceSHAs: []string{source}, Flagged: flagged, TraceHash: token}
		if nilLists {
			e.InputTokens, e.CitedSourceSHAs = nil, nil
		}
		want, wantErr := canon.Marshal(e)
		got, err := AppendEvent(nil, &e)
		if (err != nil) != (wantErr != nil) || (err == nil && !bytes.Equal(got, want)) {
			t.Fatalf("direct %q (%v), canon %q (%v)", got, err, want, wantErr)
		}
	})
}

// stringSamples are strings long enough for copyable's eight-byte words,
// each with one byte that matters (an escape, a rune of two to four bytes,
// a byte that is not UTF-8, the highest byte below and above each escape)
// at every position, so that every lane of a word and the tail are tried.
func stringSamples() []string {
	specials := []string{"\"", "\\", "\n", "\x00", "\x1f", "\x7f", " ", "!", "#", "[", "]", "→", "é", "🙂", "\u2028",
		"\xff", "\x80", "\xe2\x86", "\xc3", "\xf0\x9f\x99"}
	out := []string{"", "plain", "a plain ascii sentence of some length.", "Light → refraction → lens; a — b"}
	for _, sp := range specials {
		for n := 0; n <= 24; n++ {
			for at := 0; at <= n; at++ {
				out = append(out, strings.Repeat("a", at)+sp+strings.Repeat("b", n-at))
			}
		}
		out = append(out, strings.Repeat("→x", 20)+sp+strings.Repeat("y→", 9))
	}
	return out
}

// The writer's strings are canon.AppendString's bytes, and fail where it
// fails, with its error.
func TestStringEncodingIsCanon(t *testing.T) {
	for _, s := range stringSamples() {
		sameString(t, s)
	}
}

func sameString(t *testing.T, s string) {
	t.Helper()
	want, wantErr := canon.AppendString([]byte("x"), s)
	w := writer{b: []byte("x")}
	w.str(s)
	if (w.err != nil) != (wantErr != nil) || (wantErr != nil && w.err.Error() != wantErr.Error()) ||
		(wantErr == nil && !bytes.Equal(w.b, want)) {
		t.Fatalf("%q: writer %q (%v), canon %q (%v)", s, w.b, w.err, want, wantErr)
	}
}

func FuzzStringEncoding(f *testing.F) {
	for _, s := range []string{"", "Light → lens.", "tab\there \"q\" back\\slash", "bad\xffutf8 and more", "\x1f"} {
		f.Add(s)
	}
	f.Fuzz(sameString)
}
