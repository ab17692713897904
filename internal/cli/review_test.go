package cli_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"formation/internal/cli"
	"formation/internal/testutil"
	"formation/reviewers"
	"formation/signing"
	"formation/store"
)

// teachEnv is a store, a knowledge file, the shipped packs and a reviewer
// registry whose one reviewer has the proposal scope.
type teachEnv struct {
	dir, store, vts, packs, key, registry string
	now                                   time.Time
}

func newTeachEnv(t *testing.T) *teachEnv {
	t.Helper()
	dir := t.TempDir()
	root, _ := testutil.ModuleRoot()
	e := &teachEnv{dir: dir, store: "file://" + filepath.Join(dir, "store"), vts: filepath.Join(dir, "lens.json"),
		packs: filepath.Join(root, "packs"), key: filepath.Join(dir, "curator.key"), registry: filepath.Join(dir, "reviewers.yaml"),
		now: time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)}
	if err := os.WriteFile(e.vts, []byte(lensVTS), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := store.Open(t.Context(), e.store); err != nil { // review reads an existing store
		t.Fatal(err)
	}
	if code, _, errs := e.run(t, "", "keygen", "--out", e.key); code != 0 {
		t.Fatal(errs)
	}
	sk, err := signing.LoadSigningKey(e.key)
	if err != nil {
		t.Fatal(err)
	}
	reg := fmt.Sprintf("schema_version: 2\nreviewers:\n  - reviewer_id: curator\n    display_name: Curator\n    role: primary\n    domains: [\"*\"]\n"+
		"    review_scope: [proposal]\n    provenance: test\n    public_key: %s\n", reviewers.EncodePublicKey(sk.Public))
	if err := os.WriteFile(e.registry, []byte(reg), 0o644); err != nil {
		t.Fatal(err)
	}
	return e
}

func (e *teachEnv) run(t *testing.T, stdin string, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	io := cli.IO{Stdin: strings.NewReader(stdin), Stdout: &out, Stderr: &errb, Now: func() time.Time { return e.now }}
	t.Setenv("CORE_ALLOW_UNRATIFIED_SAFETY", "")
	code := cli.Main(cli.NewApp(io), append([]string{"formation", "--store", e.store, "--packs-dir", e.packs}, args...))
	return code, out.String(), errb.String()
}

