package ledger_test

import (
	"context"
	"os"
	"strings"
	"testing"

	"formation/eval"
	"formation/ledger"
	"formation/ledger/ledgertest"
	"formation/reviewers"
)

var claimLanes = []string{eval.LaneFabricationControl, eval.LaneInferenceClosure, eval.LaneDomainQA}

func build(t *testing.T, w *ledgertest.World) ledger.Row {
	t.Helper()
	rep, err := ledger.Build(context.Background(), w.Sources(), ledgertest.Domain)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Domains) != 1 {
		t.Fatalf("%d rows", len(rep.Domains))
	}
	return rep.Domains[0]
}

func wantRow(t *testing.T, row ledger.Row, status, reason string) {
	t.Helper()
	if row.Status != status || !strings.Contains(row.AuditPassedReason, reason) {
		t.Fatalf("status %s reason %q; want %s with %q\nseeded %q grounded %q reasoning %q problems %v", row.Status, row.AuditPassedReason,
			status, reason, row.SeededReason, row.GroundedReason, row.ReasoningCapableReason, row.Problems)
	}
}

// auditPassed builds a world whose domain reaches audit-passed.
func auditPassed(t *testing.T) *ledgertest.World {
	t.Helper()
	w := ledgertest.New(t)
	w.RunLanes(t, "public", "holdout")
	w.WriteRegistry(t, w.Sign(t, "rev-1", claimLanes...))
	wantRow(t, build(t, w), ledger.StatusAuditPassed, ledger.ReasonPassed)
	return w
}

func TestWorldClimbsTheLadder(t *testing.T) {
	w := ledgertest.New(t)
	// No registry file yet: reasoning-capable, and the reason names the registry error.
	row := build(t, w)
	wantRow(t, row, ledger.StatusReasoningCapable, "reviewer registry not found at "+w.RegistryPath)
	if !row.Predicates.Seeded || !row.DefinitionCoverage.Ready || row.OperatorCoverage[0].Walks < 8 || row.IntentShapes.Count != 3 {
		t.Fatalf("row %+v", row)
	}
	// A valid registry without a claim.
	w.WriteRegistry(t)
	wantRow(t, build(t, w), ledger.StatusReasoningCapable, ledger.ReasonNoClaim)
	// Lanes run, claim signed: audit-passed.
	w.RunLanes(t, "public", "holdout")
	c := w.Sign(t, "rev-1", claimLanes...)
	w.WriteRegistry(t, c)
	row = build(t, w)
	wantRow(t, row, ledger.StatusAuditPassed, ledger.ReasonPassed)
	if row.DerivedDigest != c.ClaimDigest || !row.Claim.Signed || len(row.Evidence) != 8 {
		t.Fatalf("derived %s claim %+v evidence %d", row.DerivedDigest, row.Claim, len(row.Evidence))
	}
}

