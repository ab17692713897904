package cli

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"github.com/urfave/cli/v2"

	"formation/artifact"
	"formation/internal/exitcode"
	"formation/stage"
	"formation/store"
)

// StageNames are the per-subject stages, in pipeline order.
var stageNames = []string{"mine", "smelt", "forge", "compose", "run", "ratify"}

func statusCommand(io IO) *cli.Command {
	return &cli.Command{
		Name:      "status",
		Usage:     "show a subject's latest output per stage (with its cache outcome and the audit records that producing it wrote) and its ratification verdict; an unknown subject exits 66",
		ArgsUsage: "SUBJECT",
		Description: `Reads only the store (and, for a subject that never ran, the courses folder);
it never creates a store. The report is named by its object digest.

Example:

   $ formation status optics --json`,
		Action: func(c *cli.Context) error { return runStatus(c, io) },
	}
}

// StageStatus is one row of `formation status`. Audit counts, by kind, the
// audit records written when the shown output was produced (a cache hit
// shows those of the run that produced it), not every record ever.
type StageStatus struct {
	Stage    string         `json:"stage"`
	Output   string         `json:"output"`
	Ran      bool           `json:"ran"`
	CacheHit bool           `json:"cache_hit"`
	Changed  []string       `json:"changed"`
	Audit    map[string]int `json:"audit"`
}

// StatusOutput is the --json document of `formation status`.
type StatusOutput struct {
	SchemaVersion  string                     `json:"schema_version"`
	Subject        string                     `json:"subject"`
	Stages         []StageStatus              `json:"stages"`
	Report         string                     `json:"report"`
	Ratified       bool                       `json:"ratified"`
	IssuedAt       string                     `json:"issued_at"`
	Gates          []artifact.GateMeasurement `json:"gates"`
	FailureReasons []string                   `json:"failure_reasons"`
}

func runStatus(c *cli.Context, io IO) error {
	subject := c.Args().First()
	if err := store.ValidSubjectID(subject); err != nil {
		return exitcode.With(exitcode.Usage, err)
	}
	s, err := openStore(c)
	if errors.Is(err, store.ErrNotFound) {
		return exitcode.Newf(exitcode.NotFound, "status: unknown subject %s: %v", subject, err)
	}
	if err != nil {
		return err
	}
	env := stage.NewEnv(s, auditWriter(s, io))
	out := StatusOutput{SchemaVersion: artifact.SchemaVersion, Subject: subject, Stages: []StageStatus{},
		Gates: []artifact.GateMeasurement{}, FailureReasons: []string{}}
	known := false
	for _, name := range stageNames {
		row := StageStatus{Stage: name, Changed: []string{}, Audit: map[string]int{}}
		lr, ok, err := env.ReadLastRun(c.Context, subject, name)
		if err != nil {
			return err
		}
		if ok {
			row.Ran, row.Output, row.CacheHit, row.Changed = true, lr.Output, lr.CacheHit, lr.Changed
			for k, n := range lr.AuditKinds {
				row.Audit[k] = n
			}
			known = true
		}
		out.Stages = append(out.Stages, row)
	}
	if !known && !subjectFolderExists(c, subject) {
		return exitcode.Newf(exitcode.NotFound, "status: unknown subject %s: nothing ran for it in %s and there is no folder %s",
			subject, s, filepath.Join(coursesDir(c), subject))
	}
	if err := readVerdict(c, env, subject, &out); err != nil {
		return err
	}
	if wantJSON(c) {
		return emit(io, out)
	}
	printStatus(io, out)
	return nil
}

// subjectFolderExists reports whether the subject has a folder under
// --courses-dir: a subject that never ran is still a known one.
func subjectFolderExists(c *cli.Context, subject string) bool {
	info, err := os.Stat(filepath.Join(coursesDir(c), subject))
	return err == nil && info.IsDir()
}

func readVerdict(c *cli.Context, env *stage.Env, subject string, out *StatusOutput) error {
	digest, err := env.ResolveRef(c.Context, subject, "ratify")
	if exitcode.Of(err) == exitcode.NotFound {
		return nil
	}
	if err != nil {
		return err
	}
	raw, err := env.Store.Get(c.Context, digest)
	if err != nil {
		if errors.Is(err, store.ErrCorrupt) {
			return exitcode.With(exitcode.Rejected, err)
		}
		return err
	}
	rep, err := artifact.Decode[artifact.MasteryReport](raw)
	if err != nil {
		return exitcode.With(exitcode.Rejected, err)
	}
	out.Report, out.Ratified, out.IssuedAt, out.Gates, out.FailureReasons = digest, rep.Ratified, rep.IssuedAt, rep.Gates, rep.FailureReasons
	return nil
}

func printStatus(io IO, out StatusOutput) {
	fmt.Fprintf(io.Stdout, "subject %s\n", out.Subject)
	for _, r := range out.Stages {
		state := "not run"
		if r.Ran {
			state = "miss"
			if r.CacheHit {
				state = "cache hit"
			}
		}
		kinds := make([]string, 0, len(r.Audit))
		for k := range r.Audit {
			kinds = append(kinds, k)
		}
		sort.Strings(kinds)
		counts := ""
		for _, k := range kinds {
			counts += fmt.Sprintf(" %s=%d", k, r.Audit[k])
		}
		fmt.Fprintf(io.Stdout, "  %-8s %-10s %s%s\n", r.Stage, state, short(r.Output), counts)
	}
	switch {
	case out.Report == "":
		fmt.Fprintln(io.Stdout, "  verdict: not ratified yet")
	case out.Ratified:
		fmt.Fprintf(io.Stdout, "  verdict: RATIFIED (report object %s, issued %s)\n", out.Report, out.IssuedAt)
	default:
		fmt.Fprintf(io.Stdout, "  verdict: NOT ratified (report object %s): %v\n", out.Report, out.FailureReasons)
	}
	for _, g := range out.Gates {
		mark := "pass"
		if !g.Passed {
			mark = "FAIL"
		}
		fmt.Fprintf(io.Stdout, "    %-32s %s  %s (threshold %s)\n", g.Name, mark, g.Measurement, g.Threshold)
	}
}

func short(d string) string {
	if len(d) > 12 {
		return d[:12]
	}
	return d
}
