// Package stage is the frame every stage command runs in: read inputs from
// the store by digest, consult the stage cache, run the stage's pure core
// only on a miss, write the output and the audit records, move the subject's
// ref, and turn a typed halt into its exit code. Stages stay pure functions;
// this package owns their side effects.
package stage

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"formation/artifact"
	"formation/audit"
	"formation/internal/exitcode"
	"formation/internal/version"
	"formation/stagecache"
	"formation/store"
)

// Env is what a stage command needs around its core.
type Env struct {
	Store store.Store
	Audit *audit.Writer
	Cache *stagecache.Cache
}

// NewEnv builds the environment over a store.
func NewEnv(s store.Store, w *audit.Writer) *Env {
	return &Env{Store: s, Audit: w, Cache: NewCache(s)}
}

// NewCache returns the stage cache over a store.
func NewCache(s store.Store) *stagecache.Cache {
	return &stagecache.Cache{Refs: s,
		IsNotFound:     func(err error) bool { return errors.Is(err, store.ErrNotFound) },
		IsPrecondition: func(err error) bool { return errors.Is(err, store.ErrPrecondition) }}
}

// Spec names one execution of a stage.
type Spec struct {
	Stage   string   // e.g. "forge"
	Version string   // the stage's own version constant; bump when its output changes
	Subject string   // validated subject id
	Params  any      // canonical parameters (flags that change the output)
	Inputs  []string // digests of every object the output depends on
}

// Output is what a core produced: the artifact to store (or raw bytes) and
// the audit records of what it refused or noted on the way.
type Output struct {
	Artifact any    // encoded canonically; ignored when Bytes is set
	Bytes    []byte // raw output (e.g. YAML), stored as is
	Audit    []audit.Record
}

// Result is what Run reports.
type Result struct {
	Stage    string                 `json:"stage"`
	Subject  string                 `json:"subject"`
	Output   string                 `json:"output"`
	CacheHit bool                   `json:"cache_hit"`
	Explain  stagecache.Explanation `json:"explain"`
	Audit    int                    `json:"audit_records"`
}

// Halt is a stage's refusal to continue: a typed reason, the exit code it
// maps to, and the audit records that explain it (all written before exit).
type Halt struct {
	Code   int
	Reason string
	Detail string
	Audit  []audit.Record
}

func (h *Halt) Error() string {
	if h.Detail == "" {
		return h.Reason
	}
	return h.Reason + ": " + h.Detail
}

// ExitCode is the halt's exit code (exitcode.Coder).
func (h *Halt) ExitCode() int { return h.Code }

// Ref is the name of a subject's latest output of a stage.
func Ref(subject, stageName string) string { return "subjects/" + subject + "/" + stageName }

// Run executes one stage with the cache: a hit does no work (it only makes
// sure the subject's ref points at the cached output); a miss runs core,
// stores its output, appends its audit records, records the cache entry and
// moves the ref. A Halt from core is audited and returned; nothing is stored.
func (e *Env) Run(ctx context.Context, spec Spec, core func(context.Context) (Output, error)) (Result, error) {
	res := Result{Stage: spec.Stage, Subject: spec.Subject}
	ing, err := e.ingredients(spec)
	if err != nil {
		return res, err
	}
	ex, err := e.Cache.Lookup(ctx, spec.Subject, ing)
	if err != nil {
		return res, err
	}
	res.Explain = ex
	if ex.Hit {
		if ok, err := e.Store.Has(ctx, ex.Output); err != nil || !ok {
			// A cache record whose output vanished is not a hit: recompute.
			res.Explain.Hit = false
			res.Explain.Changed = append(res.Explain.Changed, "cached output missing")
		} else {
			res.CacheHit, res.Output = true, ex.Output
			if err := e.MoveRef(ctx, Ref(spec.Subject, spec.Stage), ex.Output); err != nil {
				return res, err
			}
			return res, e.noteRun(ctx, res)
		}
	}
	out, err := core(ctx)
	if err != nil {
		return res, e.fail(ctx, spec, err)
	}
	digest, err := e.putOutput(ctx, out)
	if err != nil {
		return res, err
	}
	res.Output = digest
	if err := e.appendAudit(ctx, spec, out.Audit); err != nil {
		return res, err
	}
	res.Audit = len(out.Audit)
	if err := e.Cache.Record(ctx, spec.Subject, ing, digest); err != nil {
		return res, err
	}
	if err := e.MoveRef(ctx, Ref(spec.Subject, spec.Stage), digest); err != nil {
		return res, err
	}
	return res, e.noteRun(ctx, res)
}

// LastRun is what status shows of a stage's latest execution.
type LastRun struct {
	Output   string   `json:"output"`
	CacheHit bool     `json:"cache_hit"`
	Changed  []string `json:"changed"`
	Audit    int      `json:"audit_records"`
}

func runRef(subject, stageName string) string { return "cache/runs/" + subject + "/" + stageName }

// noteRun keeps the outcome of the latest execution for `formation status`.
func (e *Env) noteRun(ctx context.Context, res Result) error {
	body, err := artifact.Encode(LastRun{Output: res.Output, CacheHit: res.CacheHit, Changed: res.Explain.Changed, Audit: res.Audit})
	if err != nil {
		return err
	}
	return e.MoveRef(ctx, runRef(res.Subject, res.Stage), string(body))
}

