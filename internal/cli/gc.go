package cli

import (
	"errors"
	"fmt"
	"time"

	"github.com/urfave/cli/v2"

	"formation/audit"
	"formation/internal/exitcode"
	"formation/storegc"
)

func gcCommand(io IO) *cli.Command {
	return &cli.Command{
		Name:  "gc",
		Usage: "remove what no ref reaches: old stage-cache records and their outputs, temp files, incomplete uploads",
		Description: `Root-based garbage collection. Roots are every ref but the stage cache's
action records: subjects' stage refs, the reviewed state with every state of
its chain and everything each names, lanes, audit, packs, proposals, and the
cache's notes of the latest run of each subject and stage (cache/last/…,
cache/runs/…). Everything reachable from them through the artifacts' digests
is kept. Older cache records go, with whatever only they reached (the next
run recomputes it); so do validated-set lookups no kept artifact names, stale
locks, temp files, S3 spool files of dead writers and incomplete multipart
uploads.

gc is safe beside running commands: it takes the store's exclusive lock
(locks/…), waiting up to --wait for commands that hold shared locks to end,
and every writing command waits while gc holds it. No object, file or
upload younger than --grace (default 1h; temp files: at least 1m) is removed
(refs have no age). --dry-run reports
what would go and changes nothing. A ref or reachable object gc cannot read
stops it before it deletes anything (exit 65, one audit record; run
` + "`formation check`" + `); a lock it could not get in time exits 75.`,
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "dry-run", Usage: "report what would be removed; remove nothing"},
			&cli.DurationFlag{Name: "grace", Value: storegc.DefaultGrace, Usage: "keep anything younger than this"},
			&cli.DurationFlag{Name: "wait", Value: 10 * time.Minute, Usage: "wait this long for running commands to release the store"},
		},
		Action: func(c *cli.Context) error { return runGC(c, io) },
	}
}

func runGC(c *cli.Context, io IO) error {
	if c.NArg() > 0 {
		return exitcode.Newf(exitcode.Usage, "gc: no arguments (got %q)", c.Args().Slice())
	}
	if c.Duration("grace") < 0 || c.Duration("wait") < 0 {
		return exitcode.Newf(exitcode.Usage, "gc: --grace and --wait must not be negative")
	}
	s, err := openStore(c)
	if err != nil {
		return err
	}
	rep, err := storegc.Collect(c.Context, s, storegc.Options{
		DryRun: c.Bool("dry-run"), Grace: c.Duration("grace"), Wait: c.Duration("wait"),
		Owner: "formation gc",
	})
	var refused *storegc.RefusedError
	if errors.As(err, &refused) {
		rec := audit.Record{Stage: "gc", Subject: "_store", Kind: audit.KindHalt, ReasonCode: refused.Reason, Detail: refused.Detail}
		if aerr := auditWriter(s, io).Append(c.Context, rec); aerr != nil {
			return errors.Join(err, fmt.Errorf("audit: %w", aerr))
		}
		return err
	}
	if err != nil {
		return err
	}
	if wantJSON(c) {
		return writeJSON(io.Stdout, rep)
	}
	printGC(io, rep)
	return nil
}

func printGC(io IO, rep storegc.Report) {
	verb := "removed"
	if rep.DryRun {
		verb = "would remove"
	}
	fmt.Fprintf(io.Stdout, "roots: %d refs; objects: %d listed, %d kept (%s)\n",
		rep.Roots, rep.ObjectsListed, rep.ObjectsKept+rep.WithinGrace, bytesHuman(rep.BytesKept))
	fmt.Fprintf(io.Stdout, "%s: %d objects (%s), %d refs, %d leftovers\n",
		verb, rep.ObjectsDeleted, bytesHuman(rep.BytesDeleted), len(rep.RefsDeleted), len(rep.LeftoversRemoved))
	if rep.WithinGrace > 0 {
		fmt.Fprintf(io.Stdout, "kept within the %s grace period: %d unreachable objects\n", rep.Grace, rep.WithinGrace)
	}
	for _, l := range rep.LeftoversRemoved {
		fmt.Fprintf(io.Stdout, "  %s %s (%s)\n", l.Kind, l.Name, bytesHuman(l.Size))
	}
	if len(rep.Missing) > 0 {
		fmt.Fprintf(io.Stdout, "note: %d objects named by kept artifacts are not stored; run `formation check`\n", len(rep.Missing))
	}
}

func bytesHuman(n int64) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}
