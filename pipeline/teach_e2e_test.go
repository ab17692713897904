package pipeline_test

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"formation/internal/cli"
	"formation/internal/testutil"
	"formation/packs"
	"formation/reviewed"
	"formation/reviewers"
	"formation/runtime"
	"formation/runtime/knowledge"
	"formation/signing"
	"formation/teaching/queue"
)

// teachScript is a chat session over the promoted micro course: ten
// statements the knowledge does not confirm (relations with known and
// unknown terms, two that reviewed claims contradict, a definition), three
// it confirms, and a question that rests on the first proposal.
var teachScript = []struct {
	line    string
	propose bool
}{
	{"What is wisdom?", false},
	{"No, wisdom produces experience.", true}, // 1: accepted below
	{"Wisdom is judgment.", false},
	{"Actually, experience produces judgment.", true},
	{"Number grounds measure.", true},              // 4: accepted below
	{"In fact, wisdom is folly.", true},            // 5: a reviewed counter-claim denies it
	{"Judgment does not follow experience.", true}, // 6: denies a reviewed triple
	{"Quantity produces number.", true},            // 7: accepted below
	{"Number produces quantity.", false},
	{"Patience grounds wisdom.", true},
	{"Prudence means careful judgment.", true},
	{"Rather, measure follows number.", true},
	{"Experience grounds wisdom.", false},
	{"Experience grounds patience.", true},
	{"What does wisdom produce?", false}, // 14: rests on proposal 1
}

const usingTurn = 14

// runCLIWith runs `formation` in process with stdin.
func runCLIWith(t *testing.T, f fixture, stdin string, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	io := cli.IO{Stdin: strings.NewReader(stdin), Stdout: &out, Stderr: &errb, Now: func() time.Time { return time.Date(2026, 5, 17, 0, 0, 0, 0, time.UTC) }}
	full := append([]string{"formation", "--store", "file://" + f.storeDir, "--packs-dir", f.p.Packs.Dir, "--courses-dir", f.p.CoursesDir}, args...)
	return cli.Main(cli.NewApp(io), full), out.String(), errb.String()
}

func chatScript(t *testing.T, f fixture) []runtime.ChatResponse {
	t.Helper()
	var in strings.Builder
	for _, s := range teachScript {
		in.WriteString(s.line + "\n")
	}
	code, out, errs := runCLIWith(t, f, in.String(), "--json", "chat")
	if code != 0 {
		t.Fatalf("chat: exit %d: %s", code, errs)
	}
	var rs []runtime.ChatResponse
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var r runtime.ChatResponse
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatal(err)
		}
		rs = append(rs, r)
	}
	if len(rs) != len(teachScript) {
		t.Fatalf("%d responses for %d lines", len(rs), len(teachScript))
	}
	return rs
}

// frozen digests what teaching must never change: every ref outside
// proposals/ and audit/ (the reviewed state, subjects, caches, indexes)
// with its value, the packs folder byte for byte, and the identity
// manifold's hash as loaded.
func frozen(t *testing.T, f fixture) string {
	t.Helper()
	ctx := context.Background()
	h := sha256.New()
	names, err := f.p.Env.Store.ListRefs(ctx, "")
	must(t, err)
	for _, n := range names {
		if strings.HasPrefix(n, queue.Prefix) || strings.HasPrefix(n, "audit/") {
			continue
		}
		v, _, err := f.p.Env.Store.GetRef(ctx, n)
		must(t, err)
		fmt.Fprintf(h, "%s %x\n", n, sha256.Sum256(v))
	}
	must(t, filepath.WalkDir(f.p.Packs.Dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		fmt.Fprintf(h, "%s %x\n", path, sha256.Sum256(b))
		return err
	}))
	loaded, err := packs.Load(ctx, packs.Options{Dir: f.p.Packs.Dir})
	must(t, err)
	fmt.Fprintf(h, "manifold %s\n", loaded.Manifold.Hash())
	return fmt.Sprintf("%x", h.Sum(nil))
}

