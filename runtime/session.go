package runtime

import (
	"context"
	"errors"
	"fmt"
	"unicode/utf8"

	"formation/packs"
	"formation/runtime/algebra"
	"formation/runtime/field"
	"formation/runtime/identity"
	"formation/runtime/knowledge"
	"formation/runtime/parse"
	"formation/runtime/refusal"
	"formation/runtime/review/override"
	"formation/runtime/text"
	"formation/runtime/trace"
	"formation/runtime/vault"
)

// Session is one conversation. It is not safe for concurrent use; a
// conversation is sequential. Everything it learns dies with it.
type Session struct {
	rt      *Runtime
	field   *field.Field
	vault   vault.Vault
	overlay *knowledge.Overlay
	turn    int
	teach   *teacher // nil unless the session records teaching proposals

	// parsed is the last turn's input and its Parse, for ReadsAs.
	parsed struct {
		input string
		u     parse.Utterance
		done  bool
	}

	// scratch is what a turn writes and drops, kept for the next turn (and,
	// through Reset, the next conversation) instead of allocated anew.
	scratch scratch
}

// scratch holds a session's per-turn buffers. Nothing a turn returns or
// emits points into them.
type scratch struct {
	ts     turnState    // the turn under way
	hasher trace.Hasher // the trace payload's buffer
	cites  []trace.Cite // the trace payload's citations
	walk   walkScratch  // a walk's working sets
}

// NewSession starts a conversation over the runtime's knowledge.
func (rt *Runtime) NewSession() *Session {
	return &Session{rt: rt, field: field.NewWithRotors(rt.cfg.Operator, rt.rotors), overlay: knowledge.NewOverlay(rt.cfg.Knowledge)}
}

// Reset makes s the conversation NewSession starts (not a teaching one),
// keeping the buffers its turns have grown: a caller that runs many
// one-turn conversations in a row on one goroutine (the run stage's
// workers) starts each without allocating a session. Nothing a turn of the
// earlier conversation returned is touched.
func (s *Session) Reset() {
	s.field.Reset()
	s.vault.Reset()
	s.overlay.Reset()
	s.turn, s.teach = 0, nil
	s.parsed.input, s.parsed.u, s.parsed.done = "", parse.Utterance{}, false
}

// Condition is the versor condition of the session's committed field state.
func (s *Session) Condition() float64 { return s.field.Condition() }

// Halted returns the closure violation that halted the session, or nil.
func (s *Session) Halted() *field.ClosureError { return s.field.Halted() }

// Overlay is the session's knowledge layer (what it asserted and contested).
func (s *Session) Overlay() *knowledge.Overlay { return s.overlay }

// turnState is what one turn accumulates before it becomes a response.
type turnState struct {
	input   string
	utt     parse.Utterance
	step    field.Step
	stepped bool
	resp    ChatResponse
	claimID string
	review  string
	op      string

	// capture is the teaching proposal the turn makes; rested lists the
	// proposals its answer rests on (teaching sessions only).
	capture *capture
	rested  []string

	// cited are the source digests the answer cites, sorted and unique:
	// the safety check's evidence and the event's list.
	cited []string

	// hashBefore and hashAfter are the identity manifold's hash at the start
	// and at the end of the turn.
	hashBefore, hashAfter string

	// trajectory is the identity check over the turn's trajectory, once
	// computed (before composing when the hard-block policy is on).
	trajectory *identity.Score

	// lean is the word scorer's reading of the input, which the gate and
	// the identity check both take: computed once per turn.
	lean override.Lean
}

// Turn runs one turn. The response is complete on every path (answered,
// refused, gated, halted) and exactly one TurnEvent is emitted for it. The
// error is non-nil when the field left closure (*field.ClosureError, the
// response refuses with closure_violation and the session is halted), when
// the session was already halted (*field.HaltedError), when the hint is
// malformed (*HintError; the turn does not start and no event is emitted),
// when a teaching session could not record its proposal or read one's
// standing (*TeachingError), or when emitting the event failed.
func (s *Session) Turn(ctx context.Context, input string, hint *StepHint) (ChatResponse, error) {
	if err := ctx.Err(); err != nil {
		return ChatResponse{}, fmt.Errorf("runtime: turn not started: %w", err)
	}
	if err := hint.validate(); err != nil {
		return ChatResponse{}, err
	}
	ts := &s.scratch.ts
	*ts = turnState{input: input, hashBefore: s.rt.cfg.Manifold.Hash()}
	ts.resp.Turn = s.turn
	s.turn++
	s.beginTeaching(ctx)
	turnErr := s.run(ts, hint)
	s.finish(ts)
	if err := s.endTeaching(ctx, ts); err != nil {
		turnErr = errors.Join(turnErr, err)
	}
	if err := s.emit(ctx, ts); err != nil {
		return ts.resp, errors.Join(turnErr, err)
	}
	return ts.resp, turnErr
}

// Oversized is the answer to an input longer than limit bytes that the
// caller did not read whole (a chat line): a refusal with reason
// input_too_long. It is not a turn: the session does not change, no event
// is emitted and Turn is the number the next turn will have.
func (s *Session) Oversized(limit int) ChatResponse {
	surface := fmt.Sprintf("I can't read that input: it is longer than %d bytes.", limit)
	return ChatResponse{Turn: s.turn, Kind: KindRefusal, Surface: surface, WalkSurface: surface, ArticulationSurface: surface,
		DialogueRole: roleRefute, GroundingSource: GroundedNone, RefusalReason: refusal.InputTooLong,
		RefusalBoundaries: []string{}, Citations: []knowledge.Citation{}, Edges: []trace.Edge{}, WalkTails: []string{},
		SafetyVerdict: packs.SafetyVerdict{Violated: []string{}, Results: []packs.SafetyCheckResult{}}}
}

