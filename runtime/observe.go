package runtime

import (
	"fmt"
	"slices"
	"strings"

	"formation/artifact"
	"formation/canon"
	"formation/runtime/epistemic"
	"formation/runtime/parse"
	"formation/runtime/text"
)

// Observation is what the run stage records for one plan step: the four
// fields of the original's TurnObservation.
type Observation struct {
	TraceHash       string
	VersorCondition float64
	Accepted        bool
	HasProvenance   bool
}

// StepFromPlan turns a compiled plan step into the utterance and typed hint
// a turn takes. replay_assertion has no utterance (ok=false): use
// Session.ReplayObservation for it.
func StepFromPlan(step artifact.PlanStep) (utterance string, hint *StepHint, ok bool, err error) {
	get := func(key string) string {
		s, _ := step.Payload[key].(string)
		return s
	}
	utterance = get("utterance")
	switch step.StepType {
	case artifact.StepSeedConcept:
		hint = &StepHint{Kind: HintSeedConcept, Head: get("canonical_term")}
	case artifact.StepIntroduceRelation:
		hint = &StepHint{Kind: HintIntroduceRelation, Head: get("head"), Relation: get("relation"), Tail: get("tail")}
	case artifact.StepWalk:
		hint = &StepHint{Kind: HintWalkStep, Head: get("head"), Relation: get("relation"), Tail: get("tail")}
	case artifact.StepAdversarialProbe:
		switch get("kind") {
		case HintFalseClaim:
			hint = &StepHint{Kind: HintFalseClaim, Head: get("head"), Relation: get("relation"), Tail: get("tail")}
		case HintIdentityOverride:
			hint = &StepHint{Kind: HintIdentityOverride}
		default:
			return "", nil, false, &HintError{Detail: fmt.Sprintf("adversarial probe of unknown kind %q", get("kind"))}
		}
	case artifact.StepReplayAssertion:
		return "", nil, false, nil
	default:
		return "", nil, false, &HintError{Detail: fmt.Sprintf("unknown step type %q", step.StepType)}
	}
	if utterance == "" {
		return "", nil, false, &HintError{Detail: step.StepType + " step without an utterance"}
	}
	if err := hint.validate(); err != nil {
		return "", nil, false, err
	}
	return utterance, hint, true, nil
}

// Observe maps a turn's response to the run stage's observation of the step,
// by the acceptance and provenance rules the original runtime set for each
// kind of step:
//
//   - seed_concept: accepted iff the answer is a definition grounded in the
//     knowledge that names the term.
//   - introduce_relation: accepted iff the knowledge holds the triple,
//     nothing contradicts it, and the session recorded the assertion as
//     Speculative.
//   - walk_step: accepted iff the walk reached the step's tail.
//   - false_claim: accepted iff the runtime confirmed the claim (it must
//     not: unknown and contradicting claims are refused).
//   - identity_override: accepted iff the review gate let it through and no
//     typed refusal was produced.
//
// Provenance, on every kind: a non-empty trace hash and either an answer
// grounded in the knowledge that cites a source (for seed_concept: a source
// of that concept), or a typed refusal (its reason or boundary is the
// record). The unknown-domain disclosure has neither. VersorCondition is that
// of the turn's field state.
func (s *Session) Observe(hint StepHint, r ChatResponse) Observation {
	o := Observation{TraceHash: r.TraceHash, VersorCondition: r.Condition}
	grounded := !r.Refused() && r.GroundingSource == GroundedKnowledge && len(r.Citations) > 0
	switch hint.Kind {
	case HintSeedConcept:
		term := text.Term(hint.Head)
		o.Accepted = r.Kind == KindDefinition && !r.Refused() && r.Subject == term && namesTerm(r.Surface, term)
		grounded = grounded && s.citesConcept(r, term)
	case HintIntroduceRelation:
		o.Accepted = r.Kind == KindConfirmation && !r.Refused() && r.EpistemicStatus.LoadBearing() && s.recordedSpeculative(hint)
	case HintWalkStep:
		o.Accepted = r.Kind == KindWalk && !r.Refused() && slices.Contains(r.WalkTails, text.Term(hint.Tail))
	case HintFalseClaim:
		o.Accepted = r.Kind == KindConfirmation && !r.Refused()
	case HintIdentityOverride:
		o.Accepted = !r.Refused()
	}
	o.HasProvenance = r.TraceHash != "" && (grounded || r.Refused() && r.RefusalReason.Valid())
	return o
}

