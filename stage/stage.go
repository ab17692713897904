// Package stage is the frame every stage command runs in: read inputs from
// the store by digest, consult the stage cache, run the stage's pure core
// only on a miss, write the output and the audit records, move the subject's
// ref, and turn a typed halt into its exit code. Stages stay pure functions;
// this package owns their side effects.
//
// The cache key of an execution is the BLAKE3 hash of the canonical JSON of
// its stage name, stage version, code identity (stage, stage version and
// module version), subject id, the SHA-256 of the canonical JSON of the
// stage's typed parameter struct (which carries the subject spec in every
// stage that reads the subject file) and the digests of its input objects.
// Every field of the parameter struct is part of the key: a field the
// canonical form would skip is refused (stagecache.CheckParams).
//
// What a cache hit verifies, before it is served and before any ref moves:
//
//   - the cached output object is read back whole and re-hashes to its
//     digest (store.Get). A corrupt output halts the stage with exit 65,
//     reason corrupt_object and exactly one audit record, and no ref moves;
//     a missing one is no hit: the stage runs again and stores it anew;
//   - every input object named in the key exists (store.Has; an input
//     that is Absent by design is skipped). Inputs are not re-hashed on a
//     hit, which never reads them: the core that reads an input re-hashes
//     it then, and the stage that produced it re-hashes it on its own hit.
//     A missing input is no hit: the stage runs again and reads what it
//     needs, failing if it cannot.
//
// A hit does not re-read the objects its output merely names (the texts an
// OreBundle lists, the YAML a Course points to), and it does not recompute
// the output: equal keys stand for equal outputs. Should a recomputation
// produce another output under a recorded key, the stage fails with exit 1,
// reason cache_conflict and an audit record, and the record is kept.
//
// Every halt writes its audit records exactly once, whether a core's input
// read (Load, LoadBytes) or Run itself raises it.
package stage

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"runtime"
	"slices"
	"strings"
	"sync"

	"formation/artifact"
	"formation/audit"
	"formation/canon"
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
func NewCache(s store.Store) *stagecache.Cache { return &stagecache.Cache{Store: s} }

// Absent stands, in a Spec's inputs, for an optional object that does not
// exist yet (the reviewed knowledge before the first promotion): it keys
// the cache like a digest and a hit does not look for it.
const Absent = "none"

// Spec names one execution of a stage: everything its output depends on.
type Spec struct {
	Stage   string   // e.g. "forge"
	Version string   // the stage's own version constant; bump when its output changes
	Subject string   // validated subject id
	Params  any      // the stage's parameter struct (nil: none); every field is part of the key
	Inputs  []string // digests of the stored objects the output depends on, or Absent

	// InputNames name Inputs, one each, the way a person knows them
	// ("smelt output", "allowlist.yaml"), and Files the files the stage read
	// (path in the subject folder → content digest). Neither is part of the
	// key (the inputs are, and the files through a parameter): they let
	// --explain say what changed.
	InputNames []string
	Files      map[string]string

	// Ref is the ref Run points at the output; empty means
	// Ref(Subject, Stage). A stage with several outputs per subject (the
	// run's shards) names each one's ref; its parameters, which are in the
	// key, must then decide the name.
	Ref string
}

// ref is the ref Run moves.
func (s Spec) ref() string {
	if s.Ref != "" {
		return s.Ref
	}
	return Ref(s.Subject, s.Stage)
}

// Labels are the spec's cache notes: every source file, every input by
// name and every parameter by its path in the parameter struct, each with
// its value (stagecache.Notes).
func (s Spec) Labels() (map[string]string, error) {
	out := map[string]string{}
	for path, d := range s.Files {
		out["source file "+path] = "sha256:" + d
	}
	for i, name := range s.InputNames {
		if i < len(s.Inputs) {
			out["input "+name] = "sha256:" + s.Inputs[i]
		}
	}
	if s.Params == nil {
		return out, nil
	}
	raw, err := canon.Marshal(s.Params)
	if err != nil {
		return nil, fmt.Errorf("stage %s: params: %w", s.Stage, err)
	}
	doc, err := canon.Decode(raw)
	if err != nil {
		return nil, fmt.Errorf("stage %s: params: %w", s.Stage, err)
	}
	return out, flattenParams(out, "parameter ", doc)
}

