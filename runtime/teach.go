package runtime

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	"formation/runtime/epistemic"
	"formation/runtime/knowledge"
	"formation/runtime/refusal"
	"formation/teaching"
)

// Teacher is where a teaching session's proposals go and where their
// standing is read (package teaching/queue over the store, in production).
// It holds proposals only: nothing it does reaches the knowledge a runtime
// answers from.
type Teacher interface {
	// Propose records p and returns its id; recording the same proposal
	// again (a replayed session) returns the same id and changes nothing.
	Propose(ctx context.Context, p teaching.Proposal) (string, error)
	// Standing is the proposal's status and verdict now.
	Standing(ctx context.Context, id string) (teaching.Standing, error)
}

// TeachingError is a teaching session's failure to record a proposal or
// read one's standing: the turn's response is complete, but what it says
// was recorded was not, or what it rests on could not be checked.
type TeachingError struct{ Err error }

func (e *TeachingError) Error() string { return "runtime: teaching: " + e.Err.Error() }
func (e *TeachingError) Unwrap() error { return e.Err }

// teacher is the teaching part of a session.
type teacher struct {
	t         Teacher
	sessionID string // given, or the first turn's trace hash
	recorded  int
	lessons   map[string]bool // ids of the proposals this session recorded
	allowed   []string        // the runtime's allowed sources and those ids, sorted
	// lookup is the current turn's: its context, the standings read so far
	// and the first read that failed.
	lookup *standingLookup
}

type standingLookup struct {
	ctx      context.Context
	standing map[string]teaching.Standing
	err      error
}

// capture is the proposal a turn makes, complete but for the turn's trace
// hash.
type capture struct {
	claim      knowledge.Claim // relation or counter-claim
	term, def  string          // definition
	definition bool
	status     epistemic.Status // a definition's status in the session
}

// NewTeachingSession starts a conversation that records what the user says
// and the knowledge does not confirm as teaching proposals (through t), and
// may rest later answers of the same conversation on them, marked
// speculative. sessionID names the session in its proposals; "" derives it
// from the first turn's trace hash (never the clock or randomness). Only
// `formation chat` opens one: ask, the run stage, ratify's re-runs and eval
// use NewSession, which never records anything.
func (rt *Runtime) NewTeachingSession(t Teacher, sessionID string) *Session {
	s := rt.NewSession()
	s.teach = &teacher{t: t, sessionID: sessionID, lessons: map[string]bool{}, allowed: rt.allowed}
	return s
}

// SessionID is the teaching session's id ("" for a session that does not
// teach, and before the first turn when the id is derived).
func (s *Session) SessionID() string {
	if s.teach == nil {
		return ""
	}
	return s.teach.sessionID
}

// allowedSources is what the no_fabricated_source boundary checks citations
// against: a teaching session may also cite its own proposals.
func (s *Session) allowedSources() []string {
	if s.teach != nil {
		return s.teach.allowed
	}
	return s.rt.allowed
}

// capturable reports whether this turn may record a proposal: a teaching
// session, and a statement rather than a question.
func (s *Session) capturable(ts *turnState) bool { return s.teach != nil && !ts.utt.Question }

// usable reports whether the session may rest this turn's answer on rec: a
// record of the knowledge always (the overlay judged it already), a lesson
// only while its proposal's standing is usable.
func (s *Session) usable(ts *turnState, sources []knowledge.Citation) bool {
	id, ok := s.lessonOf(sources)
	if !ok {
		return true
	}
	st, ok := s.standing(ts, id)
	return ok && st.Usable()
}

// lessonOf returns the proposal a lesson record cites.
func (s *Session) lessonOf(sources []knowledge.Citation) (string, bool) {
	if s.teach == nil || len(sources) != 1 || !s.teach.lessons[sources[0].SourceSHA] {
		return "", false
	}
	return sources[0].SourceSHA, true
}

// standing reads a proposal's standing once per turn; a failed read makes
// the lesson unusable and fails the turn.
func (s *Session) standing(ts *turnState, id string) (teaching.Standing, bool) {
	l := s.teach.lookup
	if st, ok := l.standing[id]; ok {
		return st, true
	}
	st, err := s.teach.t.Standing(l.ctx, id)
	if err != nil {
		l.err = errors.Join(l.err, fmt.Errorf("proposal %s: %w", id, err))
		return teaching.Standing{}, false
	}
	l.standing[id] = st
	return st, true
}

// restOn notes the lessons among records the answer rests on.
func (s *Session) restOn(ts *turnState, records ...[]knowledge.Citation) {
	for _, srcs := range records {
		if id, ok := s.lessonOf(srcs); ok && !contains(ts.rested, id) {
			ts.rested = append(ts.rested, id)
		}
	}
}