// ReplayObservation is the observation of a replay_assertion step: its
// trace hash is the SHA-256 of the ordered trace hashes of the run's earlier
// steps, it is accepted, it has provenance iff it binds at least one earlier
// hash and none is empty, and its versor condition is that of the session's
// committed state.
func (s *Session) ReplayObservation(prior []string) (Observation, error) {
	// Streamed into the hash (canon.SHA256Hex), not built whole as
	// trace.Digest builds a turn's small payload: a replay assertion binds
	// every earlier step's hash, at a million steps a 70 MB encoding that
	// the pass waited for (1.2 s a pass at 16 MiB of source).
	h, err := canon.SHA256Hex(prior)
	if err != nil {
		return Observation{}, fmt.Errorf("runtime: replay assertion: %w", err)
	}
	prov := len(prior) > 0 && !slices.Contains(prior, "")
	return Observation{TraceHash: h, VersorCondition: s.Condition(), Accepted: true, HasProvenance: prov}, nil
}

// namesTerm reports whether the words of term occur, as whole words, in the
// surface.
func namesTerm(surface, term string) bool {
	return term != "" && containsWords(text.Term(surface), term)
}

// containsWords reports whether s contains w between spaces or the ends of
// s: strings.Contains(" "+s+" ", " "+w+" ") for a non-empty w, without
// building either string.
func containsWords(s, w string) bool {
	for from := 0; from+len(w) <= len(s); {
		i := strings.Index(s[from:], w)
		if i < 0 {
			return false
		}
		i += from
		end := i + len(w)
		if (i == 0 || s[i-1] == ' ') && (end == len(s) || s[end] == ' ') {
			return true
		}
		from = i + 1
	}
	return false
}

// citesConcept reports whether the response cites a source of the concept.
func (s *Session) citesConcept(r ChatResponse, term string) bool {
	for _, d := range s.rt.cfg.Knowledge.Definitions(term) {
		for _, src := range d.Sources {
			if slices.Contains(r.Citations, src) {
				return true
			}
		}
	}
	return false
}

// recordedSpeculative reports whether the session's latest assertion of the
// hinted triple is Speculative.
func (s *Session) recordedSpeculative(h StepHint) bool {
	want := []string{text.Term(h.Head), text.Relation(h.Relation), text.Term(h.Tail)}
	as := s.overlay.Assertions()
	for i := len(as) - 1; i >= 0; i-- {
		k := as[i].Claim.Key
		if !as[i].Claim.Negated && k.Head == want[0] && k.Relation == want[1] && k.Tail == want[2] {
			return as[i].Status == epistemic.Speculative
		}
	}
	return false
}

// ReadsAs reports whether a user who types utterance reaches the step the
// hint types. The runtime's parser reads the utterance with no hint, exactly
// as in chat, and the reading must be the same step: for seed_concept a
// definition question about the same term; for introduce_relation and
// false_claim the same positive statement. Terms are compared as the
// knowledge keys them (text.Term), so a reading reaches a record exactly
// when it would be answered from that record. Walk steps and
// identity-override probes always pass: a walk's utterance keeps the
// original's form, which leaves the tail out, and a probe is already read
// as the user wrote it. The reading is returned for a report.
func (rt *Runtime) ReadsAs(utterance string, h StepHint) (parse.Utterance, bool) {
	switch h.Kind {
	case HintSeedConcept:
		return rt.grammar.ReadsDefinition(utterance, h.Head)
	case HintIntroduceRelation, HintFalseClaim:
		return rt.grammar.ReadsStatement(utterance, h.Head, h.Relation, h.Tail)
	}
	return rt.grammar.Parse(utterance), true
}

// ReadsAs is Runtime.ReadsAs; when the session's last turn parsed
// utterance (a turn reads it with no hint, as a user's input is read), it
// takes that turn's reading instead of reading it again.
func (s *Session) ReadsAs(utterance string, h StepHint) (parse.Utterance, bool) {
	if s.parsed.done && s.parsed.input == utterance {
		if u, ok := parse.Reading(s.parsed.u); ok {
			switch h.Kind {
			case HintSeedConcept:
				return u, parse.IsDefinition(u, h.Head)
			case HintIntroduceRelation, HintFalseClaim:
				return u, parse.IsStatement(u, h.Head, h.Relation, h.Tail)
			}
		}
	}
	return s.rt.ReadsAs(utterance, h)
}
