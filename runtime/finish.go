package runtime

import (
	"context"
	"fmt"
	"strconv"

	"formation/packs"
	"formation/runtime/identity"
	"formation/runtime/refusal"
	"formation/runtime/trace"
)

func formatCondition(v float64) string { return trace.FormatCondition(v) }

// sprintF6 is fmt.Sprintf("%.6f", v), written by strconv without fmt's
// machinery: the same text for every value, infinities and NaN included
// (TestSprintF6IsPrintf).
func sprintF6(v float64) string {
	if v == 1 {
		return "1.000000" // the score of a turn that moves nothing: most turns
	}
	return strconv.FormatFloat(v, 'f', 6, 64)
}

// finish completes a turn: vault, measurements, safety, identity and the
// trace hash.
func (s *Session) finish(ts *turnState) {
	r := &ts.resp
	ts.hashAfter = s.rt.cfg.Manifold.Hash()
	s.recall(ts, r.Kind == KindDefinition || r.Kind == KindConfirmation || r.Kind == KindWalk)
	_, cond := s.fieldState(ts)
	r.Condition, r.VersorCondition = cond, formatCondition(cond)
	if r.DialogueRole == "" {
		r.DialogueRole = roleAssert
	}
	s.safety(ts, cond)
	s.identity(ts)
	s.traceHash(ts)
}

// identity scores the turn: the identity check over the trajectory its
// tokens draw against the manifold (never the review gate's verdict, never
// the field state), flagged as well by any boundary the turn violated.
// Neither the score nor the flag is folded into the trace hash.
func (s *Session) identity(ts *turnState) {
	r := &ts.resp
	var score identity.Score
	var err error
	if ts.trajectory != nil {
		score = *ts.trajectory
		score.BoundaryViolations = append([]string(nil), r.SafetyVerdict.Violated...)
		score.Flagged = score.Flagged || len(score.BoundaryViolations) > 0
	} else {
		score, err = s.rt.geometry.CheckTurnLean(ts.input, r.SafetyVerdict.Violated, &ts.lean)
	}
	if err != nil {
		// A trajectory that cannot be scored is flagged, never hidden.
		r.Flagged, r.IdentityScore = true, "n/a"
		return
	}
	r.Identity, r.Flagged, r.IdentityScore = score, score.Flagged, sprintF6(score.Score)
}

// safety runs the safety check of every manifold boundary with this turn's
// evidence and turns a violation into a refusal naming the boundaries. The
// identity evidence compares the manifold as loaded with the manifold after
// the turn, so a change at any time since loading is caught.
func (s *Session) safety(ts *turnState, cond float64) {
	r := &ts.resp
	ts.cited = citedSHAs(r.Citations) // the event lists them too; nothing cites more after this
	ev := packs.SafetyContext{
		HasFieldState:       true,
		VersorCondition:     cond,
		HasAllowlist:        true,
		AllowedSourceSHAs:   s.allowedSources(),
		CitedSourceSHAs:     ts.cited,
		HasRefusalEvidence:  true,
		LastRefusalWasTyped: !r.Refused() || r.RefusalReason.Valid(),
		IdentityHashBefore:  s.rt.manifoldHash,
		IdentityHashAfter:   ts.hashAfter,
	}
	var v packs.SafetyVerdict
	var err error
	if s.rt.cfg.BriefVerdicts {
		v, err = s.rt.check.CheckManifoldBrief(ev, s.rt.cfg.Manifold)
	} else {
		v, err = s.rt.check.CheckManifold(ev, s.rt.cfg.Manifold)
	}
	if err != nil {
		v = packs.SafetyVerdict{Violated: []string{"safety_check"}, Results: []packs.SafetyCheckResult{}}
	}
	r.SafetyVerdict = v
	if v.Upheld && err == nil {
		return
	}
	r.RefusalBoundaries = append([]string(nil), v.Violated...)
	surface := v.RefusalSurface()
	if surface == "" {
		surface = packs.RefusalPrefix + "safety check unavailable: " + err.Error()
	}
	if r.RefusalReason == refusal.ClosureViolation || r.RefusalReason == refusal.SessionHalted {
		r.Surface = surface + ". " + r.Surface
		r.ArticulationSurface = r.Surface
		return
	}
	s.refuse(ts, refusal.SafetyBoundary, surface)
}

