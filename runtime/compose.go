package runtime

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"slices"
	"strconv"

	"formation/canon"
	"formation/runtime/admissibility"
	"formation/runtime/epistemic"
	"formation/runtime/knowledge"
	"formation/runtime/refusal"
	"formation/runtime/text"
	"formation/runtime/trace"
	"formation/teaching"
)

// maxEvidenceEdges bounds the edges a definition shows as walk evidence.
const maxEvidenceEdges = 4

// answer records a grounded answer.
func (s *Session) answer(ts *turnState, kind Kind, subject, articulation, walk string, status epistemic.Status, edges []knowledge.Triple, sources []knowledge.Citation) {
	r := &ts.resp
	r.Kind, r.Subject = kind, subject
	r.ArticulationSurface = marked(status, articulation)
	r.Surface = r.ArticulationSurface
	r.WalkSurface = walk
	r.GroundingSource, r.DialogueRole = GroundedKnowledge, roleAssert
	r.EpistemicStatus = status
	r.Edges = edgesOf(edges)
	r.Citations = mergeCitations(sources, edges)
}

// refuse turns the response into a typed refusal. Evidence gathered so far
// (citations, edges, epistemic status) stays; what an answer would have
// reached does not.
func (s *Session) refuse(ts *turnState, reason refusal.Reason, surface string) {
	r := &ts.resp
	r.Kind, r.RefusalReason = KindRefusal, reason
	r.Surface, r.ArticulationSurface = surface, surface
	if r.WalkSurface == "" {
		r.WalkSurface = surface
	}
	r.WalkTails = nil
	r.GroundingSource, r.DialogueRole = GroundedNone, roleRefute
	r.GateFired = false
}

// unknown is the unknown-domain disclosure: the knowledge does not ground
// the input. It is not a refusal and carries no reason.
func (s *Session) unknown(ts *turnState) {
	r := &ts.resp
	r.Kind, r.GateFired = KindUnknown, true
	r.Surface, r.ArticulationSurface, r.WalkSurface = UnknownDomainSurface, UnknownDomainSurface, UnknownDomainSurface
	r.GroundingSource, r.DialogueRole = GroundedNone, roleAssert
}

// define answers "What is X?".
func (s *Session) define(ts *turnState, term string) {
	k := s.rt.cfg.Knowledge
	if !s.overlay.HasTerm(term) {
		s.unknown(ts)
		return
	}
	ts.op = "definition"
	held, counters := k.Mentions(term)
	held = append(s.loadBearing(held), s.usableLessons(ts, s.overlay.LessonMentions(term))...)
	evidence := held
	if len(evidence) > maxEvidenceEdges {
		evidence = evidence[:maxEvidenceEdges]
	}
	walk := term
	if len(evidence) > 0 {
		walk = joinEdges(evidence)
	}
	var texts []string
	var sources []knowledge.Citation
	status := epistemic.Coherent
	defs := append(k.Definitions(term), s.usableDefinitions(ts, s.overlay.LessonDefinitions(term))...)
	s.restOnTriples(ts, evidence)
	for _, d := range defs {
		s.restOn(ts, d.Sources)
		if d.Definition != "" {
			texts = append(texts, d.Definition)
		}
		sources = append(sources, d.Sources...)
		status = epistemic.MoreDoubtful(status, d.Status)
	}
	switch {
	case len(texts) > 0:
		s.answer(ts, KindDefinition, term, definitionSurface(term, texts), walk, status, nil, sources)
	case len(evidence) > 0:
		s.answer(ts, KindDefinition, term, edgesOnlySurface(term, evidence), walk, statusOf(evidence), evidence, nil)
	case len(defs) > 0:
		s.answer(ts, KindDefinition, term, capitalize(term)+" is a recorded term without a definition.", walk, status, nil, sources)
	default:
		for i := range counters {
			counters[i].Status = s.overlay.CounterStatus(counters[i])
		}
		s.answer(ts, KindDefinition, term, countersOnlySurface(term, counters), walk, statusOf(counters), counters, nil)
	}
}