// run fills ts.resp up to (not including) safety, identity and trace.
func (s *Session) run(ts *turnState, hint *StepHint) error {
	if !utf8.ValidString(ts.input) || len(ts.input) > MaxInputBytes {
		s.refuse(ts, refusal.MalformedInput, malformedSurface(ts.input))
		return nil
	}
	ts.utt = s.rt.grammar.ParseTokens(ts.input, ts.lean.Tokens(ts.input)) // tokens the scorer may read again
	s.parsed.input, s.parsed.u, s.parsed.done = ts.input, ts.utt, true
	ts.resp.Intent = string(ts.utt.Intent)
	if len(ts.utt.Tokens) == 0 {
		s.refuse(ts, refusal.EmptyInput, surfaceEmpty)
		return nil
	}
	step, err := s.field.Advance(ts.utt.Tokens)
	ts.step, ts.stepped = step, true
	if err != nil {
		return s.closureFailure(ts, err)
	}
	out := s.rt.gate.ReviewLean(ts.input, &ts.lean)
	ts.review = out.ReviewHash
	if out.Rejected() {
		s.refuse(ts, refusal.IdentityOverride, surfaceOverride)
		return nil
	}
	if s.rt.cfg.IdentityHardBlock {
		// Decided before composing, so a blocked turn asserts nothing into
		// the session and answers nothing.
		if score, err := s.rt.geometry.CheckTurnLean(ts.input, nil, &ts.lean); err == nil {
			ts.trajectory = &score
			if score.Flagged {
				s.refuse(ts, refusal.IdentityHardBlock, hardBlockSurface(score))
				return nil
			}
		}
	}
	s.compose(ts, hint)
	return nil
}

// closureFailure turns a field error into the typed refusal.
func (s *Session) closureFailure(ts *turnState, err error) error {
	ts.resp.Halted = true
	var ce *field.ClosureError
	var he *field.HaltedError
	switch {
	case errors.As(err, &ce):
		s.refuse(ts, refusal.ClosureViolation, closureSurface(ce.Condition))
	case errors.As(err, &he):
		s.refuse(ts, refusal.SessionHalted, haltedSurface(he.HaltedAt))
	default:
		s.refuse(ts, refusal.ClosureViolation, closureSurface(ts.step.Condition))
	}
	return err
}

// compose answers from the knowledge, typed by the hint when there is one.
func (s *Session) compose(ts *turnState, hint *StepHint) {
	u := ts.utt
	if hint != nil {
		u = hinted(u, hint)
	}
	ts.resp.Intent = string(u.Intent)
	switch u.Intent {
	case parse.Definition:
		s.define(ts, u.Subject)
	case parse.Walk:
		s.walkAnswer(ts, u.Subject, u.Relation)
	case parse.Statement:
		s.assess(ts, knowledge.Claim{Key: knowledge.Key{Head: u.Subject, Relation: u.Relation, Tail: u.Object}, Negated: u.Negated})
	default:
		if term, def, ok := parse.ReadDefinition(ts.input); ok && s.capturable(ts) {
			ts.resp.Intent = string(parse.DefinitionStatement)
			s.teachDefinition(ts, term, def)
			return
		}
		s.unknown(ts)
	}
}

// hinted replaces the parse by the typed step. An identity-override probe
// keeps the parse: the gate has already judged its text, and anything it let
// through is answered as what it says.
func hinted(u parse.Utterance, h *StepHint) parse.Utterance {
	out := parse.Utterance{Tokens: u.Tokens, Question: u.Question}
	switch h.Kind {
	case HintSeedConcept:
		out.Intent, out.Subject = parse.Definition, text.Term(h.Head)
	case HintWalkStep:
		out.Intent, out.Subject, out.Relation = parse.Walk, text.Term(h.Head), text.Relation(h.Relation)
	case HintIntroduceRelation, HintFalseClaim:
		out.Intent, out.Subject, out.Relation, out.Object = parse.Statement, text.Term(h.Head), text.Relation(h.Relation), text.Term(h.Tail)
	default:
		return u
	}
	return out
}

// recall counts the vault hits of a grounded turn and stores the turn's
// prompt rotor. Recall runs before the store, so a turn never recalls itself;
// a hit is an earlier turn at or above RecallFloor. An exact hit (the same
// utterance earlier in the session) makes the dialogue role "elaborate".
func (s *Session) recall(ts *turnState, grounded bool) {
	if !ts.stepped || ts.resp.Halted {
		return
	}
	if grounded {
		for _, h := range s.vault.Recall(ts.step.Prompt, s.rt.cfg.RecallTopK, "") {
			if h.Exact || h.Score >= RecallFloor {
				ts.resp.VaultHits++
			}
			if h.Exact {
				ts.resp.DialogueRole = roleElaborate
			}
		}
	}
	s.vault.Store(vault.Entry{Versor: ts.step.Prompt, Turn: ts.resp.Turn, Role: "user", Subject: ts.resp.Subject})
}

// fieldState is the state the turn produced: the committed state, or the
// refused candidate when closure failed, or the untouched committed state when
// the field did not advance.
func (s *Session) fieldState(ts *turnState) (algebra.MV, float64) {
	if ts.stepped {
		return ts.step.State, ts.step.Condition
	}
	st, _ := s.field.State()
	return st, s.field.Condition()
}