// One promoted world, audit-passed, tampered with one thing at a time: each
// change demotes the domain and names why, and restoring it restores
// audit-passed. The subtests share the world and run in order.
func TestTamperingDemotesAndRestores(t *testing.T) {
	w := auditPassed(t)
	ctx := context.Background()
	registry, err := os.ReadFile(w.RegistryPath)
	if err != nil {
		t.Fatal(err)
	}
	restored := func(t *testing.T) {
		t.Helper()
		wantRow(t, build(t, w), ledger.StatusAuditPassed, ledger.ReasonPassed)
	}

	t.Run("no trusted keys", func(t *testing.T) {
		src := w.Sources()
		src.Trusted = nil
		rep, err := ledger.Build(ctx, src, "")
		if err != nil {
			t.Fatal(err)
		}
		if row := rep.Domains[0]; row.Status != ledger.StatusBlocked || !strings.Contains(row.SeededReason, "no trusted curator keys") {
			t.Fatalf("status %s seeded %q", row.Status, row.SeededReason)
		}
		restored(t)
	})

	t.Run("report byte", func(t *testing.T) {
		restore := w.FlipByte(t, w.ReportObject)
		row := build(t, w)
		if row.Status != ledger.StatusBlocked || !strings.Contains(row.SeededReason, "mastery report") {
			t.Fatalf("status %s seeded %q", row.Status, row.SeededReason)
		}
		restore()
		restored(t)
	})

	t.Run("lane result byte", func(t *testing.T) {
		l, err := eval.LoadLatest(ctx, w.Store, ledgertest.Domain, eval.LaneInferenceClosure, "holdout")
		if err != nil || !l.Found {
			t.Fatal(err)
		}
		restore := w.FlipByte(t, l.Object)
		wantRow(t, build(t, w), ledger.StatusReasoningCapable, "lane 'inference_closure' split 'holdout' has no usable result: lane result "+l.Object)
		restore()
		restored(t)
	})

	t.Run("claim field", func(t *testing.T) {
		bad := strings.Replace(string(registry), "evidence_revision: rev-1", "evidence_revision: rev-9", 1)
		if bad == string(registry) {
			t.Fatal("revision not found in the registry")
		}
		write(t, w.RegistryPath, bad)
		wantRow(t, build(t, w), ledger.StatusReasoningCapable, "not validly signed: claim fields differ from the signed payload")
		write(t, w.RegistryPath, string(registry))
		restored(t)
	})

	t.Run("signature", func(t *testing.T) {
		reg, err := reviewers.Parse(registry)
		if err != nil {
			t.Fatal(err)
		}
		c, _ := reg.ClaimFor(ledgertest.Domain)
		sig := c.Signature.Signatures[0].Sig
		swapped := "A" // one base64 character, still valid base64
		if sig[10] == 'A' {
			swapped = "B"
		}
		write(t, w.RegistryPath, strings.Replace(string(registry), sig, sig[:10]+swapped+sig[11:], 1))
		wantRow(t, build(t, w), ledger.StatusReasoningCapable, "no claim signature verifies against signer '"+ledgertest.Reviewer+"'")
		rep, _ := ledger.Build(ctx, w.Sources(), "")
		if len(rep.Registry.ClaimErrors) != 1 {
			t.Fatalf("claim errors %+v", rep.Registry.ClaimErrors)
		}
		write(t, w.RegistryPath, string(registry))
		restored(t)
	})

	t.Run("broken registry", func(t *testing.T) {
		write(t, w.RegistryPath, string(registry)+"expert_demo_claims: []\n")
		rep, err := ledger.Build(ctx, w.Sources(), "")
		if err != nil {
			t.Fatal(err)
		}
		if rep.Registry.Valid || !strings.Contains(rep.Registry.Error, "unknown top-level keys: ['expert_demo_claims']") {
			t.Fatalf("registry %+v", rep.Registry)
		}
		wantRow(t, rep.Domains[0], ledger.StatusReasoningCapable, "reviewer registry invalid, so no claim is trusted: reviewer registry has unknown top-level keys")
		write(t, w.RegistryPath, string(registry))
		restored(t)
	})

	t.Run("lane version", func(t *testing.T) {
		path := w.CoursesDir + "/domains.yaml"
		raw, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		bumped := strings.Replace(string(raw), "lane: domain_qa\n        version: v1", "lane: domain_qa\n        version: v2", 1)
		if bumped == string(raw) {
			t.Fatal("domain_qa lane not found in domains.yaml")
		}
		write(t, path, bumped)
		wantRow(t, build(t, w), ledger.StatusReasoningCapable, `is of lane version "v1"; domains.yaml declares "v2"`)
		write(t, path, string(raw))
		restored(t)
	})

	// Last, since it moves the evidence for good: re-running a lane with
	// different outcomes is replay drift until the claim is re-signed.
	t.Run("new evidence", func(t *testing.T) {
		path := w.CoursesDir + "/" + ledgertest.Subject + "/questions/public.jsonl"
		raw, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSuffix(string(raw), "\n"), "\n")
		write(t, path, strings.Join(lines[:5], "\n")+"\n") // drop the off-domain question
		if _, err := eval.Execute(ctx, w.EvalEnv(t), ledgertest.Domain, eval.LaneDomainQA, "public"); err != nil {
			t.Fatal(err)
		}
		wantRow(t, build(t, w), ledger.StatusReasoningCapable, ledger.ReasonReplayDrift)
		w.WriteRegistry(t, w.Sign(t, "rev-2", claimLanes...))
		restored(t)
	})
}

func TestUnknownDomain(t *testing.T) {
	w := ledgertest.New(t)
	if _, err := ledger.Build(context.Background(), w.Sources(), "nope"); err == nil || !strings.Contains(err.Error(), "unknown domain") {
		t.Fatalf("err = %v", err)
	}
}

func TestEvidenceForRefusesBadEvidence(t *testing.T) {
	w := ledgertest.New(t)
	ctx := context.Background()
	cases := []struct {
		domain string
		lanes  []string
		want   string
	}{
		{ledgertest.Domain, []string{eval.LaneDomainQA}, "lane 'domain_qa' split 'public' has no results"},
		{ledgertest.Domain, []string{"made_up"}, "claim cites lanes not attached to domain 'thermo': ['made_up']"},
		{ledgertest.Domain, nil, "at least one lane"},
		{"nope", []string{eval.LaneDomainQA}, "unknown domain"},
	}
	for _, c := range cases {
		if _, err := ledger.EvidenceFor(ctx, w.Sources(), c.domain, "r", c.lanes); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: err = %v, want %q", c.lanes, err, c.want)
		}
	}
}

func write(t *testing.T, path, s string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}
