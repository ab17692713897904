package export

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"formation/artifact"
	"formation/audit"
	"formation/canon"
	"formation/eval"
	"formation/ident"
	"formation/internal/exitcode"
	"formation/runtime/trace"
	"formation/store"
)

// Columns returns the columns of a kind, documented.
func Columns(kind string) ([]Column, bool) {
	switch kind {
	case "triples":
		return []Column{
			{"subject", String, "the subject id"},
			{"validated_set", String, "object digest of the validated set (the forge's output)"},
			{"section", String, "relations (held), counters (labelled false) or quarantined (refused by the forge)"},
			{"head", String, "the triple's head"},
			{"relation", String, "its relation"},
			{"tail", String, "its tail"},
			{"state", String, "candidate state: validated or quarantined"},
			{"rejection_reason", String, "why the forge quarantined it; empty otherwise"},
			{"source_shas", Strings, "SHA-256 of each cited source"},
			{"spans", Strings, "the cited span of each source, in the same order"},
		}, true
	case "concepts":
		return []Column{
			{"subject", String, "the subject id"},
			{"validated_set", String, "object digest of the validated set"},
			{"term", String, "the canonical term"},
			{"definition", String, "its definition"},
			{"state", String, "candidate state"},
			{"rejection_reason", String, "why it was refused; empty otherwise"},
			{"source_shas", Strings, "SHA-256 of each cited source"},
			{"spans", Strings, "the cited span of each source"},
		}, true
	case "audit":
		return []Column{
			{"time", String, "when the record was written (UTC, RFC 3339)"},
			{"subject", String, "the subject (or _store, _unverified)"},
			{"stage", String, "the stage or verb that wrote it"},
			{"kind", String, "rejection, drop, halt, promotion or note"},
			{"reason_code", String, "the typed reason"},
			{"key", String, "what the record is about (a candidate, a ref, an object)"},
			{"detail", String, "the human explanation"},
			{"input_digests", Strings, "digests of the inputs the stage read"},
			{"code_version", String, "the module version that wrote it"},
		}, true
	case "events":
		return []Column{
			{"subject", String, "the subject id"},
			{"run_record", String, "object digest of the run record the events belong to"},
			{"pass", Int64, "the pass over the plan: 0 or 1"},
			{"step", Int64, "the plan step, from 0"},
			{"turn", Int64, "the runtime's turn number"},
			{"input_tokens", Strings, "the tokens of the utterance"},
			{"intent", String, "the parsed intent"},
			{"surface", String, "what the runtime answered"},
			{"dialogue_role", String, "the answer's dialogue role"},
			{"grounding_source", String, "where the answer came from"},
			{"epistemic_status", String, "the epistemic status of the claim"},
			{"refusal_reason", String, "the typed refusal, if any"},
			{"refusal_emitted", Bool, "whether a refusal was emitted"},
			{"stub_path", Bool, "the unknown-domain gate fired"},
			{"vault_hits", Int64, "exact recalls from the conversation's vault"},
			{"versor_condition", String, "the versor condition of the field state"},
			{"flagged", Bool, "flagged by the identity gate"},
			{"identity_score", String, "the identity-axis score"},
			{"safety_upheld", Bool, "every checkable safety axis held"},
			{"cited_source_shas", Strings, "SHA-256 of each cited source"},
			{"halted", Bool, "the turn halted"},
			{"trace_hash", String, "the turn's trace hash"},
		}, true
	case "lanes":
		return []Column{
			{"domain", String, "the domain id"},
			{"lane", String, "the evaluation lane"},
			{"split", String, "dev, public or holdout"},
			{"result", String, "object digest of the lane result"},
			{"timestamp", String, "when the lane ran (UTC)"},
			{"lane_pass", Bool, "the lane result passed its thresholds"},
			{"case_id", String, "the question's id"},
			{"subject", String, "the subject the question belongs to"},
			{"question_kind", String, "the kind of question"},
			{"answer_kind", String, "the kind of answer"},
			{"refused", Bool, "the runtime refused"},
			{"fabricated", Bool, "the answer asserted something unsupported"},
			{"grounded", Bool, "the answer cited the reviewed knowledge"},
			{"intent_correct", Bool, "the intent was read correctly"},
			{"versor_closed", Bool, "the field state stayed a unit versor"},
			{"deterministic", Bool, "asking again gave the same trace"},
			{"terms_expected", Int64, "terms the answer should capture"},
			{"terms_captured", Int64, "terms it captured"},
			{"passed", Bool, "the case passed"},
			{"note", String, "why the case failed; empty when it passed"},
			{"trace_hash", String, "the turn's trace hash"},
		}, true
	}
	return nil, false
}