// traceHash folds the turn into its hash.
func (s *Session) traceHash(ts *turnState) {
	r := &ts.resp
	cites := s.scratch.cites[:0]
	for _, c := range r.Citations {
		cites = append(cites, trace.Cite{SourceSHA: c.SourceSHA, Span: c.Span, TextSHA: c.TextSHA, Start: c.Start, End: c.End})
	}
	p := trace.Payload{
		InputText: ts.input, FilteredTokens: ts.utt.Tokens,
		Surface: r.Surface, WalkSurface: r.WalkSurface, ArticulationSurface: r.ArticulationSurface,
		DialogueRole: r.DialogueRole, VersorCondition: r.VersorCondition, VaultHits: r.VaultHits,
		IntentTag: r.Intent, ReviewHash: ts.review, ClaimID: ts.claimID,
		EpistemicStatus: string(r.EpistemicStatus), OperatorInvocation: ts.op,
		Citations: cites, Graph: r.Edges, RefusalReason: string(r.RefusalReason),
		TeachingEpistemicStatus: s.teachingStatus(ts),
	}
	r.TeachingEpistemicStatus = p.TeachingEpistemicStatus
	if r.RefusalReason == refusal.MalformedInput {
		// The raw input cannot be hashed as text; its digest stands in.
		p.InputText = fmt.Sprintf("malformed:%x", sha256Sum(ts.input))
	}
	h, err := s.scratch.hasher.Hash(p)
	s.scratch.cites = cites[:0]
	if err != nil {
		h = fmt.Sprintf("unhashable:%x", sha256Sum(err.Error()))
	}
	r.TraceHash = h
}

// emit writes the turn's one event.
func (s *Session) emit(ctx context.Context, ts *turnState) error {
	if s.rt.cfg.Sink == nil {
		return nil
	}
	r := &ts.resp
	e := trace.TurnEvent{
		Turn: r.Turn, InputTokens: ts.utt.Tokens,
		Surface: r.Surface, WalkSurface: r.WalkSurface, ArticulationSurface: r.ArticulationSurface,
		DialogueRole: r.DialogueRole, Intent: r.Intent, GroundingSource: r.GroundingSource, StubPath: r.GateFired,
		VaultHits: r.VaultHits, VersorCondition: r.VersorCondition, Flagged: r.Flagged,
		IdentityScore: r.IdentityScore, IdentityDeviation: r.Identity.DeviationAxes,
		EpistemicStatus: string(r.EpistemicStatus), RefusalReason: string(r.RefusalReason), RefusalEmitted: r.Refused(),
		CitedSourceSHAs: ts.cited, SafetyPackID: s.rt.cfg.Safety.PackID,
		IdentityPackID: s.rt.cfg.Manifold.IdentityPackID(), SafetyUpheld: r.SafetyVerdict.Upheld,
		SafetyViolated: r.SafetyVerdict.Violated, SafetyCheckableCount: r.SafetyVerdict.RuntimeCheckableCount,
		IdentityHashBefore: ts.hashBefore, IdentityHashAfter: ts.hashAfter,
		Halted: r.Halted, TraceHash: r.TraceHash,
		TeachingProposal: r.TeachingProposal, TeachingEpistemicStatus: r.TeachingEpistemicStatus,
	}
	if err := s.rt.cfg.Sink.Emit(ctx, e); err != nil {
		return fmt.Errorf("runtime: turn %d: %w", r.Turn, err)
	}
	return nil
}
