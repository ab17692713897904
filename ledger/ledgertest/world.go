// Package ledgertest builds, for tests, a complete small world the ledger
// can judge: a store holding one course promoted through the real promote
// path, a courses folder declaring the domain with its question sets,
// curator and reviewer keys, and helpers to run the lanes and sign claims.
// Everything lives in the test's temporary folders; keys are generated per
// test and never written anywhere else.
package ledgertest

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"formation/artifact"
	"formation/audit"
	"formation/compose"
	"formation/eval"
	"formation/internal/testutil"
	"formation/ledger"
	"formation/packs"
	"formation/promote"
	"formation/reviewed"
	"formation/reviewers"
	"formation/runtime"
	"formation/runtime/knowledge"
	"formation/signing"
	"formation/store"
	"formation/store/filestore"
)

// Names in the world.
const (
	Domain   = "thermo"
	Subject  = "heat"
	Reviewer = "demo-reviewer"
)

// Lanes are the lanes the domain declares.
var Lanes = []string{eval.LaneFabricationControl, eval.LaneInferenceClosure, eval.LaneCognition, eval.LaneDomainQA}

// Now is the world's clock.
var Now = time.Date(2026, 5, 22, 12, 0, 0, 0, time.UTC)

// World is one test's world.
type World struct {
	Dir             string
	StoreDir        string
	Store           store.Store
	CoursesDir      string
	TrustedPath     string // the curator's FILE.pub: a trusted-keys file
	Trusted         signing.TrustedKeys
	ReviewerKeyPath string // written by promote.WriteKeyFiles, as `formation keygen` does
	ReviewerPublic  ed25519.PublicKey
	RegistryPath    string
	ReportObject    string // object digest of the promoted course's mastery report
}

// New builds the world with its course promoted.
func New(t testing.TB) *World {
	t.Helper()
	dir := t.TempDir()
	w := &World{Dir: dir, StoreDir: filepath.Join(dir, "store"), CoursesDir: filepath.Join(dir, "courses"),
		RegistryPath: filepath.Join(dir, "reviewers.yaml")}
	fs, err := filestore.Open(w.StoreDir)
	if err != nil {
		t.Fatal(err)
	}
	w.Store = fs
	w.writeCourses(t)
	curator := w.key(t, "curator.key", "curator")
	w.TrustedPath = filepath.Join(dir, "curator.key.pub")
	if w.Trusted, err = signing.LoadTrustedKeys(w.TrustedPath); err != nil {
		t.Fatal(err)
	}
	reviewer := w.key(t, "reviewer.key", Reviewer)
	w.ReviewerKeyPath, w.ReviewerPublic = filepath.Join(dir, "reviewer.key"), reviewer.Public
	w.promote(t, curator)
	return w
}

func (w *World) key(t testing.TB, name, label string) signing.SigningKey {
	t.Helper()
	k, err := signing.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	if err := signing.WriteKeyFiles(filepath.Join(w.Dir, name), k, label); err != nil {
		t.Fatal(err)
	}
	return k
}

// Sources is where the ledger reads this world.
func (w *World) Sources() ledger.Sources {
	tr := w.Trusted
	return ledger.Sources{Store: w.Store, CoursesDir: w.CoursesDir, RegistryPath: w.RegistryPath, Trusted: &tr}
}

// EvalEnv runs lanes over the shipped packs.
func (w *World) EvalEnv(t testing.TB) eval.Env {
	t.Helper()
	safety, manifold := Packs(t)
	tr := w.Trusted
	return eval.Env{Store: w.Store, CoursesDir: w.CoursesDir, Trusted: &tr, Now: func() time.Time { return Now }, CodeVersion: "test",
		NewRuntime: func(k *knowledge.Knowledge) (*runtime.Runtime, error) {
			return runtime.New(runtime.Config{Knowledge: k, Safety: safety, Manifold: manifold})
		}}
}

