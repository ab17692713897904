package audit_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"formation/audit"
	"formation/internal/exitcode"
	"formation/store"
)

func TestAppendListAndRedact(t *testing.T) {
	ctx := context.Background()
	s, err := store.Open(ctx, "file://"+t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	const secret = "wJalrXUtnFEMI-K7MDENG-bPxRfiCYEXAMPLEKEY"
	t.Setenv("AWS_SECRET_ACCESS_KEY", secret)
	clock := time.Date(2026, 11, 30, 5, 0, 0, 0, time.UTC)
	w := &audit.Writer{Store: s, Now: func() time.Time { clock = clock.Add(time.Second); return clock }, CodeVersion: "test", Secrets: audit.SecretsFromEnv()}
	if err := w.Append(ctx,
		audit.Record{Stage: "forge", Subject: "optics", Kind: audit.KindRejection, ReasonCode: "insufficient_corroboration", Key: "light|causes|heat", Detail: "store error: credentials " + secret + " refused"},
		audit.Record{Stage: "forge", Subject: "optics", Kind: audit.KindDrop, ReasonCode: "duplicate_merged", Key: "lens"},
	); err != nil {
		t.Fatal(err)
	}
	if err := w.Append(ctx, audit.Record{Stage: "mine", Subject: "optics", Kind: audit.KindHalt, ReasonCode: "path_escape", Key: "../x"}); err != nil {
		t.Fatal(err)
	}
	if err := w.Append(ctx, audit.Record{Stage: "mine", Subject: "other", Kind: audit.KindHalt, ReasonCode: "oversized"}); err != nil {
		t.Fatal(err)
	}
	all, err := audit.List(ctx, s, audit.Filter{})
	if err != nil || len(all) != 4 {
		t.Fatalf("list all: %d %v", len(all), err)
	}
	if all[0].ReasonCode != "insufficient_corroboration" || all[3].Subject != "other" {
		t.Fatalf("not in time order: %+v", all)
	}
	forge, _ := audit.List(ctx, s, audit.Filter{Subject: "optics", Stage: "forge"})
	if len(forge) != 2 || audit.Counts(forge)[audit.KindDrop] != 1 {
		t.Fatalf("filtered: %+v", forge)
	}
	// The secret never reaches the store, in any ref.
	names, _ := s.ListRefs(ctx, "audit/")
	for _, n := range names {
		body, _, _ := s.GetRef(ctx, n)
		if strings.Contains(string(body), secret) {
			t.Fatalf("secret written to %s", n)
		}
	}
	if !strings.Contains(all[0].Detail, "[redacted]") {
		t.Fatalf("detail not redacted: %q", all[0].Detail)
	}
	// Batches are create-only: the same batch name cannot be overwritten.
	if _, err := s.SetRef(ctx, names[0], "", []byte("[]")); err == nil {
		t.Fatal("audit batch overwritten")
	}
}

// A batch that does not decode makes List fail with exit code 65 (a
// corrupt record), naming the batch; the other batches do not hide it.
func TestListRefusesAnUndecodableBatch(t *testing.T) {
	ctx := context.Background()
	s, err := store.Open(ctx, "file://"+t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	w := &audit.Writer{Store: s, Now: func() time.Time { return time.Date(2026, 12, 2, 0, 0, 0, 0, time.UTC) }, CodeVersion: "test"}
	if err := w.Append(ctx, audit.Record{Stage: "forge", Subject: "optics", Kind: audit.KindDrop, ReasonCode: "duplicate_merged", Key: "lens"}); err != nil {
		t.Fatal(err)
	}
	const bad = "audit/optics/forge/20261202T000001Z-000000000-0123456789abcdef"
	if _, err := s.SetRef(ctx, bad, "", []byte(`{"records":[]}`)); err != nil {
		t.Fatal(err)
	}
	_, err = audit.List(ctx, s, audit.Filter{Subject: "optics"})
	if exitcode.Of(err) != exitcode.Rejected || !strings.Contains(fmt.Sprint(err), bad) {
		t.Fatalf("list over an undecodable batch: exit %d, %v", exitcode.Of(err), err)
	}
}
