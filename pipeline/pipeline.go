// Package pipeline runs Formation's stages against the object store: for
// each stage it gathers the inputs by ref or digest, calls the stage's pure
// core inside stage.Env.Run (stage cache, audit records, ref moves) and turns
// the outcome into an exit code. It is the only package that calls several
// stages: autorun chains them, ratify re-runs earlier courses for G2, and
// pack ratification drives a pack through forge, compose, run and ratify.
//
// The stages' work lives in their own packages; pipeline holds only the
// frame. For the run stage, compiling a course, the plan runner and the shim
// that drives each step through the chat runtime are package run
// (run.DrivePlan); pipeline stores the plan and the record and turns a run
// refusal (*run.Error) into a stage.Halt, so the audit record keeps the
// run's reason code.
package pipeline

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"formation/artifact"
	"formation/courses"
	"formation/internal/exitcode"
	"formation/mining"
	"formation/packs"
	"formation/stage"
	"formation/store"
)

// Stage versions: bump one when its output for the same inputs changes.
// mine and smelt carry theirs in their own packages (mining.StageVersion,
// smelting.Version), beside the code that decides their output.
const (
	ForgeVersion   = "2" // 2: declared relations, terms in the user's normal form, self-contradiction, curator exclusions
	ComposeVersion = "1"
	RunVersion     = "2" // 2: a step must also be reached by a user typing its utterance
	RatifyVersion  = "2" // 2: nothing_to_teach; no gate passes as a plain n/a
)

// Pipeline holds what every stage execution needs.
type Pipeline struct {
	Env        *stage.Env
	CoursesDir string             // the folder holding subject folders
	Packs      packs.Options      // where packs are and whether unratified ones may load
	Log        io.Writer          // human progress (stderr); never stdout
	Jobs       int                // mining readers and run-stage runtimes at once; 0 = every CPU
	EnableLLM  bool               // allow the LLM ideation adapter
	LLM        mining.LLMProvider // nil: recorded generations (each llm source's output file)
	IssuedAt   string             // overrides the subject file's issued_at
	Template   string             // overrides the subject file's template
	// OnProgress, when not nil, hears every stage's advance, for a
	// terminal progress bar.
	OnProgress func(Progress)

	// indexBeside, when not 0, replaces indexBesideMax (tests take both
	// ways with it).
	indexBeside int
}

// Progress is a stage's advance in real units (files, texts, candidates,
// steps, courses). Within one stage and unit Done never decreases; Total is
// 0 while unknown and, once reported, does not change.
type Progress struct {
	Stage string
	Unit  string
	Done  int64
	Total int64
}

func (p *Pipeline) progress(stage, unit string, done, total int64) {
	if p.OnProgress != nil {
		p.OnProgress(Progress{Stage: stage, Unit: unit, Done: done, Total: total})
	}
}

func (p *Pipeline) logf(format string, args ...any) {
	if p.Log != nil {
		fmt.Fprintf(p.Log, format+"\n", args...)
	}
}

// Subject loads and validates courses/<id>/subject.yaml.
func (p *Pipeline) Subject(ctx context.Context, id string) (*courses.Subject, error) {
	if err := store.ValidSubjectID(id); err != nil {
		return nil, exitcode.With(exitcode.Usage, err)
	}
	dir := filepath.Join(p.coursesDir(), id)
	if _, err := os.Stat(dir); err != nil {
		return nil, exitcode.Newf(exitcode.NotFound, "subject %s: no folder %s", id, dir)
	}
	s, err := courses.Load(ctx, dir)
	if err != nil {
		return nil, exitcode.With(exitcode.Rejected, fmt.Errorf("subject %s: %w", id, err))
	}
	return s, nil
}

func (p *Pipeline) coursesDir() string {
	if p.CoursesDir != "" {
		return p.CoursesDir
	}
	return "courses"
}

// Spec converts a subject file into the SubjectSpec artifact.
func Spec(s *courses.Subject) artifact.SubjectSpec {
	nz := func(v []string) []string {
		if v == nil {
			return []string{}
		}
		return v
	}
	return artifact.SubjectSpec{
		SubjectID: s.SubjectID, Title: s.Title, TargetDepth: s.TargetDepth,
		RequiresCourses: nz(s.RequiresCourses), AntiRequisites: nz(s.AntiRequisites),
		IdentityAxisConstraints: nz(s.IdentityAxisConstraints), SchemaVersion: artifact.SchemaVersion,
	}
}

// loadPacks loads the safety pack (fail-closed) and the identity manifold.
func (p *Pipeline) loadPacks(ctx context.Context) (*packs.Loaded, error) {
	opts := p.Packs
	if opts.Dir == "" {
		dir, err := packs.FindPacksDir()
		if err != nil {
			return nil, exitcode.With(exitcode.SealInvalid, err)
		}
		opts.Dir = dir
	}
	loaded, err := packs.Load(ctx, opts)
	if err != nil {
		return nil, err // a pack error decides its exit code, as for `formation ask`
	}
	if loaded.Fallback != nil {
		p.logf("warning: %s", loaded.Fallback.String())
	}
	return loaded, nil
}

// readSubjectFile reads a file of the subject folder and stores it as an
// object, so that its digest can be an input of the stage cache.
func (p *Pipeline) readSubjectFile(ctx context.Context, s *courses.Subject, name string) ([]byte, string, error) {
	raw, err := os.ReadFile(filepath.Join(s.Dir, name))
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, "", exitcode.Newf(exitcode.NotFound, "subject %s: %s is missing", s.SubjectID, name)
		}
		return nil, "", err
	}
	d, err := p.Env.Store.Put(ctx, raw)
	if err != nil {
		return nil, "", err
	}
	return raw, d, nil
}