// Packs loads the shipped ratified safety pack and default identity pack.
func Packs(t testing.TB) (*packs.SafetyPack, *packs.Manifold) {
	t.Helper()
	ctx := context.Background()
	safety, err := packs.LoadSafetyPack(ctx, packs.DefaultSafetyPackID, packs.LoadOptions{
		SearchPaths: []string{testutil.ShippedPacks(t, packs.SafetyDir)}})
	if err != nil {
		t.Fatal(err)
	}
	id, err := packs.LoadIdentityPack(ctx, packs.DefaultIdentityPackID, packs.LoadOptions{
		SearchPaths: []string{testutil.ShippedPacks(t, packs.IdentityDir)}})
	if err != nil {
		t.Fatal(err)
	}
	m, err := packs.Compose(id, safety)
	if err != nil {
		t.Fatal(err)
	}
	return safety, m
}

// RunLanes runs every declared lane over the given splits and stores the
// results, failing the test if a lane does not pass.
func (w *World) RunLanes(t testing.TB, splits ...string) {
	t.Helper()
	env := w.EvalEnv(t)
	for _, lane := range Lanes {
		for _, split := range splits {
			out, err := eval.Execute(context.Background(), env, Domain, lane, split)
			if err != nil {
				t.Fatalf("%s/%s: %v", lane, split, err)
			}
			if !out.Result.Pass {
				t.Fatalf("%s/%s failed: %s", lane, split, out.Result.Reason)
			}
		}
	}
}