// walkAnswer answers "What does X <relation>?".
func (s *Session) walkAnswer(ts *turnState, head, rel string) {
	k := s.rt.cfg.Knowledge
	if !s.overlay.HasTerm(head) {
		s.unknown(ts)
		return
	}
	ts.op = "walk:" + rel
	ts.resp.Subject = head
	f, _ := s.fieldState(ts)
	res, err := s.walk(ts, head, rel, f)
	var ee *admissibility.ExhaustionError
	if err != nil {
		ee = exhaustion(err)
	}
	switch {
	case ee != nil:
		ts.resp.WalkSurface = joinEdges(res.edges)
		s.refuse(ts, ee.Reason, exhaustedSurface(head, rel, ee))
	case len(res.tails) == 0 && len(k.Out(head, rel)) > 0:
		// Every edge exists but is contested in this session.
		ts.resp.EpistemicStatus = epistemic.Contested
		s.refuse(ts, refusal.ContradictedClaim, contestedEdgesSurface(head, rel))
	case len(res.tails) == 0:
		s.refuse(ts, refusal.UngroundedRelation, noEdgeSurface(head, rel))
	default:
		s.restOnTriples(ts, res.edges)
		s.answer(ts, KindWalk, head, walkSurfaceText(head, rel, res), joinEdges(res.edges), statusOf(res.edges), res.edges, nil)
		ts.resp.WalkTails = append([]string(nil), res.tails...)
	}
}

// exhaustion is the *admissibility.ExhaustionError in err's chain, or nil.
// It is a function of its own because errors.As takes its target's
// address: in walkAnswer, the target moved to the heap on every walk, not
// only on the rare walk that fails.
func exhaustion(err error) *admissibility.ExhaustionError {
	var ee *admissibility.ExhaustionError
	if errors.As(err, &ee) {
		return ee
	}
	return nil
}

// assess answers a statement by asserting it in the session overlay. In a
// teaching session, a statement the knowledge does not confirm is recorded
// as a proposal, and one the session proposed earlier is confirmed from its
// lesson, as speculative.
func (s *Session) assess(ts *turnState, c knowledge.Claim) {
	a := s.overlay.Assess(c, ts.resp.Turn)
	said := capture{claim: c} // a proposal keeps the terms as read (text.NormalTerm), not the index keys
	c.Key = knowledge.Key{Head: text.Term(c.Key.Head), Relation: text.Relation(c.Key.Relation), Tail: text.Term(c.Key.Tail)}
	if a.Verdict == knowledge.UnknownTerms {
		if s.capturable(ts) {
			ts.claimID, ts.resp.EpistemicStatus = claimID(c, ts.resp.Turn), epistemic.Speculative
			s.propose(ts, said, c.Key.Head, unknownClaimSurface(c), epistemic.Speculative, nil, nil)
			return
		}
		s.unknown(ts)
		return
	}
	ts.op = "assess"
	ts.claimID = claimID(c, ts.resp.Turn)
	ts.resp.Subject = c.Key.Head
	var rec []knowledge.Triple
	if a.HasRecord {
		rec = []knowledge.Triple{a.Record}
	}
	lesson, learned := s.overlay.Lesson(c)
	switch {
	case a.Verdict == knowledge.Held:
		s.answer(ts, KindConfirmation, c.Key.Head, confirmSurface(c, a), sentence(a.Record.Key()), a.Record.Status, rec, nil)
	case a.Verdict == knowledge.Contradicted && s.capturable(ts) && !learned:
		s.propose(ts, said, c.Key.Head, contradictedSurface(c, a), epistemic.Contested, rec, nil)
	case a.Verdict == knowledge.Contradicted:
		ts.resp.EpistemicStatus, ts.resp.Edges, ts.resp.Citations = epistemic.Contested, edgesOf(rec), mergeCitations(nil, rec)
		ts.resp.WalkSurface = sentence(c.Key)
		s.refuse(ts, refusal.ContradictedClaim, contradictedSurface(c, a))
	case learned && lesson.Status.LoadBearing() && s.usable(ts, lesson.Sources):
		s.restOn(ts, lesson.Sources)
		s.answer(ts, KindConfirmation, c.Key.Head, confirmLessonSurface(c), sentence(c.Key), lesson.Status, []knowledge.Triple{lesson}, nil)
	case s.capturable(ts) && !learned:
		s.propose(ts, said, c.Key.Head, ungroundedSurface(c), a.Status, nil, nil)
	default:
		ts.resp.EpistemicStatus, ts.resp.WalkSurface = a.Status, sentence(c.Key)
		s.refuse(ts, refusal.UngroundedRelation, ungroundedSurface(c))
	}
}

