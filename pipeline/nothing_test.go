package pipeline_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"formation/artifact"
	"formation/audit"
	"formation/internal/exitcode"
	"formation/stage"
)

// A subject that yields nothing to teach is not ratified: an empty source,
// and an allow-list under which every candidate is quarantined, both stop
// `formation autorun` at the forge with exit 65 and a nothing_to_teach halt
// in the audit log, after the findings that say why.
func TestAutorunNothingToTeach(t *testing.T) {
	l := newLab(t)
	l.subject("empty", "")
	l.subject("unlisted", tinyDoc)
	must(t, os.WriteFile(filepath.Join(l.courses, "unlisted", "allowlist.yaml"), []byte("[]\n"), 0o644))
	for _, id := range []string{"empty", "unlisted"} {
		code, _, errs := l.run("autorun", id)
		if code != exitcode.Rejected || !strings.Contains(errs, "nothing_to_teach") {
			t.Fatalf("autorun %s: exit %d\n%s", id, code, errs)
		}
		recs, err := audit.List(context.Background(), l.storeHandle, audit.Filter{Subject: id, Stage: "forge"})
		must(t, err)
		var halts, rejections int
		for _, r := range recs {
			switch {
			case r.Kind == audit.KindHalt && r.ReasonCode == "nothing_to_teach":
				halts++
			case r.Kind == audit.KindRejection:
				rejections++
			}
		}
		if halts != 1 {
			t.Fatalf("%s: %d nothing_to_teach halts in %+v", id, halts, recs)
		}
		if id == "unlisted" && rejections == 0 {
			t.Fatalf("%s: the quarantined candidates are not audited: %+v", id, recs)
		}
		if code, _, _ := l.run("compose", id); code != exitcode.NotFound {
			t.Fatalf("%s: compose found a forge output after the halt: exit %d", id, code)
		}
	}
}

// Ratify refuses a course that teaches nothing with the same reason, exit
// 65, instead of sealing a report that fails its gates: here an empty
// validated set put in the forge's place is composed (compose's core takes
// it) and run, and ratify halts.
func TestRatifyRefusesAnEmptySet(t *testing.T) {
	ctx := context.Background()
	p := tinyPipeline(t, tinySubject(t, tinyDoc))
	for _, st := range []func(context.Context, string) (stage.Result, error){p.Mine, p.Smelt} {
		if _, err := st(ctx, "tiny"); err != nil {
			t.Fatal(err)
		}
	}
	empty := artifact.ValidatedTripleSet{SubjectID: "tiny", Concepts: []artifact.ConceptCandidate{}, Relations: []artifact.RelationCandidate{},
		Counters: []artifact.CounterCandidate{}, OrderingHints: []artifact.OrderingHint{}, Quarantined: []artifact.RelationCandidate{},
		SchemaVersion: artifact.SchemaVersion}
	body, err := artifact.Encode(empty)
	must(t, err)
	d, err := p.Env.Store.Put(ctx, body)
	must(t, err)
	must(t, p.Env.MoveRef(ctx, stage.Ref("tiny", "forge"), d))
	for _, st := range []func(context.Context, string) (stage.Result, error){p.Compose, p.Run} {
		if _, err := st(ctx, "tiny"); err != nil {
			t.Fatal(err)
		}
	}
	_, err = p.Ratify(ctx, "tiny")
	if exitcode.Of(err) != exitcode.Rejected || !strings.Contains(err.Error(), "nothing_to_teach") {
		t.Fatalf("ratify of an empty set: exit %d (%v)", exitcode.Of(err), err)
	}
	recs, _ := audit.List(ctx, p.Env.Store, audit.Filter{Subject: "tiny", Stage: "ratify"})
	if len(recs) != 1 || recs[0].ReasonCode != "nothing_to_teach" {
		t.Fatalf("audit %+v", recs)
	}
	if _, err := p.Env.ResolveRef(ctx, "tiny", "ratify"); exitcode.Of(err) != exitcode.NotFound {
		t.Fatal("a refused ratify left a report")
	}
}
