package cli

import (
	"fmt"
	"time"

	"github.com/urfave/cli/v2"

	"formation/audit"
	"formation/internal/exitcode"
	"formation/reviewed"
	"formation/store"
	"formation/storecheck"
	"formation/storegc"
)

func checkCommand(io IO) *cli.Command {
	return &cli.Command{
		Name:  "check",
		Usage: "verify the whole store: refs, the reviewed-state chain and (with --read-data) every object",
		Description: `Reads every ref and checks that it parses and that the objects it names
exist; walks the reviewed-state chain (knowledge/state) from its head back to
its first state and checks every link and every object each state names;
with --read-data, also reads every object in the store, reachable or not, and
re-hashes it. It also lists leftovers of interrupted writes older than
--grace (default 1h): temp files, S3 spool files of dead writers and
incomplete multipart uploads. They are not corruption (exit 0);
` + "`formation gc`" + ` removes them. Nothing is repaired. On a store written before the reviewed
state existed, it first writes state 0 from that store's refs.

Exit 65 when anything is wrong, with one audit record per finding (stage
check). --expect-head DIGEST (or --expect-head-file FILE; FORMATION_EXPECT_HEAD)
exits 77 when the reviewed state is not that one, which detects a rollback of
the whole reviewed state to an older, valid one.

Example:

   $ formation check --read-data`,
		Flags: append([]cli.Flag{
			&cli.BoolFlag{Name: "read-data", Usage: "re-hash every object in the store"},
			&cli.DurationFlag{Name: "grace", Value: storegc.DefaultGrace, Usage: "list leftovers older than this only (younger ones may be writes in progress)"},
		}, expectHeadFlags()...),
		Action: func(c *cli.Context) error { return runCheck(c, io) },
	}
}

func runCheck(c *cli.Context, io IO) error {
	expect, err := expectedHead(c)
	if err != nil {
		return err
	}
	s, err := checkStore(c)
	if err != nil {
		return err
	}
	rep, err := storecheck.Check(c.Context, s, storecheck.Options{ReadData: c.Bool("read-data"), Grace: c.Duration("grace")})
	if err != nil {
		return err
	}
	if wantJSON(c) {
		err = emit(io, rep)
	} else {
		printCheck(io, rep, c.Bool("read-data"))
	}
	if err != nil {
		return err
	}
	if len(rep.Findings) > 0 {
		return auditFindings(c, io, s, rep.Findings)
	}
	if err := reviewed.CheckHead(reviewed.Snapshot{Head: rep.StateHead}, expect); err != nil {
		return auditStateError(c, io, s, "check", err)
	}
	return nil
}

// auditFindings writes one audit record per finding and returns exit 65.
func auditFindings(c *cli.Context, io IO, s store.Store, findings []storecheck.Finding) error {
	recs := make([]audit.Record, len(findings))
	for i, f := range findings {
		recs[i] = audit.Record{Stage: "check", Subject: "_store", Kind: audit.KindHalt, ReasonCode: f.Reason, Key: f.Where, Detail: f.Detail}
	}
	err := exitcode.Newf(exitcode.Rejected, "check: %d finding(s); the first: %s %s: %s", len(findings), findings[0].Reason, findings[0].Where, findings[0].Detail)
	appendAudit(c, io, s, recs...)
	return err
}

func printCheck(io IO, rep storecheck.Report, readData bool) {
	head := "none (nothing promoted)"
	if rep.StateHead != "" {
		head = fmt.Sprintf("%s (seq %d)", rep.StateHead, rep.StateSeq)
	}
	if rep.Migrated {
		fmt.Fprintln(io.Stdout, "migrated: wrote reviewed state 0 from this store's earlier refs")
	}
	fmt.Fprintf(io.Stdout, "refs checked: %d\nreviewed state: %s\n", rep.Refs, head)
	if readData {
		fmt.Fprintf(io.Stdout, "objects re-hashed: %d\n", rep.Objects)
	}
	for _, f := range rep.Findings {
		fmt.Fprintf(io.Stdout, "FINDING %s %s: %s\n", f.Reason, f.Where, f.Detail)
	}
	for _, l := range rep.Leftovers {
		fmt.Fprintf(io.Stdout, "leftover %s %s (%d bytes, %s old); `formation gc` removes it\n", l.Kind, l.Name, l.Size, time.Duration(l.AgeSeconds)*time.Second)
	}
	if len(rep.Findings) == 0 {
		fmt.Fprintln(io.Stdout, "ok: no findings")
	}
}

// checkStore opens the store for check: read only, without a lock, unless
// the store predates the reviewed state object and check will write its
// state 0 — then it takes the writers' shared lock like any writer, so that
// gc never removes what the migration is writing. A read-only store can
// thus be checked (its audit records then fail with a warning).
func checkStore(c *cli.Context) (store.Store, error) {
	s, err := openStore(c)
	if err != nil {
		return nil, err
	}
	snap, err := reviewed.Load(c.Context, s)
	if err != nil || !snap.Legacy {
		return s, nil // a damaged state is check's finding, not a reason to lock
	}
	return openWriteStore(c)
}