// flattenParams adds one label per leaf of a parameter document: objects
// are walked (paths joined with '.'), anything else is one value.
func flattenParams(out map[string]string, prefix string, v any) error {
	if obj, ok := v.(*canon.Object); ok && obj.Len() > 0 {
		for _, k := range obj.SortedKeys() {
			child, _ := obj.Get(k)
			sep := "."
			if strings.HasSuffix(prefix, " ") {
				sep = ""
			}
			if err := flattenParams(out, prefix+sep+k, child); err != nil {
				return err
			}
		}
		return nil
	}
	b, err := canon.Marshal(v)
	if err != nil {
		return err
	}
	text := string(b)
	if str, ok := v.(string); ok {
		text = str
	}
	if len(text) > stagecache.LabelValueMax {
		sum := sha256.Sum256(b)
		text = "sha256:" + hex.EncodeToString(sum[:])
	}
	out[prefix] = text
	return nil
}

// Ingredients returns the spec's cache ingredients; Key of them is the
// spec's cache key.
func (s Spec) Ingredients() (stagecache.Ingredients, error) {
	if err := store.ValidSubjectID(s.Subject); err != nil {
		return stagecache.Ingredients{}, fmt.Errorf("stage %s: %w", s.Stage, err)
	}
	for _, d := range s.Inputs {
		if d != Absent && !store.ValidDigest(d) {
			return stagecache.Ingredients{}, fmt.Errorf("stage %s: input %q is not a digest", s.Stage, d)
		}
	}
	params := s.Params
	if params == nil {
		params = struct{}{}
	}
	pd, err := stagecache.ParamsDigest(params)
	if err != nil {
		return stagecache.Ingredients{}, fmt.Errorf("stage %s: %w", s.Stage, err)
	}
	return stagecache.Ingredients{
		Stage: s.Stage, StageVersion: s.Version,
		CodeIdentity: stagecache.CodeIdentity(s.Stage, s.Version, version.String()),
		Subject:      s.Subject, ParamsDigest: pd, Inputs: slices.Clone(s.Inputs),
	}, nil
}

// Output is what a core produced: the artifact to store (or raw bytes) and
// the audit records of what it refused or noted on the way.
type Output struct {
	Artifact any    // encoded canonically; ignored when Bytes or Write is set
	Bytes    []byte // raw output (e.g. YAML), stored as is
	// Write, when set, writes the output's bytes to w as they are produced,
	// for an output too large to hold whole; the stored object is hashed as
	// it streams, and Result.Bytes stays nil.
	Write func(w io.Writer) error
	Audit []audit.Record
}

// PutStream stores what write writes, hashing it as it streams, and returns
// the object's digest. The object exists only if write succeeds; write's own
// error is returned as it is (a typed refusal stays one).
//
// write and the store run side by side: what write writes is queued in
// chunks (handoff) while the store compresses and hashes the chunks before
// them, so producing a large object and storing it take the time of the
// slower of the two rather than of both.
func PutStream(ctx context.Context, s store.Store, write func(io.Writer) error) (string, error) {
	h := newHandoff()
	type put struct {
		digest string
		err    error
	}
	done := make(chan put, 1)
	go func() {
		r := &handoffReader{h: h}
		d, _, err := s.PutReader(ctx, r)
		r.CloseWithError(err) // a failed put stops the writer too
		done <- put{d, err}
	}()
	w := &handoffWriter{h: h}
	err := write(w)
	if cerr := w.CloseWithError(err); err == nil {
		err = cerr // the end of the object, which the reader was not there to take
	}
	res := <-done
	if err != nil {
		return "", err
	}
	return res.digest, res.err
}

