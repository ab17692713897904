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
	"maps"
	"slices"
	"strings"

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

// Record is what the cache stores for one action. Labels and Audit explain
// it to people; they are kept beside the key, never part of it.
type Record struct {
	Key         string            `json:"key"`
	Ingredients Ingredients       `json:"ingredients"`
	Output      string            `json:"output"`
	Labels      map[string]string `json:"labels,omitempty"`
	Audit       map[string]int    `json:"audit,omitempty"`
}

// Notes are what a record keeps to explain itself: Labels name what the
// output was made from the way a person knows it ("source file
// sources/light.md", "parameter template", "input smelt output"), each
// with its value (short values as they are, longer ones as their SHA-256),
// so that a miss can say which of them changed; Audit counts, by kind, the
// audit records that producing the output wrote, which a later hit reports
// as its own.
type Notes struct {
	Labels map[string]string
	Audit  map[string]int
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
	Because  []string `json:"because"`            // the labels that changed, as a person names them
	Added    []string `json:"added_inputs"`       // inputs not in the previous record
	Removed  []string `json:"removed_inputs"`     // inputs of the previous record no longer used
	Previous string   `json:"previous,omitempty"` // key of the previous record, if any
	// Audit is, on a hit, the audit counts recorded with the output.
	Audit map[string]int `json:"-"`
}

// Lookup finds the output recorded for these ingredients; labels are the
// notes' labels of this execution, compared with the previous record's on a
// miss.
func (c *Cache) Lookup(ctx context.Context, in Ingredients, labels map[string]string) (Explanation, error) {
	key, err := in.Key()
	if err != nil {
		return Explanation{}, err
	}
	ex := Explanation{Key: key, Changed: []string{}, Because: []string{}, Added: []string{}, Removed: []string{}}
	rec, found, err := c.read(ctx, actionRef(in.Stage, key))
	if err != nil {
		return ex, err
	}
	if found {
		ex.Hit, ex.Output, ex.Audit = true, rec.Output, rec.Audit
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
		ex.Because = describe(prev.Labels, labels)
	default:
		ex.Changed = []string{"no previous record"}
	}
	return ex, nil
}

// Record records output as the result of these ingredients, with its
// notes, and makes it the subject's latest record for the stage. An action
// already recorded with the same output is fine (two writers raced); with
// another output it is a *ConflictError and nothing is changed.
func (c *Cache) Record(ctx context.Context, in Ingredients, output string, notes Notes) error {
	claim, err := c.Claim(ctx, in, output, notes)
	if err != nil {
		return err
	}
	return c.Latest(ctx, claim)
}

// Claimed is an action recorded by Claim, not yet the subject's latest.
type Claimed struct {
	subject, stage string
	body           []byte
}

// Claim is Record's first half: it records output under the action's key,
// the one write that can conflict, and changes nothing else. Latest then
// makes the record the subject's latest. A caller with writes of its own
// to make once the action is recorded (the stage frame moves two refs)
// makes them beside Latest instead of after it: each is a ref write that
// waits on the disk.
func (c *Cache) Claim(ctx context.Context, in Ingredients, output string, notes Notes) (Claimed, error) {
	key, err := in.Key()
	if err != nil {
		return Claimed{}, err
	}
	in.Inputs = slices.Sorted(slices.Values(in.Inputs))
	rec := Record{Key: key, Ingredients: in, Output: output, Labels: notes.Labels, Audit: notes.Audit}
	body, err := canon.Marshal(rec)
	if err != nil {
		return Claimed{}, fmt.Errorf("stagecache: %w", err)
	}
	created, err := store.CreateRef(ctx, c.Store, actionRef(in.Stage, key), body)
	if err != nil {
		return Claimed{}, fmt.Errorf("stagecache: record %s: %w", key, err)
	}
	if !created {
		old, _, err := c.read(ctx, actionRef(in.Stage, key))
		if err != nil {
			return Claimed{}, err
		}
		if old.Output != output {
			return Claimed{}, &ConflictError{Stage: in.Stage, Key: key, Recorded: old.Output, Output: output}
		}
	}
	return Claimed{subject: in.Subject, stage: in.Stage, body: body}, nil
}

// Latest makes a claimed action the subject's latest record for its stage.
func (c *Cache) Latest(ctx context.Context, claim Claimed) error {
	if err := store.SetRefValue(ctx, c.Store, lastRef(claim.subject, claim.stage), claim.body); err != nil {
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

// describe names the labels that differ between two executions, in a fixed
// order: "<label> changed: old → new" (values shown only when both are
// short), "<label> added", "<label> removed".
func describe(prev, cur map[string]string) []string {
	out := []string{}
	if prev == nil {
		return out // a record from before labels existed explains nothing more
	}
	for _, k := range slices.Sorted(maps.Keys(cur)) {
		old, ok := prev[k]
		switch {
		case !ok:
			out = append(out, k+" added")
		case old != cur[k] && shown(old) && shown(cur[k]):
			out = append(out, fmt.Sprintf("%s changed: %s → %s", k, old, cur[k]))
		case old != cur[k]:
			out = append(out, k+" changed")
		}
	}
	for _, k := range slices.Sorted(maps.Keys(prev)) {
		if _, ok := cur[k]; !ok {
			out = append(out, k+" removed")
		}
	}
	return out
}

// LabelValueMax bounds a label value kept as it is; longer values are kept
// as "sha256:<hex>" and shown only as changed.
const LabelValueMax = 64

// shown reports whether a label value reads well in a message: not a
// digest, not too long.
func shown(v string) bool {
	return !strings.HasPrefix(v, "sha256:") && !store.ValidDigest(v) && len(v) <= LabelValueMax
}