// chat prints the id of each proposal it records; review list and show
// read them back, with the coherence computed against reviewed knowledge.
func TestChatRecordsAndReviewLists(t *testing.T) {
	e := newTeachEnv(t)
	code, out, errs := e.run(t, "No, a lens produces heat.\nA lens produces an image.\n", "chat", "--knowledge", e.vts, "--session", "demo")
	if code != 0 || strings.Count(out, "  proposal ") != 1 || !strings.Contains(out, "teaching proposal") {
		t.Fatalf("chat: %d %s %s", code, out, errs)
	}
	code, out, _ = e.run(t, "", "--json", "review", "list")
	var list struct {
		Proposals []cli.ProposalSummary `json:"proposals"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &list) != nil || len(list.Proposals) != 1 {
		t.Fatalf("list: %d %s", code, out)
	}
	p := list.Proposals[0]
	if p.EpistemicStatus != "speculative" || p.Kind != "relation" || p.Claim != "lens produces heat" || p.SessionID != "demo" || p.Turn != 0 {
		t.Fatalf("summary %+v", p)
	}
	code, out, _ = e.run(t, "", "review", "show", p.ID)
	if code != 0 || !strings.Contains(out, "coherence with the reviewed knowledge: COHERENT") || !strings.Contains(out, `"No, a lens produces heat."`) {
		t.Fatalf("show: %s", out)
	}
	for _, bad := range [][]string{{"review", "show"}, {"review", "show", "xyz"}, {"review", "list", "extra"}} {
		if code, _, _ := e.run(t, "", bad...); code != 2 {
			t.Errorf("%v: exit %d, want 2", bad, code)
		}
	}
	if code, _, _ := e.run(t, "", "review", "show", strings.Repeat("f", 64)); code != 66 {
		t.Errorf("an unknown proposal: exit %d, want 66", code)
	}
	if code, _, _ := e.run(t, "", "chat", "--knowledge", e.vts, "--session", "../x"); code != 2 {
		t.Errorf("a bad --session: exit %d, want 2", code)
	}
}

// accept and reject check their reason and the registry before anything is
// written; prune drops the words of decided proposals only.
func TestReviewDecideAndPrune(t *testing.T) {
	e := newTeachEnv(t)
	if code, _, errs := e.run(t, "A lens produces heat.\nA lens produces glare.\n", "chat", "--knowledge", e.vts); code != 0 {
		t.Fatal(errs)
	}
	_, out, _ := e.run(t, "", "--json", "review", "list")
	var list struct {
		Proposals []cli.ProposalSummary `json:"proposals"`
	}
	json.Unmarshal([]byte(out), &list)
	if len(list.Proposals) != 2 {
		t.Fatalf("list %s", out)
	}
	heat, glare := list.Proposals[0].ID, list.Proposals[1].ID
	decide := func(verb, reason, id string, extra ...string) (int, string) {
		args := append([]string{"--json", "review", verb, "--registry", e.registry, "--key", e.key, "--reason", reason}, extra...)
		code, out, errs := e.run(t, "", append(args, id)...)
		return code, out + errs
	}
	for _, tc := range []struct {
		verb, reason string
		code         int
	}{{"accept", "other", 2}, {"accept", "duplicate", 2}, {"reject", "coheres", 2}} {
		if code, msg := decide(tc.verb, tc.reason, heat); code != tc.code {
			t.Errorf("%s --reason %s: exit %d, want %d: %s", tc.verb, tc.reason, code, tc.code, msg)
		}
	}
	if code, msg := decide("accept", "coheres", heat, "--registry", filepath.Join(e.dir, "missing.yaml")); code != 77 {
		t.Errorf("no registry: exit %d: %s", code, msg)
	}
	if code, msg := decide("accept", "coheres", heat); code != 0 || !strings.Contains(msg, `"epistemic_status":"coherent"`) {
		t.Fatalf("accept: %d %s", code, msg)
	}
	if code, msg := decide("reject", "not_a_claim", heat); code != 65 || !strings.Contains(msg, "proposal_already_decided") {
		t.Fatalf("second decision: %d %s", code, msg)
	}
	e.now = e.now.Add(48 * time.Hour)
	code, out, _ := e.run(t, "", "--json", "review", "prune", "--older-than", "1d")
	if code != 0 || out != fmt.Sprintf("{\"pruned\":[%q]}\n", heat) {
		t.Fatalf("prune: %d %s", code, out)
	}
	_, out, _ = e.run(t, "", "--json", "review", "show", heat)
	if !strings.Contains(out, `"words":""`) || !strings.Contains(out, `"signature_valid":true`) || !strings.Contains(out, `"verdict":"accepted"`) {
		t.Fatalf("pruned record: %s", out)
	}
	_, out, _ = e.run(t, "", "--json", "review", "show", glare)
	if !strings.Contains(out, `"words":"A lens produces glare."`) {
		t.Fatalf("an undecided proposal lost its words: %s", out)
	}
	if code, _, _ := e.run(t, "", "review", "prune", "--older-than", "soon"); code != 2 {
		t.Errorf("a bad duration: exit %d", code)
	}
}

// Only chat records: ask answers the same statement and records nothing.
func TestAskNeverRecords(t *testing.T) {
	e := newTeachEnv(t)
	code, out, errs := e.run(t, "", "--json", "ask", "--knowledge", e.vts, "A lens produces heat.")
	if code != 0 || strings.Contains(out, "teaching_proposal") || !strings.Contains(out, `"kind":"unknown_domain"`) {
		t.Fatalf("ask: %d %s %s", code, out, errs)
	}
	if _, out, _ := e.run(t, "", "--json", "review", "list"); out != "{\"proposals\":[]}\n" {
		t.Fatalf("ask recorded a proposal: %s", out)
	}
}