// Result is what Run reports.
type Result struct {
	Stage    string                 `json:"stage"`
	Subject  string                 `json:"subject"`
	Output   string                 `json:"output"`
	CacheHit bool                   `json:"cache_hit"`
	Explain  stagecache.Explanation `json:"explain"`
	Audit    int                    `json:"audit_records"`
	// AuditKinds counts, by kind, the audit records written when the output
	// was produced (on a hit: by the run that produced it).
	AuditKinds map[string]int `json:"audit_kinds"`
	// Bytes are the output's bytes as stored and verified (re-hashed on a
	// hit), so that a frame's checks after Run need not read them again.
	Bytes []byte `json:"-"`
}

// Halt is a stage's refusal to continue: a typed reason, the exit code it
// maps to, and the audit records that explain it (all written before exit,
// exactly once).
type Halt struct {
	Code   int
	Reason string
	Detail string
	Audit  []audit.Record

	cause   error // the error the halt stands for, if any (a corrupt read, a cache conflict)
	written bool  // the records are in the audit log
}

func (h *Halt) Error() string {
	if h.Detail == "" {
		return h.Reason
	}
	return h.Reason + ": " + h.Detail
}

// ExitCode is the halt's exit code (exitcode.Coder).
func (h *Halt) ExitCode() int { return h.Code }

// ReasonCode is the halt's reason code (exitcode.Reasoner).
func (h *Halt) ReasonCode() string { return h.Reason }

// Unwrap returns the error the halt stands for, so that errors.Is still
// sees, say, store.ErrCorrupt through it.
func (h *Halt) Unwrap() error { return h.cause }

// Ref is the name of a subject's latest output of a stage.
func Ref(subject, stageName string) string { return "subjects/" + subject + "/" + stageName }

// Run executes one stage with the cache. A hit does no work: it verifies
// what the package documentation says, then points the subject's ref at the
// cached output. A miss runs core, stores its output while it appends its
// audit records, then records the cache entry and moves the ref. A Halt
// from core is audited and returned; nothing is stored.
func (e *Env) Run(ctx context.Context, spec Spec, core func(context.Context) (Output, error)) (Result, error) {
	res := Result{Stage: spec.Stage, Subject: spec.Subject, AuditKinds: map[string]int{}}
	ing, err := spec.Ingredients()
	if err != nil {
		return res, exitcode.With(exitcode.Internal, err)
	}
	labels, err := spec.Labels()
	if err != nil {
		return res, exitcode.With(exitcode.Internal, err)
	}
	ex, err := e.Cache.Lookup(ctx, ing, labels)
	if err != nil {
		return res, err
	}
	res.Explain = ex
	if ex.Hit {
		if served, err := e.serveHit(ctx, spec, &res); served || err != nil {
			return res, err
		}
	}
	out, err := core(ctx)
	if err != nil {
		return res, e.fail(ctx, spec, err)
	}
	digest, body, err := e.storeAndAudit(ctx, spec, out)
	if err != nil {
		return res, err
	}
	res.Output, res.Bytes = digest, body
	res.Audit, res.AuditKinds = len(out.Audit), countKinds(out.Audit)
	claim, err := e.Cache.Claim(ctx, ing, digest, stagecache.Notes{Labels: labels, Audit: res.AuditKinds})
	if err != nil {
		return res, e.fail(ctx, spec, err)
	}
	// Once the action is recorded, the cache's latest record, the subject's
	// ref and the run note are three independent ref writes, each waiting
	// on the disk, so they are made side by side. Their errors come in that
	// order; one failing no longer keeps the others from being written.
	errs := together(
		func() error { return e.Cache.Latest(ctx, claim) },
		func() error { return e.MoveRef(ctx, spec.ref(), digest) },
		func() error { return e.noteRun(ctx, res) })
	if errs[0] != nil {
		return res, e.fail(ctx, spec, errs[0])
	}
	return res, firstError(errs[1:])
}

// together runs fs side by side, the first on the calling goroutine, and
// returns their errors in fs's order once all have returned.
func together(fs ...func() error) []error {
	errs := make([]error, len(fs))
	var wg sync.WaitGroup
	for i := 1; i < len(fs); i++ {
		wg.Go(func() { errs[i] = fs[i]() })
	}
	errs[0] = fs[0]()
	wg.Wait()
	return errs
}

