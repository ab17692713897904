package trace

import (
	"encoding/binary"
	"slices"
	"strconv"
	"unicode/utf8"

	"formation/canon"
)

// appendPayload appends the canonical JSON of p (canon.Marshal's bytes: keys
// in byte order, omitempty fields left out when zero) without reflection:
// every turn hashes a payload, and walking its struct by reflection was a
// tenth of a turn's work. It fails where canon.Marshal fails (a string that
// is not valid UTF-8); the caller then falls back to canon.Marshal, so that
// the error's text is canon's. TestPayloadEncodingIsCanon and
// FuzzPayloadEncoding hold it equal to canon.Marshal.
func appendPayload(b []byte, p *Payload) ([]byte, error) {
	w := writer{b: b}
	art := w.keyKept(`{"articulation_surface":`, p.ArticulationSurface)
	w.raw(`,"citations":[`)
	for i := range p.Citations {
		if i > 0 {
			w.raw(",")
		}
		w.cite(&p.Citations[i])
	}
	w.key(`],"claim_id":`, p.ClaimID)
	w.key(`,"dialogue_role":`, p.DialogueRole)
	w.key(`,"epistemic_status":`, p.EpistemicStatus)
	w.raw(`,"filtered_tokens":[`)
	for i, tok := range p.FilteredTokens {
		if i > 0 {
			w.raw(",")
		}
		w.str(tok)
	}
	w.raw(`],"graph":[`)
	for i, e := range p.Graph {
		if i > 0 {
			w.raw(",")
		}
		w.key(`{"head":`, e.Head)
		w.key(`,"relation":`, e.Relation)
		w.key(`,"tail":`, e.Tail)
		w.raw("}")
	}
	w.key(`],"input_text":`, p.InputText)
	w.key(`,"intent_tag":`, p.IntentTag)
	w.key(`,"operator_invocation":`, p.OperatorInvocation)
	if p.RefusalReason != "" {
		w.key(`,"refusal_reason":`, p.RefusalReason)
	}
	w.key(`,"review_hash":`, p.ReviewHash)
	surface := w.keyAgain(`,"surface":`, p.Surface, art, art)
	if p.TeachingEpistemicStatus != "" {
		w.key(`,"teaching_epistemic_status":`, p.TeachingEpistemicStatus)
	}
	w.raw(`,"vault_hits":`)
	w.int(p.VaultHits)
	w.key(`,"versor_condition":`, p.VersorCondition)
	w.keyAgain(`,"walk_surface":`, p.WalkSurface, art, surface)
	w.raw("}")
	return w.b, w.err
}

// writer appends canonical JSON pieces to b, keeping the first error.
type writer struct {
	b   []byte
	err error
}

func (w *writer) raw(s string) { w.b = append(w.b, s...) }

func (w *writer) int(n int) { w.b = strconv.AppendInt(w.b, int64(n), 10) }

func (w *writer) str(s string) {
	if w.err != nil {
		return
	}
	if copyable(s) {
		w.b = append(w.b, '"')
		w.b = append(w.b, s...)
		w.b = append(w.b, '"')
		return
	}
	w.b, w.err = canon.AppendString(w.b, s)
}

// copyable reports whether canon writes s between quotes as it is: valid
// UTF-8 holding no byte JSON escapes (a control byte, a quote, a
// backslash). canon itself copies only ASCII so and escapes anything else
// byte by byte, and a turn's surfaces carry arrows and dashes. The escapes
// are found eight bytes at a time by the "has a byte below n" word trick,
// exact for n <= 0x80 whatever the other bytes are, so the bytes of a
// multi-byte rune never pass for one; UTF-8 is checked only when a byte
// has its high bit on.
func copyable(s string) bool {
	const (
		ones  = 0x0101010101010101
		highs = 0x8080808080808080
	)
	i := 0
	var seen uint64 // every byte or'ed: its high bit says whether to check UTF-8
	for ; i+8 <= len(s); i += 8 {
		x := binary.LittleEndian.Uint64([]byte(s[i : i+8]))
		control := (x - 0x20*ones) &^ x
		q := x ^ '"'*ones
		quote := (q - ones) &^ q
		b := x ^ '\\'*ones
		backslash := (b - ones) &^ b
		if (control|quote|backslash)&highs != 0 {
			return false
		}
		seen |= x
	}
	for ; i < len(s); i++ {
		c := s[i]
		if c < 0x20 || c == '"' || c == '\\' {
			return false
		}
		seen |= uint64(c)
	}
	return seen&highs == 0 || utf8.ValidString(s)
}

// kept is where the encoding of a string sits in the writer's bytes.
type kept struct {
	s        string
	from, to int
}

// keyKept is key, saying where s was written.
func (w *writer) keyKept(prefix, s string) kept {
	w.raw(prefix)
	from := len(w.b)
	w.str(s)
	return kept{s, from, len(w.b)}
}

// keyAgain is keyKept for a string that is often one written before (a
// turn's surface is mostly its articulation, its walk surface often too):
// the earlier encoding is copied instead of scanned again.
func (w *writer) keyAgain(prefix, s string, a, b kept) kept {
	w.raw(prefix)
	from := len(w.b)
	switch {
	case w.err != nil:
	case s == a.s:
		w.b = append(w.b, w.b[a.from:a.to]...)
	case s == b.s:
		w.b = append(w.b, w.b[b.from:b.to]...)
	default:
		w.str(s)
	}
	return kept{s, from, len(w.b)}
}