func (s *Session) restOnTriples(ts *turnState, recs []knowledge.Triple) {
	for _, t := range recs {
		s.restOn(ts, t.Sources)
	}
}

// teachingStatus is what the trace hash folds as teaching_epistemic_status:
// the status in the store, when the turn runs, of each proposal the answer
// rests on, in the order the answer came to them, joined by commas; "" when
// it rests on none.
func (s *Session) teachingStatus(ts *turnState) string {
	if s.teach == nil || len(ts.rested) == 0 {
		return ""
	}
	parts := make([]string, len(ts.rested))
	for i, id := range ts.rested {
		parts[i] = string(s.teach.lookup.standing[id].Status)
	}
	return strings.Join(parts, ",")
}

// propose turns the response into the record of a proposal: what the
// knowledge says about the claim (verdict), and that it was recorded.
// The proposal itself is stored after the trace hash (recordCapture).
func (s *Session) propose(ts *turnState, c capture, subject, verdict string, status epistemic.Status, evidence []knowledge.Triple, cites []knowledge.Citation) {
	if s.teach.recorded >= teaching.MaxPerSession {
		ts.resp.WalkSurface = verdict
		s.refuse(ts, refusal.TeachingLimit, limitSurface())
		return
	}
	r := &ts.resp
	r.Kind, r.Subject = KindProposal, subject
	r.Surface = verdict + " " + surfaceRecorded
	r.ArticulationSurface, r.WalkSurface = r.Surface, verdict
	r.GroundingSource, r.DialogueRole = GroundedNone, roleAssert
	if len(evidence) > 0 || len(cites) > 0 {
		r.GroundingSource = GroundedKnowledge
	}
	if status == epistemic.Contested {
		r.DialogueRole = roleRefute
	}
	r.EpistemicStatus = status
	r.Edges, r.Citations = edgesOf(evidence), mergeCitations(cites, evidence)
	ts.capture, ts.op = &c, "propose"
}

// recordCapture stores the turn's proposal (its trace hash known now) and
// lets the session rest later answers on it. It runs after the hash, so
// nothing it learns changes the turn that made the proposal.
func (s *Session) recordCapture(ctx context.Context, ts *turnState) error {
	c, r := ts.capture, &ts.resp
	var p teaching.Proposal
	if c.definition {
		p = teaching.NewDefinition(c.term, c.def, ts.input, r.TraceHash, s.teach.sessionID, r.Turn)
	} else {
		p = teaching.NewRelation(teaching.Triple{Head: c.claim.Key.Head, Relation: c.claim.Key.Relation, Tail: c.claim.Key.Tail},
			c.claim.Negated, ts.input, r.TraceHash, s.teach.sessionID, r.Turn)
	}
	id, err := s.teach.t.Propose(ctx, p)
	if err != nil {
		return &TeachingError{Err: fmt.Errorf("turn %d: the proposal was not recorded: %w", r.Turn, err)}
	}
	cite := knowledge.Citation{SourceSHA: id, Span: ts.input, Adapter: "proposal"}
	if c.definition {
		s.overlay.LearnDefinition(c.term, c.def, c.status, cite)
	} else {
		s.overlay.Learn(c.claim, r.Turn, cite)
	}
	if !s.teach.lessons[id] {
		s.teach.lessons[id] = true
		s.teach.recorded++
		s.teach.allowed = insertSorted(s.teach.allowed, id)
	}
	r.TeachingProposal = id
	return nil
}

// beginTeaching and endTeaching bracket a turn of a teaching session: the
// standings it reads belong to it alone.
func (s *Session) beginTeaching(ctx context.Context) {
	if s.teach != nil {
		s.teach.lookup = &standingLookup{ctx: ctx, standing: map[string]teaching.Standing{}}
	}
}

// endTeaching records the turn's proposal, derives the session id from the
// first turn, and reports a failed standing read or record.
func (s *Session) endTeaching(ctx context.Context, ts *turnState) error {
	if s.teach == nil {
		return nil
	}
	if s.teach.sessionID == "" {
		s.teach.sessionID = ts.resp.TraceHash
	}
	var err error
	if l := s.teach.lookup; l.err != nil {
		err = &TeachingError{Err: fmt.Errorf("turn %d: %w", ts.resp.Turn, l.err)}
	}
	if ts.capture != nil && err == nil {
		err = s.recordCapture(ctx, ts)
	}
	s.teach.lookup = nil
	return err
}

func insertSorted(list []string, v string) []string {
	i := sort.SearchStrings(list, v)
	out := make([]string, 0, len(list)+1)
	out = append(append(append(out, list[:i]...), v), list[i:]...)
	return out
}

func contains(list []string, v string) bool {
	for _, x := range list {
		if x == v {
			return true
		}
	}
	return false
}