// Sign makes the reviewer's claim over the lanes' current evidence.
func (w *World) Sign(t testing.TB, revision string, lanes ...string) reviewers.Claim {
	t.Helper()
	digest, err := ledger.EvidenceFor(context.Background(), w.Sources(), Domain, revision, lanes)
	if err != nil {
		t.Fatal(err)
	}
	key, err := reviewers.LoadPrivateKey(w.ReviewerKeyPath)
	if err != nil {
		t.Fatal(err)
	}
	c, err := reviewers.SignClaim(reviewers.Claim{DomainID: Domain, EvidenceLanes: lanes, EvidenceRevision: revision,
		SignedBy: Reviewer, ClaimDigest: digest}, key)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// WriteRegistry writes a schema 2 registry with the reviewer and claims.
func (w *World) WriteRegistry(t testing.TB, claims ...reviewers.Claim) {
	t.Helper()
	src, err := reviewers.Render(reviewers.SchemaV2, []reviewers.Reviewer{{ID: Reviewer, DisplayName: "Demo Reviewer",
		Role: reviewers.RolePrimary, Domains: []string{reviewers.Wildcard},
		ReviewScope: []string{reviewers.ScopePack, reviewers.ScopeEval}, Provenance: "ledgertest", PublicKey: w.ReviewerPublic}}, claims)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(w.RegistryPath, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
}

// ObjectPath is where the file store keeps an object.
func (w *World) ObjectPath(digest string) string {
	return filepath.Join(w.StoreDir, "objects", "sha256", digest[:2], digest)
}

// FlipByte changes one byte of a stored object and returns a function that
// restores it.
func (w *World) FlipByte(t testing.TB, digest string) (restore func()) {
	t.Helper()
	path := w.ObjectPath(digest)
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, 0o644); err != nil { // objects are stored read-only
		t.Fatal(err)
	}
	bad := append([]byte(nil), raw...)
	bad[len(bad)/2] ^= 0x01
	if err := os.WriteFile(path, bad, 0o644); err != nil {
		t.Fatal(err)
	}
	return func() {
		if err := os.WriteFile(path, raw, 0o444); err != nil {
			t.Fatal(err)
		}
	}
}

// knowledgeSet is the subject's validated knowledge: causal chains, single
// causal edges, a definition for every term and three counter-claims.
func knowledgeSet() artifact.ValidatedTripleSet {
	src := artifact.SourceRef{SourceSHA: strings.Repeat("a", 64), Span: "notes on heat", Adapter: "file", RetrievedAt: "2026-05-16T00:00:00Z"}
	edges := [][2]string{
		{"heat", "expansion"}, {"expansion", "stress"}, {"stress", "fracture"},
		{"pressure", "compression"}, {"compression", "density"},
		{"current", "warming"}, {"warming", "melting"},
		{"wind", "erosion"}, {"rain", "flooding"}, {"drought", "famine"}, {"spark", "fire"},
		{"smoke", "coughing"}, {"noise", "fatigue"}, {"vibration", "wear"}, {"salt", "corrosion"},
	}
	v := artifact.ValidatedTripleSet{SubjectID: Subject, OrderingHints: []artifact.OrderingHint{},
		Quarantined: []artifact.RelationCandidate{}, SchemaVersion: artifact.SchemaVersion}
	seen := map[string]bool{}
	for _, e := range edges {
		v.Relations = append(v.Relations, artifact.RelationCandidate{Head: e[0], Relation: "causes", Tail: e[1],
			Sources: []artifact.SourceRef{src}, State: artifact.StateValidated})
		for _, term := range e {
			if !seen[term] {
				seen[term] = true
				v.Concepts = append(v.Concepts, artifact.ConceptCandidate{CanonicalTerm: term, Definition: Definition(term),
					Sources: []artifact.SourceRef{src}, State: artifact.StateValidated})
			}
		}
	}
	for _, c := range [][2]string{{"cold", "expansion"}, {"ice", "fire"}, {"water", "fire"}} {
		v.Counters = append(v.Counters, artifact.RelationCandidate{Head: c[0], Relation: "causes", Tail: c[1],
			Sources: []artifact.SourceRef{src}, State: artifact.StateValidated})
	}
	return v
}

// Definition is the definition the world gives a term.
func Definition(term string) string { return "the thermal notion called " + term }

func (w *World) promote(t testing.TB, curator signing.SigningKey) {
	t.Helper()
	ctx := context.Background()
	vts := knowledgeSet()
	spec := artifact.SubjectSpec{SubjectID: Subject, Title: "Heat and its effects", TargetDepth: "introductory",
		RequiresCourses: []string{}, AntiRequisites: []string{}, IdentityAxisConstraints: []string{}, SchemaVersion: artifact.SchemaVersion}
	course, yamlBytes, err := compose.Compose(vts, spec, strings.Repeat("b", 64), "definition", "1.0.0")
	if err != nil {
		t.Fatal(err)
	}
	mustPut(t, w.Store, yamlBytes, course.CourseSHA256)
	body, err := artifact.Encode(vts)
	if err != nil {
		t.Fatal(err)
	}
	vtsDigest := mustPut(t, w.Store, body, "")
	if _, err := reviewed.RecordValidatedSet(ctx, w.Store, vtsDigest); err != nil {
		t.Fatal(err)
	}
	report, err := artifact.MasteryReport{SchemaVersion: artifact.SchemaVersion, CourseID: course.CourseID,
		SourceBundleSHA: course.SourceBundleSHA, ValidatedSetSHA: course.ValidatedSetSHA, CourseSHA256: course.CourseSHA256,
		PlanSHA256: strings.Repeat("c", 64), Gates: []artifact.GateMeasurement{}, TraceHashes: []string{}, Ratified: true,
		IssuedAt: "2026-05-20T00:00:00Z", FailureReasons: []string{}}.Sealed()
	if err != nil {
		t.Fatal(err)
	}
	rb, err := artifact.Encode(report)
	if err != nil {
		t.Fatal(err)
	}
	reportObj := mustPut(t, w.Store, rb, "")
	w.ReportObject = reportObj
	p := &promote.Promoter{Store: w.Store, Audit: &audit.Writer{Store: w.Store, Now: func() time.Time { return Now }, CodeVersion: "test"}}
	if _, err := p.Promote(ctx, promote.Request{Report: reportObj, Key: curator, Trusted: curator.Trusted()}); err != nil {
		t.Fatalf("promote: %v", err)
	}
}

func mustPut(t testing.TB, s store.Store, body []byte, want string) string {
	t.Helper()
	d, err := s.Put(context.Background(), body)
	if err != nil {
		t.Fatal(err)
	}
	if want != "" && d != want {
		t.Fatalf("stored digest %s, want %s", d, want)
	}
	return d
}

// writeCourses writes domains.yaml, the subject file and three question sets.
func (w *World) writeCourses(t testing.TB) {
	t.Helper()
	subj := filepath.Join(w.CoursesDir, Subject)
	must(t, os.MkdirAll(filepath.Join(subj, "questions"), 0o755))
	var lanes strings.Builder
	for _, l := range Lanes {
		fmt.Fprintf(&lanes, "      - lane: %s\n        version: v1\n        splits: [public, holdout, dev]\n", l)
	}
	must(t, os.WriteFile(filepath.Join(w.CoursesDir, "domains.yaml"), []byte(`schema_version: "1.0.0"
domains:
  - id: `+Domain+`
    title: Heat and its effects
    subjects: [`+Subject+`]
    operator_families:
      - family: causal
        relations: [causes]
    eval_lanes:
`+lanes.String()), 0o644))
	must(t, os.WriteFile(filepath.Join(subj, "subject.yaml"), []byte(`subject_id: heat
title: Heat and its effects
target_depth: introductory
requires_courses: []
anti_requisites: []
identity_axis_constraints: []
template: definition
retrieved_at: 2026-05-16T00:00:00Z
sources:
  - id: notes
    adapter: file
    path: sources/notes.md
`), 0o644))
	for split, qs := range map[string][6]string{
		"public":  {"heat", "expansion", "stress", "plasma", "cold", "a sonnet"},
		"holdout": {"pressure", "compression", "density", "entropy", "ice", "a haiku"},
		"dev":     {"current", "warming", "melting", "a quark", "water", "the cup final"},
	} {
		must(t, os.WriteFile(filepath.Join(subj, "questions", split+".jsonl"), []byte(questionLines(split, qs)), 0o644))
	}
}

// questionLines writes one question of each kind: a definition of a, the
// relation a→b, the walk a→b→c, an unknown term, a false premise (the
// counter-claim "<x> causes <b or fire>") and an off-domain question.
func questionLines(split string, q [6]string) string {
	a, b, c := q[0], q[1], q[2]
	tail := b
	if q[4] != "cold" {
		tail = "fire"
	}
	lines := []string{
		fmt.Sprintf(`{"id":"%s-def","question":"What is %s?","kind":"definition","expect":{"term":"%s","definition":"%s"}}`, split, a, a, Definition(a)),
		fmt.Sprintf(`{"id":"%s-rel","question":"%s causes %s.","kind":"relation","expect":{"head":"%s","relation":"causes","tail":"%s"}}`, split, a, b, a, b),
		fmt.Sprintf(`{"id":"%s-walk","question":"What does %s cause?","kind":"walk","expect":{"chain":[{"head":"%s","relation":"causes","tail":"%s"},{"head":"%s","relation":"causes","tail":"%s"}]}}`, split, a, a, b, b, c),
		fmt.Sprintf(`{"id":"%s-unknown","question":"What is %s?","kind":"unknown","expect":{"refuse":true}}`, split, q[3]),
		fmt.Sprintf(`{"id":"%s-premise","question":"%s causes %s.","kind":"false_premise","expect":{"refuse":true,"counter":{"head":"%s","relation":"causes","tail":"%s"}}}`, split, q[4], tail, q[4], tail),
		fmt.Sprintf(`{"id":"%s-off","question":"What is %s?","kind":"off_domain","expect":{"refuse":true}}`, split, q[5]),
	}
	return strings.Join(lines, "\n") + "\n"
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