// key appends prefix (which ends with a key and its colon) and the string
// value s.
func (w *writer) key(prefix, s string) {
	w.raw(prefix)
	w.str(s)
}

func (w *writer) cite(c *Cite) {
	w.raw("{")
	if c.End != 0 {
		w.raw(`"end":`)
		w.int(c.End)
		w.raw(",")
	}
	w.key(`"source_sha":`, c.SourceSHA)
	w.key(`,"span":`, c.Span)
	if c.Start != 0 {
		w.raw(`,"start":`)
		w.int(c.Start)
	}
	if c.TextSHA != "" {
		w.key(`,"text_sha":`, c.TextSHA)
	}
	w.raw("}")
}

// AppendEvent appends canon.Marshal(e)'s bytes to b without reflection (a
// nil list is [], as canon writes it); the run stage encodes an event for
// every turn. When e holds a string that is not valid UTF-8 it returns
// canon.Marshal's error. TestEventEncodingIsCanon and FuzzEventEncoding
// hold it equal to canon.Marshal.
func AppendEvent(b []byte, e *TurnEvent) ([]byte, error) {
	w := writer{b: slices.Grow(b, eventSize(e))}
	art := w.keyKept(`{"articulation_surface":`, e.ArticulationSurface)
	w.list(`,"cited_source_shas":`, e.CitedSourceSHAs)
	w.key(`,"dialogue_role":`, e.DialogueRole)
	w.key(`,"epistemic_status":`, e.EpistemicStatus)
	w.bool(`,"flagged":`, e.Flagged)
	w.key(`,"grounding_source":`, e.GroundingSource)
	w.bool(`,"halted":`, e.Halted)
	w.list(`,"identity_deviation_axes":`, e.IdentityDeviation)
	w.key(`,"identity_hash_after":`, e.IdentityHashAfter)
	w.key(`,"identity_hash_before":`, e.IdentityHashBefore)
	w.key(`,"identity_pack_id":`, e.IdentityPackID)
	w.key(`,"identity_score":`, e.IdentityScore)
	w.list(`,"input_tokens":`, e.InputTokens)
	w.key(`,"intent":`, e.Intent)
	w.bool(`,"refusal_emitted":`, e.RefusalEmitted)
	w.key(`,"refusal_reason":`, e.RefusalReason)
	w.key(`,"safety_pack_id":`, e.SafetyPackID)
	w.raw(`,"safety_runtime_checkable_count":`)
	w.int(e.SafetyCheckableCount)
	w.bool(`,"safety_upheld":`, e.SafetyUpheld)
	w.list(`,"safety_violated":`, e.SafetyViolated)
	w.bool(`,"stub_path":`, e.StubPath)
	surface := w.keyAgain(`,"surface":`, e.Surface, art, art)
	if e.TeachingEpistemicStatus != "" {
		w.key(`,"teaching_epistemic_status":`, e.TeachingEpistemicStatus)
	}
	if e.TeachingProposal != "" {
		w.key(`,"teaching_proposal":`, e.TeachingProposal)
	}
	w.key(`,"trace_hash":`, e.TraceHash)
	w.raw(`,"turn":`)
	w.int(e.Turn)
	w.raw(`,"vault_hits":`)
	w.int(e.VaultHits)
	w.key(`,"versor_condition":`, e.VersorCondition)
	w.keyAgain(`,"walk_surface":`, e.WalkSurface, art, surface)
	w.raw("}")
	if w.err != nil {
		_, err := canon.Marshal(*e) // canon's own words for the fault
		if err == nil {
			err = w.err
		}
		return b, err
	}
	return w.b, nil
}

// eventSize is about the length of e's encoding: its strings as they are,
// with room for the keys, quotes and commas (an event with every string
// empty is 549 bytes) and a line's newline; escapes may need more. A long
// walk's event is so written into one buffer, not one per doubling.
func eventSize(e *TurnEvent) int {
	n := 560 + len(e.ArticulationSurface) + len(e.DialogueRole) + len(e.EpistemicStatus) + len(e.GroundingSource) +
		len(e.IdentityHashAfter) + len(e.IdentityHashBefore) + len(e.IdentityPackID) + len(e.IdentityScore) +
		len(e.Intent) + len(e.RefusalReason) + len(e.SafetyPackID) + len(e.Surface) + len(e.TeachingEpistemicStatus) +
		len(e.TeachingProposal) + len(e.TraceHash) + len(e.VersorCondition) + len(e.WalkSurface)
	for _, l := range [...][]string{e.CitedSourceSHAs, e.IdentityDeviation, e.InputTokens, e.SafetyViolated} {
		for _, s := range l {
			n += len(s) + 3
		}
	}
	return n
}

func (w *writer) bool(prefix string, v bool) {
	w.raw(prefix)
	w.b = strconv.AppendBool(w.b, v)
}

// list appends prefix and the strings l as a JSON list.
func (w *writer) list(prefix string, l []string) {
	w.raw(prefix)
	w.raw("[")
	for i, s := range l {
		if i > 0 {
			w.raw(",")
		}
		w.str(s)
	}
	w.raw("]")
}