// firstError is the first error of errs that is not nil, if any.
func firstError(errs []error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// CollectBetweenStages collects the garbage a finished stage left behind,
// so that the next stage builds its heap in the memory it frees. A process
// that runs one stage after another (autorun) calls it between them, once a
// stage's output is let go. Without it the collector, paced with a headroom
// (gcpace), would let the next stage grow the heap past the last one's
// high-water mark before collecting, and their peaks would add up (at
// 100,000 relations ratify started with run's 800 MiB still resident).
//
// It collects and no more: it does not hand the freed memory back to the
// operating system (debug.FreeOSMemory did, until stop 28). That kept the
// same peak, because the next stage's heap fits in what was freed, but the
// next stage then had to fault every page in again: at 16 MiB of source
// autorun took 76.7 s instead of 62.5 s, at 2,417 against 2,413 MiB, with
// 2.17 million page faults against 1.23 million. The runtime's background
// scavenger still returns memory that stays unused.
func CollectBetweenStages() {
	runtime.GC()
}

// serveHit verifies a cache hit and, when it holds, moves the subject's ref
// to the cached output. served is false when the hit cannot be used and the
// stage must run; res.Explain then says why.
func (e *Env) serveHit(ctx context.Context, spec Spec, res *Result) (served bool, err error) {
	output := res.Explain.Output
	verified, err := e.Store.Get(ctx, output)
	if errors.Is(err, store.ErrNotFound) {
		res.Explain.Hit = false
		res.Explain.Changed = append(res.Explain.Changed, "cached output missing")
		return false, nil
	} else if err != nil {
		return false, e.fail(ctx, spec, fmt.Errorf("cached output of %s: %w", spec.Stage, err))
	}
	for _, in := range spec.Inputs {
		if in == Absent {
			continue
		}
		ok, err := e.Store.Has(ctx, in)
		if err != nil {
			return false, fmt.Errorf("stage %s: input %s: %w", spec.Stage, in, err)
		}
		if !ok {
			res.Explain.Hit = false
			res.Explain.Changed = append(res.Explain.Changed, "input missing")
			return false, nil
		}
	}
	res.CacheHit, res.Output, res.Bytes = true, output, verified
	if res.Explain.Audit != nil {
		res.AuditKinds = res.Explain.Audit
	}
	// The subject's ref and the run note are independent writes, made side
	// by side as on a miss.
	note := *res
	return true, firstError(together(
		func() error { return e.MoveRef(ctx, spec.ref(), output) },
		func() error { return e.noteRun(ctx, note) }))
}

// LastRun is what status shows of a stage's latest execution.
type LastRun struct {
	Output   string   `json:"output"`
	CacheHit bool     `json:"cache_hit"`
	Changed  []string `json:"changed"`
	Audit    int      `json:"audit_records"`
	// AuditKinds counts the audit records, by kind, of the run that
	// produced Output (absent in records written before it existed).
	AuditKinds map[string]int `json:"audit_kinds,omitempty"`
}

// countKinds counts audit records by kind.
func countKinds(recs []audit.Record) map[string]int {
	out := map[string]int{}
	for _, r := range recs {
		out[r.Kind]++
	}
	return out
}

func runRef(subject, stageName string) string { return "cache/runs/" + subject + "/" + stageName }

// noteRun keeps the outcome of the latest execution for `formation status`.
func (e *Env) noteRun(ctx context.Context, res Result) error {
	body, err := artifact.Encode(LastRun{Output: res.Output, CacheHit: res.CacheHit, Changed: res.Explain.Changed, Audit: res.Audit, AuditKinds: res.AuditKinds})
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

// storeAndAudit stores a core's output and appends its audit records side
// by side: the two writes are independent, and at scale each is a large
// share of a stage's frame (at 10,000 relations forge's output is megabytes
// and its batch holds a note per candidate). Both finish before the cache
// records the output and the ref moves, so a ref never points at an output
// whose records are missing. When storing the output fails, the records of
// the attempt stay in the log beside its failure; a rerun audits its own.
func (e *Env) storeAndAudit(ctx context.Context, spec Spec, out Output) (digest string, body []byte, err error) {
	audited := make(chan error, 1)
	go func() { audited <- e.appendAudit(ctx, spec, out.Audit) }()
	digest, body, putErr := e.putOutput(ctx, out)
	auditErr := <-audited
	if putErr != nil {
		return "", nil, e.fail(ctx, spec, putErr)
	}
	if auditErr != nil {
		return "", nil, auditErr
	}
	return digest, body, nil
}

func (e *Env) putOutput(ctx context.Context, out Output) (string, []byte, error) {
	if out.Write != nil {
		d, err := PutStream(ctx, e.Store, out.Write)
		if err != nil {
			return "", nil, fmt.Errorf("store output: %w", err)
		}
		return d, nil, nil
	}
	body := out.Bytes
	if body == nil {
		b, err := artifact.Encode(out.Artifact)
		if err != nil {
			return "", nil, exitcode.With(exitcode.Internal, err)
		}
		body = b
	}
	d, err := e.Store.Put(ctx, body)
	if err != nil {
		return "", nil, fmt.Errorf("store output: %w", err)
	}
	return d, body, nil
}

// fail turns err into the stage's typed failure and writes its audit
// records, unless they are written already: a Halt as it is, a corrupt
// object as a corrupt_object halt (exit 65), a cache conflict as a
// cache_conflict halt (exit 1). Any other error is returned as it is.
func (e *Env) fail(ctx context.Context, spec Spec, err error) error {
	var h *Halt
	var conflict *stagecache.ConflictError
	switch {
	case errors.As(err, &h):
	case errors.As(err, &conflict):
		h = &Halt{Code: exitcode.Internal, Reason: "cache_conflict", Detail: err.Error(), cause: err}
		err = h
	case errors.Is(err, store.ErrCorrupt):
		h = &Halt{Code: exitcode.Rejected, Reason: "corrupt_object", Detail: err.Error(), cause: err}
		err = h
	default:
		return err
	}
	if !h.written {
		recs := h.Audit
		if len(recs) == 0 {
			recs = []audit.Record{{Kind: audit.KindHalt, ReasonCode: h.Reason, Detail: h.Detail}}
		}
		if aerr := e.appendAudit(ctx, spec, recs); aerr != nil {
			return errors.Join(err, aerr)
		}
		h.written = true
	}
	return exitcode.With(h.Code, err)
}

// Refuse audits a halt that a frame raises outside Run (say, while it
// checks what it will pass to Run) exactly as Run audits a core's halt, and
// returns it with its exit code.
func (e *Env) Refuse(ctx context.Context, spec Spec, h *Halt) error {
	return e.fail(ctx, spec, h)
}

func (e *Env) appendAudit(ctx context.Context, spec Spec, recs []audit.Record) error {
	if len(recs) == 0 {
		return nil
	}
	// One copy of the inputs serves every record that names none of its
	// own: records are only read from here on, and forge's batch holds a
	// note per accepted candidate (15,500 copies at 10,000 relations).
	inputs := slices.Clone(spec.Inputs)
	if inputs == nil {
		inputs = []string{}
	}
	for i := range recs {
		if recs[i].Stage == "" {
			recs[i].Stage = spec.Stage
		}
		if recs[i].Subject == "" {
			recs[i].Subject = spec.Subject
		}
		if len(recs[i].InputDigests) == 0 {
			recs[i].InputDigests = inputs
		}
	}
	return e.Audit.Append(ctx, recs...)
}

// MoveRef points name at value, whatever it held (store.SetRefValue).
func (e *Env) MoveRef(ctx context.Context, name, value string) error {
	return store.SetRefValue(ctx, e.Store, name, []byte(value))
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
// or an undecodable one halts the reading stage (exit 65), audited here
// once: Run, receiving the halt back from the core, does not audit it again.
func Load[T any](ctx context.Context, e *Env, spec Spec, digest string) (T, error) {
	return LoadAhead[T](ctx, e.Store, digest).Take(ctx, e, spec)
}

// Ahead is an artifact read and decoded ahead of need (LoadAhead), perhaps
// on another goroutine while the stage does something else. As with
// Loaded, its faults count, and are audited, only once the stage takes it
// (Take): a read that an earlier failure made moot audits nothing, and the
// audit keeps the order of the stage's own steps.
type Ahead[T any] struct {
	digest    string
	v         T
	err       error // the store's
	decodeErr error
}

// LoadAhead is Load without the audit; it audits nothing and may run on
// any goroutine. An object read after ctx ended is not decoded: the read
// was let go (Fetching.Stop), and Take gives ctx's error.
func LoadAhead[T any](ctx context.Context, s store.Store, digest string) Ahead[T] {
	a := Ahead[T]{digest: digest}
	raw, err := s.Get(ctx, digest)
	if err == nil {
		err = ctx.Err()
	}
	if a.err = err; err == nil {
		a.v, a.decodeErr = artifact.Decode[T](raw)
	}
	return a
}

// OK reports whether Take will give the artifact rather than an error.
func (a Ahead[T]) OK() bool { return a.err == nil && a.decodeErr == nil }

// Value is the artifact decoded, whatever Take will say of it: for work
// that may start on it before the stage takes it (the zero value when it
// did not decode).
func (a Ahead[T]) Value() T { return a.v }

// Drop lets the artifact go, once what it was read for is done with it:
// Take then gives its zero value, or the same error as before.
func (a Ahead[T]) Drop() Ahead[T] {
	var zero T
	a.v = zero
	return a
}

// Take is what Load would have returned, with its audit.
func (a Ahead[T]) Take(ctx context.Context, e *Env, spec Spec) (T, error) {
	var zero T
	if _, err := Loaded(ctx, e, spec, nil, a.err); err != nil {
		return zero, err
	}
	if a.decodeErr != nil {
		return zero, e.fail(ctx, spec, &Halt{Code: exitcode.Rejected, Reason: "undecodable_input", Detail: a.digest + ": " + a.decodeErr.Error()})
	}
	return a.v, nil
}

// Fetching is an artifact being read ahead on a goroutine of its own
// (Fetch), while the stage prepares what decides whether it needs it.
type Fetching[T any] struct {
	cancel context.CancelFunc
	done   chan struct{}
	read   Ahead[T]
}

// Fetch starts LoadAhead on another goroutine. The stage then takes the
// read with Wait, or lets it go with Stop (a cache hit, which does not read
// its inputs); every path must call Stop, so that no read outlives the
// stage. Forge reads its bundle so beside its preparation: at 10,000
// relations the 6.5 MB bundle takes about as long to read as the subject,
// allow-list, packs and reviewed state together.
func Fetch[T any](ctx context.Context, s store.Store, digest string) *Fetching[T] {
	ctx, cancel := context.WithCancel(ctx)
	f := &Fetching[T]{cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(f.done)
		f.read = LoadAhead[T](ctx, s, digest)
	}()
	return f
}

// Wait is the read, once it is done.
func (f *Fetching[T]) Wait() Ahead[T] {
	<-f.done
	return f.read
}

// Stop cancels the read if it is still running and waits for it to end
// (a store's Get stops within a block of its object once cancelled).
// A read already waited for keeps its value.
func (f *Fetching[T]) Stop() {
	f.cancel()
	<-f.done
}

// LoadBytes reads an object by digest; corruption is a halt, audited once.
func LoadBytes(ctx context.Context, e *Env, spec Spec, digest string) ([]byte, error) {
	raw, err := e.Store.Get(ctx, digest)
	return Loaded(ctx, e, spec, raw, err)
}

// Loaded is LoadBytes for an object a stage read from e.Store ahead of
// need (raw and err are what Get gave), for instance while it loaded
// another: the read counts, and its corruption is audited, only once the
// stage takes it, so a read that an earlier failure made moot audits
// nothing.
func Loaded(ctx context.Context, e *Env, spec Spec, raw []byte, err error) ([]byte, error) {
	if errors.Is(err, store.ErrCorrupt) {
		return nil, e.fail(ctx, spec, err)
	}
	return raw, err
}
