package trace

import (
	"strconv"

	"formation/canon"
)

// appendPayload appends the canonical JSON of p (canon.Marshal's bytes: keys
// in byte order, omitempty fields left out when zero) without reflection:
// every turn hashes a payload, and walking its struct by reflection was a
// tenth of a turn's work. p's lists must not be nil (ComputeTraceHash makes
// them empty): a nil list is written [] where canon writes null. It fails
// where canon.Marshal fails (a string that is not valid UTF-8); the caller
// then falls back to canon.Marshal, so that the error's text is canon's.
// TestPayloadEncodingIsCanon and FuzzPayloadEncoding hold it equal to
// canon.Marshal.
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
