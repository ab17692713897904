// Package stagecache maps a stage's action key to the digest of the output it
// produced, in the spirit of the Go command's build cache: the key is a BLAKE3
// hash over a canonical description of everything the output depends on
// (stage, stage version, code identity, parameters digest, input digests), so
// a rerun with unchanged inputs finds its output and does no work.
//
// Records live in the store as refs: cache/<stage>/<key> (create-only; the
// output of an action never changes) and cache/last/<subject>/<stage> (the
// latest record for a subject's stage, moved by compare-and-swap), which lets
// Explain say which ingredient changed since the previous run.
package stagecache

import (
	"context"
	"encoding/hex"
	"fmt"
	"slices"

	"github.com/zeebo/blake3"

	"formation/canon"
)

// Ingredients are everything a stage's output depends on.
type Ingredients struct {
	Stage        string   `json:"stage"`
	StageVersion string   `json:"stage_version"`
	CodeIdentity string   `json:"code_identity"`
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

// ParamsDigest is the SHA-256 of a stage's canonical parameters.
func ParamsDigest(params any) (string, error) {
	d, err := canon.SHA256Hex(params)
	if err != nil {
		return "", fmt.Errorf("stagecache: params: %w", err)
	}
	return d, nil
}

// Record is what the cache stores for one action.
type Record struct {
	Key         string      `json:"key"`
	Subject     string      `json:"subject"`
	Ingredients Ingredients `json:"ingredients"`
	Output      string      `json:"output"`
}

// RefStore is the part of the object store the cache needs.
type RefStore interface {
	GetRef(ctx context.Context, name string) ([]byte, string, error)
	SetRef(ctx context.Context, name, old string, value []byte) (string, error)
}

// Cache is the stage cache over a store. IsNotFound and IsPrecondition
// classify the store's errors (the store package provides both).
type Cache struct {
	Refs           RefStore
	IsNotFound     func(error) bool
	IsPrecondition func(error) bool
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
func (c *Cache) Lookup(ctx context.Context, subject string, in Ingredients) (Explanation, error) {
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
	prev, found, err := c.read(ctx, lastRef(subject, in.Stage))
	if err != nil {
		return ex, err
	}
	if found {
		ex.Previous = prev.Key
		ex.Changed, ex.Added, ex.Removed = diff(prev.Ingredients, in)
	} else {
		ex.Changed = []string{"no previous record"}
	}
	return ex, nil
}

// Record records output as the result of these ingredients and makes it the
// subject's latest record for the stage.
func (c *Cache) Record(ctx context.Context, subject string, in Ingredients, output string) error {
	key, err := in.Key()
	if err != nil {
		return err
	}
	in.Inputs = slices.Sorted(slices.Values(in.Inputs))
	rec := Record{Key: key, Subject: subject, Ingredients: in, Output: output}
	body, err := canon.Marshal(rec)
	if err != nil {
		return fmt.Errorf("stagecache: %w", err)
	}
	if _, err := c.Refs.SetRef(ctx, actionRef(in.Stage, key), "", body); err != nil && !c.IsPrecondition(err) {
		return fmt.Errorf("stagecache: record %s: %w", key, err)
	} else if err != nil {
		// Someone recorded the same action: its output must be ours, or a stage is not deterministic.
		old, _, rerr := c.read(ctx, actionRef(in.Stage, key))
		if rerr != nil {
			return rerr
		}
		if old.Output != output {
			return fmt.Errorf("stagecache: action %s already recorded with output %s, now %s: stage %s is not deterministic", key, old.Output, output, in.Stage)
		}
	}
	return c.moveLast(ctx, lastRef(subject, in.Stage), body)
}

func (c *Cache) moveLast(ctx context.Context, name string, body []byte) error {
	for attempt := 0; attempt < 8; attempt++ {
		_, version, err := c.Refs.GetRef(ctx, name)
		if err != nil && !c.IsNotFound(err) {
			return fmt.Errorf("stagecache: %w", err)
		}
		if err != nil {
			version = ""
		}
		if _, err = c.Refs.SetRef(ctx, name, version, body); err == nil {
			return nil
		} else if !c.IsPrecondition(err) {
			return fmt.Errorf("stagecache: move %s: %w", name, err)
		}
	}
	return fmt.Errorf("stagecache: move %s: too much contention", name)
}

// Last returns the subject's latest record for a stage.
func (c *Cache) Last(ctx context.Context, subject, stage string) (Record, bool, error) {
	return c.read(ctx, lastRef(subject, stage))
}

func (c *Cache) read(ctx context.Context, name string) (Record, bool, error) {
	body, _, err := c.Refs.GetRef(ctx, name)
	if err != nil {
		if c.IsNotFound(err) {
			return Record{}, false, nil
		}
		return Record{}, false, fmt.Errorf("stagecache: read %s: %w", name, err)
	}
	var rec Record
	if err := canon.Unmarshal(body, &rec); err != nil {
		return Record{}, false, fmt.Errorf("stagecache: decode %s: %w", name, err)
	}
	return rec, true, nil
}

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