func readRows(ctx context.Context, s store.Store, kind, name string) ([][]any, error) {
	if err := ident.CheckID(name); err != nil {
		return nil, refuse(exitcode.Usage, "%s: %v", name, err)
	}
	switch kind {
	case "triples", "concepts":
		return validatedRows(ctx, s, kind, name)
	case "audit":
		return auditRows(ctx, s, name)
	case "events":
		return eventRows(ctx, s, name)
	}
	return laneRows(ctx, s, name)
}

// stageOutput reads and decodes a subject's latest output of a stage.
func stageOutput[T any](ctx context.Context, s store.Store, subject, stageName string) (T, string, error) {
	var zero T
	ref := "subjects/" + subject + "/" + stageName
	val, _, err := s.GetRef(ctx, ref)
	if errors.Is(err, store.ErrNotFound) {
		return zero, "", refuse(exitcode.NotFound, "subject %s has no %s output; run `formation %s %s` first", subject, stageName, stageName, subject)
	}
	if err != nil {
		return zero, "", err
	}
	d := strings.TrimSpace(string(val))
	v, err := object[T](ctx, s, d)
	return v, d, err
}

func object[T any](ctx context.Context, s store.Store, digest string) (T, error) {
	var zero T
	raw, err := s.Get(ctx, digest)
	if err != nil {
		if errors.Is(err, store.ErrCorrupt) || errors.Is(err, store.ErrInvalid) {
			return zero, exitcode.With(exitcode.Rejected, fmt.Errorf("export: %w", err))
		}
		return zero, fmt.Errorf("export: %w", err)
	}
	v, err := artifact.Decode[T](raw)
	if err != nil {
		return zero, refuse(exitcode.Rejected, "object %s: %v", digest, err)
	}
	return v, nil
}

func cited(refs []artifact.SourceRef) (shas, spans []string) {
	shas, spans = []string{}, []string{}
	for _, r := range refs {
		shas, spans = append(shas, r.SourceSHA), append(spans, r.Span)
	}
	return shas, spans
}

func validatedRows(ctx context.Context, s store.Store, kind, subject string) ([][]any, error) {
	vts, digest, err := stageOutput[artifact.ValidatedTripleSet](ctx, s, subject, "forge")
	if err != nil {
		return nil, err
	}
	rows := [][]any{}
	if kind == "concepts" {
		for _, c := range vts.Concepts {
			shas, spans := cited(c.Sources)
			rows = append(rows, []any{subject, digest, c.CanonicalTerm, c.Definition, string(c.State), c.RejectionReason, shas, spans})
		}
		return rows, nil
	}
	for _, sec := range []struct {
		name string
		rels []artifact.RelationCandidate
	}{{"relations", vts.Relations}, {"counters", vts.Counters}, {"quarantined", vts.Quarantined}} {
		for _, r := range sec.rels {
			shas, spans := cited(r.Sources)
			rows = append(rows, []any{subject, digest, sec.name, r.Head, r.Relation, r.Tail, string(r.State), r.RejectionReason, shas, spans})
		}
	}
	return rows, nil
}