// promotedMicro is a store where the micro course is promoted (shipped
// packs, production mode), and the curator key that promoted it.
func promotedMicro(t *testing.T) (fixture, string) {
	t.Helper()
	f := newFixture(t, microCourse())
	f.p.Packs.Dir = shippedPacksDir(t)
	curator := filepath.Join(t.TempDir(), "promoter.key")
	if code, _, errs := runCLIWith(t, f, "", "keygen", "--out", curator); code != 0 {
		t.Fatal(errs)
	}
	if code, _, errs := runCLIWith(t, f, "", "--trusted-keys", curator+".pub", "promote", "--key", curator, ratified(t, f)); code != 0 {
		t.Fatalf("promote micro: %s", errs)
	}
	return f, curator
}

// writeTaught lays out the subject "taught", whose one source is the
// accepted proposals and whose allow-list is empty.
func writeTaught(t *testing.T, f fixture) {
	t.Helper()
	taught := filepath.Join(f.p.CoursesDir, "taught")
	must(t, os.MkdirAll(taught, 0o755))
	must(t, os.WriteFile(filepath.Join(taught, "subject.yaml"), []byte(`subject_id: taught
title: What curators accepted
template: definition
retrieved_at: "2026-05-17T00:00:00Z"
issued_at: "2026-05-17T00:00:00Z"
sources:
  - id: accepted
    adapter: proposals
    citation: Accepted teaching proposals
`), 0o644))
	must(t, os.WriteFile(filepath.Join(taught, "allowlist.yaml"), []byte("[]\n"), 0o644))
}

type reviewKeys struct{ curator, packer, stranger, registry string }

// reviewerSetup writes three keys and a schema 2 registry in which only
// the curator has the proposal scope.
func reviewerSetup(t *testing.T, f fixture) reviewKeys {
	t.Helper()
	dir := t.TempDir()
	k := reviewKeys{filepath.Join(dir, "curator.key"), filepath.Join(dir, "packer.key"), filepath.Join(dir, "stranger.key"), filepath.Join(dir, "reviewers.yaml")}
	for _, p := range []string{k.curator, k.packer, k.stranger} {
		if code, _, errs := runCLIWith(t, f, "", "keygen", "--out", p); code != 0 {
			t.Fatalf("keygen: %s", errs)
		}
	}
	entry := func(id, keyFile, scope string) string {
		sk, err := signing.LoadSigningKey(keyFile)
		must(t, err)
		return fmt.Sprintf("  - reviewer_id: %s\n    display_name: %s\n    role: primary\n    domains: [\"*\"]\n    review_scope: [%s]\n    provenance: test\n    public_key: %s\n",
			id, id, scope, reviewers.EncodePublicKey(sk.Public))
	}
	must(t, os.WriteFile(k.registry, []byte("schema_version: 2\nreviewers:\n"+entry("curator", k.curator, "proposal")+entry("packer", k.packer, "pack, eval")), 0o644))
	return k
}

func reviewCLI(t *testing.T, f fixture, keys reviewKeys, verb, key, reason, id string) (int, string) {
	t.Helper()
	code, out, errs := runCLIWith(t, f, "", "review", verb, "--registry", keys.registry, "--key", key, "--reason", reason, id)
	return code, out + errs
}

