// Package stagecache maps a stage's action key to the digest of the output it
// produced, in the spirit of the Go command's build cache: the key is a BLAKE3
// hash over the canonical JSON of everything the output depends on (stage,
// stage version, code identity, subject id, the digest of the stage's typed
// parameters, input digests), so a rerun with unchanged inputs finds its
// output and does no work.
//
// Records live in the store as refs: cache/<stage>/<key> (create-only; the
// output of an action never changes, and a second output for the same key is
// a *ConflictError) and cache/last/<subject>/<stage> (the latest record for a
// subject's stage), which lets Explain say which ingredient changed since the
// previous run. Every ref write goes through the store's compare-and-swap
// helpers.
package stagecache

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"

	"github.com/zeebo/blake3"

	"formation/canon"
	"formation/internal/exitcode"
	"formation/store"
)

// Ingredients are everything a stage's output depends on. Key hashes the
// whole struct, so a field added here is part of the key by construction.
type Ingredients struct {
	Stage        string   `json:"stage"`
	StageVersion string   `json:"stage_version"`
	CodeIdentity string   `json:"code_identity"`
	Subject      string   `json:"subject"`
	ParamsDigest string   `json:"params_digest"`
	Inputs       []string `json:"inputs"`
}

// Key is the BLAKE3 hash (hex) of the canonical ingredients with inputs sorted.
func (in Ingredients) Key() (string, error) {
	in.Inputs = slices.Sorted(slices.Values(in.Inputs))
	b, err := canon.Marshal(in)
	if err != nil {
		return "", fmt.Errorf("stagecache: key: %w", err)
	}
	sum := blake3.Sum256(b)
	return hex.EncodeToString(sum[:]), nil
}

// CodeIdentity is a stage's code identity: its name, its stage-version
// constant and the module version of the build. It never depends on the
// executable's bytes, so `formation forge` and `formation-forge` agree.
func CodeIdentity(stage, stageVersion, moduleVersion string) string {
	return stage + "@" + stageVersion + "+" + moduleVersion
}

// ParamsDigest is the SHA-256 of a stage's canonical parameters. The
// parameters must be a struct whose every field the canonical form carries
// (see CheckParams): a field the encoding skipped would be a field the key
// ignores.
func ParamsDigest(params any) (string, error) {
	if err := CheckParams(params); err != nil {
		return "", err
	}
	d, err := canon.SHA256Hex(params)
	if err != nil {
		return "", fmt.Errorf("stagecache: params: %w", err)
	}
	return d, nil
}

// Record is what the cache stores for one action.
type Record struct {
	Key         string      `json:"key"`
	Ingredients Ingredients `json:"ingredients"`
	Output      string      `json:"output"`
}

// ConflictError is an action recorded with one output and produced again
// with another: the stage is not deterministic, or the key misses something
// the output depends on. Either way it is a bug, never an input problem.
type ConflictError struct {
	Stage    string
	Key      string
	Recorded string // the output already under the key
	Output   string // the output this run produced
}

func (e *ConflictError) Error() string {
	return fmt.Sprintf("stagecache: action %s of stage %s already recorded with output %s, now %s: the stage is not deterministic or its key misses an ingredient",
		e.Key, e.Stage, e.Recorded, e.Output)
}

// ExitCode is exitcode.Internal (exitcode.Coder).
func (e *ConflictError) ExitCode() int { return exitcode.Internal }

// ReasonCode is cache_conflict (exitcode.Reasoner).
func (e *ConflictError) ReasonCode() string { return "cache_conflict" }

// Cache is the stage cache over a store.
type Cache struct {
	Store store.Store
}

// Explanation says whether a lookup hit and, on a miss, what changed since the
// subject's previous record for the same stage.
type Explanation struct {
	Hit      bool     `json:"hit"`
	Key      string   `json:"key"`
	Output   string   `json:"output,omitempty"`
	Changed  []string `json:"changed"`            // ingredient names that differ from the previous record
	Added    []string `json:"added_inputs"`       // inputs not in the previous record
	Removed  []string `json:"removed_inputs"`     // inputs of the previous record no longer used
	Previous string   `json:"previous,omitempty"` // key of the previous record, if any
}

