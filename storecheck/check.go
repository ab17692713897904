// Package storecheck verifies a whole store, as `formation check` does:
// every ref parses and points at objects the store holds, the reviewed-state
// chain verifies link by link, and with ReadData every object in the store,
// reachable or not, re-hashes to its name. It also lists what interrupted
// writes left behind (temp files, S3 spool files, incomplete multipart
// uploads) older than a grace period: leftovers, which take space but are
// not corruption, and which `formation gc` removes. It reports findings; it
// never repairs. The one thing it writes is state 0 of a store written before the
// reviewed-state object existed (reviewed.Migrate), so that the chain starts
// from the state that store was in.
package storecheck

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"formation/audit"
	"formation/canon"
	"formation/ident"
	"formation/reviewed"
	"formation/store"
	"formation/store/storelock"
)

// Reasons of findings.
const (
	ReasonDanglingRef    = "dangling_ref"    // a ref names an object the store does not hold
	ReasonUndecodableRef = "undecodable_ref" // a ref's value is not what its namespace holds
	ReasonCorruptObject  = "corrupt_object"  // an object does not hash to its name
)

// Finding is one problem.
type Finding struct {
	Where  string `json:"where"` // a ref name, an object digest or a state
	Reason string `json:"reason"`
	Detail string `json:"detail"`
}

// Report is what Check found.
type Report struct {
	Refs      int          `json:"refs_checked"`
	Objects   int          `json:"objects_rehashed"` // 0 without ReadData
	StateHead ident.Digest `json:"state_head"`       // "" when nothing was promoted
	StateSeq  int64        `json:"state_seq"`        // -1 when nothing was promoted
	Migrated  bool         `json:"migrated"`         // state 0 was written from a pre-state store's refs
	Findings  []Finding    `json:"findings"`
	Leftovers []Leftover   `json:"leftovers"`
}

// Leftover is one temp file, spool file or incomplete upload.
type Leftover struct {
	Kind       string `json:"kind"`
	Name       string `json:"name"`
	Size       int64  `json:"size"`
	AgeSeconds int64  `json:"age_seconds"`
}

// Options says how deep to look.
type Options struct {
	ReadData bool          // re-hash every object in the store
	Grace    time.Duration // leftovers younger than this may be writes in progress: not listed
	Now      func() time.Time
}

// Check verifies the store.
func Check(ctx context.Context, s store.Store, opts Options) (Report, error) {
	rep := Report{Findings: []Finding{}, Leftovers: []Leftover{}, StateSeq: -1}
	migrated, err := reviewed.Migrate(ctx, s)
	if err != nil && !isStateRefusal(err) {
		return rep, err
	}
	rep.Migrated = migrated
	if err := checkRefs(ctx, s, &rep); err != nil {
		return rep, err
	}
	snap, chain, err := reviewed.VerifyChain(ctx, s)
	if err != nil {
		return rep, err
	}
	rep.StateHead, rep.StateSeq = snap.Head, snap.State.Seq
	for _, f := range chain {
		rep.Findings = append(rep.Findings, Finding{Where: f.Object, Reason: f.Reason, Detail: f.Detail})
	}
	if opts.ReadData {
		if err := rehashAll(ctx, s, &rep); err != nil {
			return rep, err
		}
	}
	return rep, leftovers(ctx, s, opts, &rep)
}

// leftovers lists what interrupted writes left, older than the grace.
func leftovers(ctx context.Context, s store.Store, opts Options, rep *Report) error {
	m, err := store.AsMaintainer(s)
	if err != nil {
		return nil // nothing to list on a store without a maintenance side
	}
	left, err := m.Leftovers(ctx)
	if err != nil {
		return fmt.Errorf("check: leftovers: %w", err)
	}
	now := time.Now
	if opts.Now != nil {
		now = opts.Now
	}
	for _, l := range left {
		age := now().Sub(l.Since)
		if age < opts.Grace {
			continue
		}
		rep.Leftovers = append(rep.Leftovers, Leftover{Kind: l.Kind, Name: l.Name, Size: l.Size, AgeSeconds: int64(age / time.Second)})
	}
	return nil
}

func isStateRefusal(err error) bool {
	var e *reviewed.Error
	return errors.As(err, &e)
}

// checkRefs reads every ref and checks the objects it names exist.
func checkRefs(ctx context.Context, s store.Store, rep *Report) error {
	names, err := s.ListRefs(ctx, "")
	if err != nil {
		return fmt.Errorf("check: list refs: %w", err)
	}
	for _, name := range names {
		val, _, err := s.GetRef(ctx, name)
		if errors.Is(err, store.ErrNotFound) {
			continue // removed since the listing
		}
		if err != nil {
			return fmt.Errorf("check: read %s: %w", name, err)
		}
		rep.Refs++
		digests, err := referenced(name, val)
		if err != nil {
			rep.Findings = append(rep.Findings, Finding{Where: name, Reason: ReasonUndecodableRef, Detail: err.Error()})
			continue
		}
		for _, d := range digests {
			ok, err := s.Has(ctx, d)
			if err != nil {
				return fmt.Errorf("check: %s → %s: %w", name, d, err)
			}
			if !ok {
				rep.Findings = append(rep.Findings, Finding{Where: name, Reason: ReasonDanglingRef,
					Detail: "names object " + d + ", which the store does not hold"})
			}
		}
	}
	return nil
}

// referenced decodes a ref's value by its namespace and returns the object
// digests it names. Cache records and last-run notes are canonical JSON
// naming an output; audit batches are canonical JSON naming nothing the
// store must keep (their input digests are history); locks are the lock
// protocol's records, naming nothing; every other ref holds one digest.
func referenced(name string, val []byte) ([]string, error) {
	switch {
	case strings.HasPrefix(name, "audit/"):
		if _, err := audit.DecodeBatch(val); err != nil {
			return nil, fmt.Errorf("not an audit batch: %w", err)
		}
		return nil, nil
	case strings.HasPrefix(name, storelock.Prefix):
		var rec storelock.Record
		if err := canon.Unmarshal(val, &rec); err != nil {
			return nil, fmt.Errorf("not a lock: %w", err)
		}
		return nil, nil
	case strings.HasPrefix(name, "cache/"):
		// Cache records and last-run notes of every format so far name their
		// output in the field "output"; older formats differ in the rest.
		doc, err := canon.Decode(val)
		obj, ok := doc.(*canon.Object)
		if err != nil || !ok {
			return nil, fmt.Errorf("not a stage-cache record: %v", err)
		}
		out, ok := obj.String("output")
		if !ok {
			return nil, errors.New("a stage-cache record without an output")
		}
		return digestList(out)
	}
	return digestList(strings.TrimSpace(string(val)))
}

func digestList(d string) ([]string, error) {
	if !store.ValidDigest(d) {
		return nil, fmt.Errorf("holds %q, not a digest", d)
	}
	return []string{d}, nil
}

// rehashAll reads every object, which re-hashes it.
func rehashAll(ctx context.Context, s store.Store, rep *Report) error {
	digests, err := s.ListObjects(ctx)
	if err != nil {
		return fmt.Errorf("check: list objects: %w", err)
	}
	for _, d := range digests {
		_, err := s.Get(ctx, d)
		switch {
		case err == nil:
			rep.Objects++
		case errors.Is(err, store.ErrCorrupt):
			rep.Objects++
			rep.Findings = append(rep.Findings, Finding{Where: d, Reason: ReasonCorruptObject, Detail: err.Error()})
		case errors.Is(err, store.ErrNotFound):
			// removed since the listing
		default:
			return fmt.Errorf("check: read %s: %w", d, err)
		}
	}
	return nil
}