func auditRows(ctx context.Context, s store.Store, subject string) ([][]any, error) {
	recs, err := audit.List(ctx, s, audit.Filter{Subject: subject})
	if err != nil {
		return nil, err
	}
	rows := make([][]any, 0, len(recs))
	for _, r := range recs {
		inputs := r.InputDigests
		if inputs == nil {
			inputs = []string{}
		}
		rows = append(rows, []any{r.Time, r.Subject, r.Stage, r.Kind, r.ReasonCode, r.Key, r.Detail, inputs, r.CodeVersion})
	}
	return rows, nil
}

func eventRows(ctx context.Context, s store.Store, subject string) ([][]any, error) {
	rec, digest, err := stageOutput[artifact.RunRecord](ctx, s, subject, "run")
	if err != nil {
		return nil, err
	}
	passes, err := turnEvents(ctx, s, rec.EventsObject)
	if err != nil {
		return nil, err
	}
	rows := [][]any{}
	for p, steps := range passes {
		for i, e := range steps {
			if e == nil {
				continue // a step that ran no turn (a replay assertion)
			}
			rows = append(rows, []any{subject, digest, int64(p), int64(i), int64(e.Turn), nonNil(e.InputTokens), e.Intent, e.Surface,
				e.DialogueRole, e.GroundingSource, e.EpistemicStatus, e.RefusalReason, e.RefusalEmitted, e.StubPath,
				int64(e.VaultHits), e.VersorCondition, e.Flagged, e.IdentityScore, e.SafetyUpheld, nonNil(e.CitedSourceSHAs),
				e.Halted, e.TraceHash})
		}
	}
	return rows, nil
}

// turnEvents reads a run's events object: per pass, per step, the step's
// TurnEvent, or nil for a step that ran no turn (a replay assertion records
// the trace hashes it bound instead, and null is a step without a record).
func turnEvents(ctx context.Context, s store.Store, digest string) ([][]*trace.TurnEvent, error) {
	passes, err := object[[][]any](ctx, s, digest)
	if err != nil {
		return nil, err
	}
	out := make([][]*trace.TurnEvent, len(passes))
	for p, steps := range passes {
		out[p] = make([]*trace.TurnEvent, len(steps))
		for i, step := range steps {
			obj, ok := step.(*canon.Object)
			if !ok || !obj.Has("turn") {
				continue
			}
			raw, err := canon.Marshal(obj)
			if err == nil {
				var e trace.TurnEvent
				if e, err = artifact.Decode[trace.TurnEvent](raw); err == nil {
					out[p][i] = &e
					continue
				}
			}
			return nil, refuse(exitcode.Rejected, "events %s, pass %d step %d: %v", digest, p, i, err)
		}
	}
	return out, nil
}

func nonNil(v []string) []string {
	if v == nil {
		return []string{}
	}
	return v
}

func laneRows(ctx context.Context, s store.Store, domain string) ([][]any, error) {
	names, err := s.ListRefs(ctx, "lanes/"+domain+"/")
	if err != nil {
		return nil, err
	}
	if len(names) == 0 {
		return nil, refuse(exitcode.NotFound, "domain %s has no lane results; run `formation eval` first", domain)
	}
	rows := [][]any{}
	for _, name := range names {
		segs := strings.Split(name, "/")
		if len(segs) != 4 {
			continue
		}
		l, err := eval.LoadLatest(ctx, s, segs[1], segs[2], segs[3])
		if err != nil {
			return nil, err
		}
		if l.Problem != "" {
			return nil, refuse(exitcode.Rejected, "%s: %s", name, l.Problem)
		}
		r := l.Result
		for _, c := range r.Cases {
			rows = append(rows, []any{r.DomainID, r.Lane, r.Split, l.Object, r.Timestamp, r.Pass, c.ID, c.Subject,
				c.QuestionKind, c.AnswerKind, c.Refused, c.Fabricated, c.Grounded, c.IntentCorrect, c.VersorClosed,
				c.Deterministic, c.TermsExpected, c.TermsCaptured, c.Passed, c.Note, c.TraceHash})
		}
	}
	return rows, nil
}
