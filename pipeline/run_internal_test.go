package pipeline

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"formation/audit"
	"formation/internal/exitcode"
	"formation/run"
	"formation/stage"
	"formation/store"
)

// A run refusal reaching the stage frame is audited under the run's reason
// code, exits with the run's code and keeps the run's message.
func TestRunRefusalIsAuditedAsAHalt(t *testing.T) {
	ctx := context.Background()
	s, err := store.Open(ctx, "file://"+t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	env := stage.NewEnv(s, &audit.Writer{Store: s, Now: func() time.Time { return time.Date(2026, 5, 16, 0, 0, 0, 0, time.UTC) }, CodeVersion: "test"})
	for _, c := range []struct {
		subject string
		err     error
		code    int
	}{
		{"step", fmt.Errorf("run: step 3 (seed_concept): %w", &run.Error{Reason: run.ReasonPlanStepRejected, Code: exitcode.Rejected, Err: errors.New("no head")}), exitcode.Rejected},
		{"knowledge", &run.Error{Reason: run.ReasonKnowledgeRejected, Code: exitcode.Rejected, Err: errors.New("no head")}, exitcode.Rejected},
		{"packs", &run.Error{Reason: run.ReasonSafetyPackInvalid, Code: exitcode.SealInvalid, Err: errors.New("no head")}, exitcode.SealInvalid},
	} {
		spec := stage.Spec{Stage: "run", Version: RunVersion, Subject: c.subject, Inputs: []string{}}
		_, err := env.Run(ctx, spec, func(context.Context) (stage.Output, error) { return stage.Output{}, haltOf(c.err) })
		if exitcode.Of(err) != c.code || err.Error() != c.err.Error() {
			t.Fatalf("%s: exit %d, %q", c.subject, exitcode.Of(err), err)
		}
		var re *run.Error
		errors.As(c.err, &re)
		recs, err := audit.List(ctx, s, audit.Filter{Subject: c.subject, Stage: "run"})
		if err != nil || len(recs) != 1 || recs[0].Kind != audit.KindHalt || recs[0].ReasonCode != re.Reason || recs[0].Detail != "no head" {
			t.Fatalf("%s: audit %+v %v", c.subject, recs, err)
		}
	}
	plain := errors.New("store down")
	if haltOf(plain) != plain || haltOf(nil) != nil {
		t.Fatal("haltOf changed an error that is no run refusal")
	}
}
