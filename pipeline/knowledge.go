package pipeline

import (
	"context"
	"errors"

	"formation/artifact"
	"formation/audit"
	"formation/forge"
	"formation/reviewed"
	"formation/stage"
)

// reviewedState reads the reviewed state once for a stage; a corrupt or
// malformed state halts the stage (exit 65) with one audit record.
func (p *Pipeline) reviewedState(ctx context.Context, stageName, subject string) (reviewed.Snapshot, error) {
	snap, err := reviewed.Load(ctx, p.Env.Store)
	if err != nil {
		return reviewed.Snapshot{}, p.stateHalt(ctx, stageName, subject, err)
	}
	return snap, nil
}

// existingFor returns the reviewed triples the forge compares subject's
// candidates with: those other subjects' courses hold (a subject is never
// compared with the facts its own earlier promotion put there), reduced to
// the ones that can change this bundle's result (forge.Relevant), stored as
// an object whose digest is a forge cache input. So promoting another
// subject invalidates this forge only when a fact it depends on changed.
// The smelted bundle, which the forge reads ahead (bundleRead), is taken
// (and returned) only when other subjects hold triples at all; otherwise
// the forge takes it on a miss alone.
func (p *Pipeline) existingFor(ctx context.Context, snap reviewed.Snapshot, subject, smeltedDigest string, bundleRead *stage.Fetching[artifact.SmeltedBundle], declared []string) ([]artifact.Triple, string, *artifact.SmeltedBundle, error) {
	held := snap.Knowledge.TriplesHeldBy(func(c reviewed.CourseRecord) bool { return c.SubjectID != subject })
	relevant := []artifact.Triple{}
	var smelted *artifact.SmeltedBundle
	if len(held) > 0 {
		spec := stage.Spec{Stage: "forge", Version: ForgeVersion, Subject: subject, Inputs: []string{smeltedDigest}}
		bundle, err := bundleRead.Wait().Take(ctx, p.Env, spec)
		if err != nil {
			return nil, "", nil, err
		}
		smelted = &bundle
		all := make([]artifact.Triple, 0, len(held))
		for _, t := range held {
			all = append(all, t.Key())
		}
		if r := forge.Relevant(all, bundle, declared); r != nil {
			relevant = r
		}
	}
	body, err := artifact.Encode(relevant)
	if err != nil {
		return nil, "", nil, err
	}
	d, err := p.Env.Store.Put(ctx, body)
	return relevant, d, smelted, err
}

// priorIndex is ratify's G2 set: the mastered courses of other subjects (a
// newer report of a subject supersedes its earlier course, it does not
// regress against it), stored as an object whose digest is a ratify cache
// input.
func (p *Pipeline) priorIndex(ctx context.Context, snap reviewed.Snapshot, subject string) (artifact.MasteredCoursesIndex, string, error) {
	idx := reviewed.EmptyIndex()
	for _, e := range snap.Index.Entries {
		if snap.SubjectOf(e.CourseID) != subject {
			idx.Entries = append(idx.Entries, e)
		}
	}
	body, err := artifact.Encode(idx)
	if err != nil {
		return idx, "", err
	}
	d, err := p.Env.Store.Put(ctx, body)
	return idx, d, err
}

// stateHalt audits a refusal to read the reviewed state as a halt of the
// stage (one record) and returns it; a store failure passes as is.
func (p *Pipeline) stateHalt(ctx context.Context, stageName, subject string, err error) error {
	var e *reviewed.Error
	if !errors.As(err, &e) {
		return err
	}
	rec := audit.Record{Stage: stageName, Subject: subject, Kind: audit.KindHalt, ReasonCode: e.Reason, Key: reviewed.StateRef, Detail: e.Detail}
	if aerr := p.Env.Audit.Append(ctx, rec); aerr != nil {
		return errors.Join(err, aerr)
	}
	return err
}