// The whole loop, measured: a chat session records exactly the statements
// the knowledge does not confirm and changes nothing else; a replay gives
// the same hashes and proposals, until a review changes the hash of the
// turn that rested on the reviewed proposal; three accepted proposals go
// through autorun and promote like any source, and ask answers them, citing
// each proposal, and none of the seven others. A contested proposal is not
// accepted as coherent, and a key without the proposal scope decides
// nothing (77).
func TestTeachingLoopEndToEnd(t *testing.T) {
	ctx := context.Background()
	f, curator := promotedMicro(t)
	before := frozen(t, f)

	first := chatScript(t, f)
	var proposed []string
	for i, r := range first {
		if teachScript[i].propose != (r.TeachingProposal != "") {
			t.Fatalf("turn %d %q: proposal %q: %s", i, teachScript[i].line, r.TeachingProposal, r.Surface)
		}
		if r.TeachingProposal != "" {
			proposed = append(proposed, r.TeachingProposal)
		}
	}
	code, out, _ := runCLIWith(t, f, "", "--json", "review", "list")
	var list struct {
		Proposals []struct {
			ID              string `json:"id"`
			EpistemicStatus string `json:"epistemic_status"`
		} `json:"proposals"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &list) != nil || len(list.Proposals) != 10 {
		t.Fatalf("review list: %d %s", code, out)
	}
	for _, p := range list.Proposals {
		if !slices.Contains(proposed, p.ID) || p.EpistemicStatus != "speculative" {
			t.Fatalf("listed %+v", p)
		}
	}
	if after := frozen(t, f); after != before {
		t.Fatal("the chat session changed reviewed knowledge, a ref, a pack or the manifold")
	}

	replay := chatScript(t, f)
	for i := range first {
		if replay[i].TraceHash != first[i].TraceHash || replay[i].TeachingProposal != first[i].TeachingProposal {
			t.Fatalf("the replay differs at turn %d", i)
		}
	}
	if first[usingTurn].TeachingEpistemicStatus != "speculative" || !strings.Contains(first[usingTurn].Surface, "experience") {
		t.Fatalf("turn %d does not rest on the proposal: %+v", usingTurn, first[usingTurn])
	}

	keys := reviewerSetup(t, f)
	accepted := []string{first[1].TeachingProposal, first[4].TeachingProposal, first[7].TeachingProposal}
	if code, msg := reviewCLI(t, f, keys, "accept", keys.curator, "coheres", accepted[0]); code != 0 {
		t.Fatalf("accept: %d %s", code, msg)
	}
	reviewedReplay := chatScript(t, f)
	for i := range first {
		if changed := reviewedReplay[i].TraceHash != first[i].TraceHash; changed != (i == usingTurn) {
			t.Fatalf("after the review, turn %d changed=%v", i, changed)
		}
	}
	for _, id := range accepted[1:] {
		if code, msg := reviewCLI(t, f, keys, "accept", keys.curator, "coheres", id); code != 0 {
			t.Fatalf("accept: %d %s", code, msg)
		}
	}
	if code, msg := reviewCLI(t, f, keys, "accept", keys.curator, "coheres", first[5].TeachingProposal); code != 65 || !strings.Contains(msg, "incoherent_accept") {
		t.Fatalf("a contested proposal accepted as coherent: %d %s", code, msg)
	}
	code, out, _ = runCLIWith(t, f, "", "--json", "review", "show", first[6].TeachingProposal)
	if code != 0 || !strings.Contains(out, `"epistemic_status":"contested"`) || !strings.Contains(out, "judgment follows experience") {
		t.Fatalf("show of a counter-claim denying a reviewed triple: %s", out)
	}
	for _, key := range []string{keys.packer, keys.stranger} {
		if code, msg := reviewCLI(t, f, keys, "accept", key, "coheres", first[3].TeachingProposal); code != 77 || !strings.Contains(msg, "reviewer_not_authorized") {
			t.Fatalf("a key without the proposal scope: %d %s", code, msg)
		}
	}
	if after := frozen(t, f); after != before {
		t.Fatal("reviewing changed reviewed knowledge, a ref, a pack or the manifold")
	}

	writeTaught(t, f)
	if code, out, errs := runCLIWith(t, f, "", "autorun", "taught"); code != 0 {
		t.Fatalf("autorun taught: %d %s %s", code, out, errs)
	}
	d, err := f.p.Env.ResolveRef(ctx, "taught", "ratify")
	must(t, err)
	if code, _, errs := runCLIWith(t, f, "", "--trusted-keys", curator+".pub", "promote", "--key", curator, d); code != 0 {
		t.Fatalf("promote taught: %s", errs)
	}
	for q, want := range map[string]int{"What does wisdom produce?": 0, "What does number ground?": 1, "What does quantity produce?": 2} {
		code, out, _ := runCLIWith(t, f, "", "--json", "ask", q)
		tail := map[int]string{0: "experience", 1: "measure", 2: "number"}[want]
		if code != 0 || !strings.Contains(out, tail) || !strings.Contains(out, accepted[want]) {
			t.Fatalf("ask %q does not answer the accepted fact citing its proposal: %s", q, out)
		}
	}
	snap, err := reviewed.Load(ctx, f.p.Env.Store)
	must(t, err)
	k, err := snap.Knowledge.Index()
	must(t, err)
	for _, id := range proposed {
		for _, c := range citedBy(k.Triples(), k.Counters(), id) {
			if !slices.Contains(accepted, id) {
				t.Fatalf("proposal %s was never accepted, yet knowledge holds %s", id, c)
			}
		}
	}
	for _, q := range []string{"Does experience produce judgment?", "Does measure follow number?", "What does patience ground?", "What is prudence?"} {
		code, out, _ := runCLIWith(t, f, "", "--json", "ask", q)
		if code != 0 || strings.Contains(out, `"kind":"relation_confirmation"`) || strings.Contains(out, `"kind":"transitive_walk"`) ||
			strings.Contains(out, "careful judgment") {
			t.Fatalf("ask %q answered a proposal nobody accepted: %s", q, out)
		}
	}
}

func citedBy(triples, counters []knowledge.Triple, id string) []string {
	var out []string
	for _, t := range append(triples, counters...) {
		for _, s := range t.Sources {
			if s.SourceSHA == id {
				out = append(out, t.Head+" "+t.Relation+" "+t.Tail)
			}
		}
	}
	return out
}

// adversarialPhrasings reads the adversarial lines of the shared
// identity-override suite (testdata/adversarial), or skips.
func adversarialPhrasings(t *testing.T) []string {
	t.Helper()
	root, err := testutil.ModuleRoot()
	must(t, err)
	var out []string
	for _, name := range []string{"suite.jsonl", "heldout.jsonl"} {
		raw, err := os.ReadFile(filepath.Join(root, "testdata", "adversarial", name))
		if os.IsNotExist(err) {
			continue
		}
		must(t, err)
		for _, line := range strings.Split(strings.TrimSpace(string(raw)), "\n") {
			var l struct{ Label, Text string }
			must(t, json.Unmarshal([]byte(line), &l))
			if l.Label == "adversarial" {
				out = append(out, l.Text)
			}
		}
	}
	if len(out) == 0 {
		t.Skip("testdata/adversarial (the shared identity-override suite) is not in this tree yet")
	}
	return out
}

// The shared adversarial suite, sent as corrections in chat, changes no
// reviewed state, ref, pack or manifold hash; whatever it records is a
// proposal and nothing more.
func TestAdversarialCorrectionsChangeNothing(t *testing.T) {
	phrasings := adversarialPhrasings(t)
	f, _ := promotedMicro(t)
	before := frozen(t, f)
	var in strings.Builder
	for _, p := range phrasings {
		for _, marker := range []string{"No, ", "Actually, ", "In fact, ", ""} {
			in.WriteString(marker + p + "\n")
		}
	}
	code, out, errs := runCLIWith(t, f, in.String(), "--json", "chat", "--session", "adversary")
	if code != 0 {
		t.Fatalf("chat: %d %s", code, errs)
	}
	if after := frozen(t, f); after != before {
		t.Fatal("adversarial corrections changed reviewed knowledge, a ref, a pack or the manifold")
	}
	lines := strings.Count(out, "\n")
	recorded := strings.Count(out, `"teaching_proposal":"`)
	t.Logf("%d adversarial phrasings, %d turns, %d recorded as proposals, %d refused as identity overrides",
		len(phrasings), lines, recorded, strings.Count(out, `"refusal_reason":"identity_override"`))
	if lines != 4*len(phrasings) {
		t.Fatalf("%d responses", lines)
	}
}

// An accepted proposal whose sentence the smelter reads as another claim,
// or as none ("wisdom produces no folly." is a negated sentence, which never
// yields a positive candidate), halts forge (65, proposal_unextractable,
// with an audit record): nothing but what the curator accepted reaches
// knowledge.
func TestUnextractableProposalHaltsForge(t *testing.T) {
	f, _ := promotedMicro(t)
	code, out, errs := runCLIWith(t, f, "Wisdom produces no folly.\n", "--json", "chat")
	var r runtime.ChatResponse
	if code != 0 || json.Unmarshal([]byte(out), &r) != nil || r.TeachingProposal == "" {
		t.Fatalf("chat: %d %s %s", code, out, errs)
	}
	keys := reviewerSetup(t, f)
	if code, msg := reviewCLI(t, f, keys, "accept", keys.curator, "coheres", r.TeachingProposal); code != 0 {
		t.Fatalf("accept: %s", msg)
	}
	writeTaught(t, f)
	code, _, errs = runCLIWith(t, f, "", "autorun", "taught")
	if code != 65 || !strings.Contains(errs, "proposal_unextractable") {
		t.Fatalf("autorun: %d %s", code, errs)
	}
	code, out, _ = runCLIWith(t, f, "", "--json", "audit", "list", "--subject", "taught")
	if code != 0 || !strings.Contains(out, "proposal_unextractable") {
		t.Fatalf("no audit record: %s", out)
	}
}