// teachDefinition answers, in a teaching session, a statement that defines
// a term: confirmed when the knowledge (or a usable lesson) says the same,
// recorded as a proposal otherwise.
func (s *Session) teachDefinition(ts *turnState, term, def string) {
	ts.op = "definition"
	mine := teaching.SameDefinitionKey(def)
	var others []string
	var cites []knowledge.Citation
	for _, d := range s.rt.cfg.Knowledge.Definitions(term) {
		if teaching.SameDefinitionKey(d.Definition) == mine {
			s.answer(ts, KindDefinition, term, confirmDefinitionSurface(term, d.Definition), term, d.Status, nil, d.Sources)
			return
		}
		others, cites = append(others, d.Definition), append(cites, d.Sources...)
	}
	for _, d := range s.usableDefinitions(ts, s.overlay.LessonDefinitions(term)) {
		if teaching.SameDefinitionKey(d.Definition) == mine {
			s.restOn(ts, d.Sources)
			s.answer(ts, KindDefinition, term, confirmDefinitionSurface(term, d.Definition), term, d.Status, nil, d.Sources)
			return
		}
	}
	status := epistemic.Speculative
	if len(others) > 0 {
		status = epistemic.Contested
	}
	s.propose(ts, capture{definition: true, term: term, def: def, status: status}, term, definitionVerdictSurface(term, others), status, nil, cites)
}

// usableLessons keeps the lessons the session may rest an answer on now.
func (s *Session) usableLessons(ts *turnState, recs []knowledge.Triple) []knowledge.Triple {
	var out []knowledge.Triple
	for _, r := range recs {
		if r.Status.LoadBearing() && s.usable(ts, r.Sources) {
			out = append(out, r)
		}
	}
	return out
}

// usableDefinitions keeps the learned definitions the session may rest an
// answer on now.
func (s *Session) usableDefinitions(ts *turnState, defs []knowledge.Concept) []knowledge.Concept {
	var out []knowledge.Concept
	for _, d := range defs {
		if d.Status.LoadBearing() && s.usable(ts, d.Sources) {
			out = append(out, d)
		}
	}
	return out
}

// loadBearing keeps the triples the session may still rely on.
func (s *Session) loadBearing(ts []knowledge.Triple) []knowledge.Triple {
	var out []knowledge.Triple
	for _, t := range ts {
		if st := s.overlay.TripleStatus(t); st.LoadBearing() {
			t.Status = st
			out = append(out, t)
		}
	}
	return out
}

// statusOf is the status an answer resting on all of ts carries: the most
// doubtful among them.
func statusOf(ts []knowledge.Triple) epistemic.Status {
	s := epistemic.Coherent
	for _, t := range ts {
		st := t.Status
		if st == "" {
			st = epistemic.Speculative
		}
		s = epistemic.MoreDoubtful(s, st)
	}
	return s
}

func edgesOf(ts []knowledge.Triple) []trace.Edge {
	out := make([]trace.Edge, len(ts))
	for i, t := range ts {
		out[i] = trace.Edge{Head: t.Head, Relation: t.Relation, Tail: t.Tail}
	}
	return out
}

// mergeCitations lists the citations of an answer: the given ones, then
// every edge's, without repeats, in first-seen order.
func mergeCitations(given []knowledge.Citation, edges []knowledge.Triple) []knowledge.Citation {
	var out []knowledge.Citation
	seen := map[knowledge.Citation]bool{}
	add := func(c knowledge.Citation) {
		if !seen[c] {
			seen[c] = true
			out = append(out, c)
		}
	}
	for _, c := range given {
		add(c)
	}
	for _, e := range edges {
		for _, c := range e.Sources {
			add(c)
		}
	}
	return out
}

// citedSHAs lists the distinct source digests a response cites, sorted.
// An answer cites a handful of sources, so they are sorted and their
// repeats dropped in place rather than through a set.
func citedSHAs(cs []knowledge.Citation) []string {
	if len(cs) == 0 {
		return nil
	}
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = c.SourceSHA
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// claimID names the claim a turn asserted: the first 16 hex digits of the
// SHA-256 of {head, relation, tail, negated, turn}.
//
// It writes the canonical JSON of that object directly (keys in byte
// order) rather than through trace.Digest of a map: TestClaimIDIsDigest
// holds the two equal.
func claimID(c knowledge.Claim, turn int) string {
	b := make([]byte, 0, 96+len(c.Key.Head)+len(c.Key.Relation)+len(c.Key.Tail))
	var err error
	if b, err = canon.AppendString(append(b, `{"head":`...), c.Key.Head); err != nil {
		return ""
	}
	b = strconv.AppendBool(append(b, `,"negated":`...), c.Negated)
	if b, err = canon.AppendString(append(b, `,"relation":`...), c.Key.Relation); err != nil {
		return ""
	}
	if b, err = canon.AppendString(append(b, `,"tail":`...), c.Key.Tail); err != nil {
		return ""
	}
	b = append(strconv.AppendInt(append(b, `,"turn":`...), int64(turn), 10), '}')
	sum := sha256.Sum256(b)
	var out [16]byte // only the string is allocated, not a slice first
	hex.Encode(out[:], sum[:8])
	return string(out[:])
}

func sha256Sum(s string) [32]byte { return sha256.Sum256([]byte(s)) }