// Lookup finds the output recorded for these ingredients.
func (c *Cache) Lookup(ctx context.Context, in Ingredients) (Explanation, error) {
	key, err := in.Key()
	if err != nil {
		return Explanation{}, err
	}
	ex := Explanation{Key: key, Changed: []string{}, Added: []string{}, Removed: []string{}}
	rec, found, err := c.read(ctx, actionRef(in.Stage, key))
	if err != nil {
		return ex, err
	}
	if found {
		ex.Hit, ex.Output = true, rec.Output
		return ex, nil
	}
	prev, found, err := c.read(ctx, lastRef(in.Subject, in.Stage))
	switch {
	case errors.Is(err, errUndecodable):
		// The previous record only explains; one in an older format must
		// not stop the stage.
		ex.Changed = []string{"previous record unreadable"}
	case err != nil:
		return ex, err
	case found:
		ex.Previous = prev.Key
		ex.Changed, ex.Added, ex.Removed = diff(prev.Ingredients, in)
	default:
		ex.Changed = []string{"no previous record"}
	}
	return ex, nil
}

// Record records output as the result of these ingredients and makes it the
// subject's latest record for the stage. An action already recorded with
// the same output is fine (two writers raced); with another output it is a
// *ConflictError and nothing is changed.
func (c *Cache) Record(ctx context.Context, in Ingredients, output string) error {
	key, err := in.Key()
	if err != nil {
		return err
	}
	in.Inputs = slices.Sorted(slices.Values(in.Inputs))
	rec := Record{Key: key, Ingredients: in, Output: output}
	body, err := canon.Marshal(rec)
	if err != nil {
		return fmt.Errorf("stagecache: %w", err)
	}
	created, err := store.CreateRef(ctx, c.Store, actionRef(in.Stage, key), body)
	if err != nil {
		return fmt.Errorf("stagecache: record %s: %w", key, err)
	}
	if !created {
		old, _, err := c.read(ctx, actionRef(in.Stage, key))
		if err != nil {
			return err
		}
		if old.Output != output {
			return &ConflictError{Stage: in.Stage, Key: key, Recorded: old.Output, Output: output}
		}
	}
	if err := store.SetRefValue(ctx, c.Store, lastRef(in.Subject, in.Stage), body); err != nil {
		return fmt.Errorf("stagecache: %w", err)
	}
	return nil
}

// Last returns the subject's latest record for a stage.
func (c *Cache) Last(ctx context.Context, subject, stage string) (Record, bool, error) {
	return c.read(ctx, lastRef(subject, stage))
}

func (c *Cache) read(ctx context.Context, name string) (Record, bool, error) {
	body, _, err := c.Store.GetRef(ctx, name)
	if err != nil {
		if errors.Is(err, store.ErrNotFound) {
			return Record{}, false, nil
		}
		return Record{}, false, fmt.Errorf("stagecache: read %s: %w", name, err)
	}
	var rec Record
	if err := canon.Unmarshal(body, &rec); err != nil {
		return Record{}, false, fmt.Errorf("stagecache: decode %s: %w: %w", name, errUndecodable, err)
	}
	return rec, true, nil
}

// errUndecodable marks a record that is not a Record of this version.
var errUndecodable = errors.New("not a cache record")

func actionRef(stage, key string) string { return "cache/" + stage + "/" + key }
func lastRef(subject, stage string) string {
	return "cache/last/" + subject + "/" + stage
}

func diff(prev, cur Ingredients) (changed, added, removed []string) {
	changed, added, removed = []string{}, []string{}, []string{}
	if prev.StageVersion != cur.StageVersion {
		changed = append(changed, "stage_version")
	}
	if prev.CodeIdentity != cur.CodeIdentity {
		changed = append(changed, "code_identity")
	}
	if prev.ParamsDigest != cur.ParamsDigest {
		changed = append(changed, "params_digest")
	}
	for _, d := range cur.Inputs {
		if !slices.Contains(prev.Inputs, d) {
			added = append(added, d)
		}
	}
	for _, d := range prev.Inputs {
		if !slices.Contains(cur.Inputs, d) {
			removed = append(removed, d)
		}
	}
	slices.Sort(added)
	slices.Sort(removed)
	if len(added)+len(removed) > 0 {
		changed = append(changed, "inputs")
	}
	return changed, added, removed
}