// ReadLastRun returns the latest execution of a subject's stage, if any.
func (e *Env) ReadLastRun(ctx context.Context, subject, stageName string) (LastRun, bool, error) {
	body, _, err := e.Store.GetRef(ctx, runRef(subject, stageName))
	if errors.Is(err, store.ErrNotFound) {
		return LastRun{}, false, nil
	}
	if err != nil {
		return LastRun{}, false, err
	}
	lr, err := artifact.Decode[LastRun](body)
	return lr, err == nil, err
}

func (e *Env) ingredients(spec Spec) (stagecache.Ingredients, error) {
	params := spec.Params
	if params == nil {
		params = map[string]any{}
	}
	pd, err := stagecache.ParamsDigest(params)
	if err != nil {
		return stagecache.Ingredients{}, exitcode.With(exitcode.Internal, err)
	}
	inputs := append([]string{}, spec.Inputs...)
	return stagecache.Ingredients{
		Stage: spec.Stage, StageVersion: spec.Version,
		CodeIdentity: stagecache.CodeIdentity(spec.Stage, spec.Version, version.String()),
		ParamsDigest: pd, Inputs: inputs,
	}, nil
}

func (e *Env) putOutput(ctx context.Context, out Output) (string, error) {
	body := out.Bytes
	if body == nil {
		b, err := artifact.Encode(out.Artifact)
		if err != nil {
			return "", exitcode.With(exitcode.Internal, err)
		}
		body = b
	}
	d, err := e.Store.Put(ctx, body)
	if err != nil {
		return "", fmt.Errorf("store output: %w", err)
	}
	return d, nil
}

// fail writes the audit records of a halt (or a single record for any other
// input error) and returns the error with its exit code.
func (e *Env) fail(ctx context.Context, spec Spec, err error) error {
	var h *Halt
	if errors.As(err, &h) {
		recs := h.Audit
		if len(recs) == 0 {
			recs = []audit.Record{{Kind: audit.KindHalt, ReasonCode: h.Reason, Detail: h.Detail}}
		}
		if aerr := e.appendAudit(ctx, spec, recs); aerr != nil {
			return errors.Join(err, aerr)
		}
		return exitcode.With(h.Code, err)
	}
	if errors.Is(err, store.ErrCorrupt) {
		rec := audit.Record{Kind: audit.KindHalt, ReasonCode: "corrupt_object", Detail: err.Error()}
		if aerr := e.appendAudit(ctx, spec, []audit.Record{rec}); aerr != nil {
			return errors.Join(err, aerr)
		}
		return exitcode.With(exitcode.Rejected, err)
	}
	return err
}

func (e *Env) appendAudit(ctx context.Context, spec Spec, recs []audit.Record) error {
	if len(recs) == 0 {
		return nil
	}
	for i := range recs {
		if recs[i].Stage == "" {
			recs[i].Stage = spec.Stage
		}
		if recs[i].Subject == "" {
			recs[i].Subject = spec.Subject
		}
		if len(recs[i].InputDigests) == 0 {
			recs[i].InputDigests = append([]string{}, spec.Inputs...)
		}
	}
	return e.Audit.Append(ctx, recs...)
}

// MoveRef points name at value by compare-and-swap, retrying lost races.
func (e *Env) MoveRef(ctx context.Context, name, value string) error {
	for attempt := 0; attempt < 16; attempt++ {
		cur, version, err := e.Store.GetRef(ctx, name)
		switch {
		case errors.Is(err, store.ErrNotFound):
			version = ""
		case err != nil:
			return fmt.Errorf("move %s: %w", name, err)
		case string(cur) == value:
			return nil
		}
		if _, err = e.Store.SetRef(ctx, name, version, []byte(value)); err == nil {
			return nil
		} else if !errors.Is(err, store.ErrPrecondition) {
			return fmt.Errorf("move %s: %w", name, err)
		}
	}
	return exitcode.Newf(exitcode.Unavailable, "move %s: lost the race 16 times", name)
}

// ResolveRef returns the digest a subject's stage ref points at.
func (e *Env) ResolveRef(ctx context.Context, subject, stageName string) (string, error) {
	v, _, err := e.Store.GetRef(ctx, Ref(subject, stageName))
	if err != nil {
		if errors.Is(err, store.ErrNotFound) {
			return "", exitcode.Newf(exitcode.NotFound, "subject %s has no %s output yet; run `formation %s %s` first", subject, stageName, stageName, subject)
		}
		return "", err
	}
	d := strings.TrimSpace(string(v))
	if !store.ValidDigest(d) {
		return "", exitcode.Newf(exitcode.Rejected, "ref %s holds %q, not a digest", Ref(subject, stageName), d)
	}
	return d, nil
}

// Load reads an artifact by digest and decodes it strictly. A corrupt object
// or an undecodable one is audited as a halt of the reading stage (exit 65).
func Load[T any](ctx context.Context, e *Env, spec Spec, digest string) (T, error) {
	var zero T
	raw, err := e.Store.Get(ctx, digest)
	if err != nil {
		if errors.Is(err, store.ErrCorrupt) {
			return zero, e.fail(ctx, spec, err)
		}
		return zero, err
	}
	v, err := artifact.Decode[T](raw)
	if err != nil {
		return zero, e.fail(ctx, spec, &Halt{Code: exitcode.Rejected, Reason: "undecodable_input", Detail: digest + ": " + err.Error()})
	}
	return v, nil
}

// LoadBytes reads an object by digest; corruption is audited as a halt.
func LoadBytes(ctx context.Context, e *Env, spec Spec, digest string) ([]byte, error) {
	raw, err := e.Store.Get(ctx, digest)
	if err != nil && errors.Is(err, store.ErrCorrupt) {
		return nil, e.fail(ctx, spec, err)
	}
	return raw, err
}
