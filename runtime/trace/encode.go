package trace

import (
	"strconv"

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
	w.key(`{"articulation_surface":`, p.ArticulationSurface)
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
	w.key(`,"surface":`, p.Surface)
	if p.TeachingEpistemicStatus != "" {
		w.key(`,"teaching_epistemic_status":`, p.TeachingEpistemicStatus)
	}
	w.raw(`,"vault_hits":`)
	w.int(p.VaultHits)
	w.key(`,"versor_condition":`, p.VersorCondition)
	w.key(`,"walk_surface":`, p.WalkSurface)
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
	if w.err == nil {
		w.b, w.err = canon.AppendString(w.b, s)
	}
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
	w := writer{b: b}
	w.key(`{"articulation_surface":`, e.ArticulationSurface)
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
	w.key(`,"surface":`, e.Surface)
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
	w.key(`,"walk_surface":`, e.WalkSurface)
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
