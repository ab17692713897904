package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"formation/eval"
	"formation/internal/testutil"
	"formation/ledger"
	"formation/ledger/ledgertest"
)

// runLedgerCLI runs `formation args...` and returns exit code, stdout and
// stderr.
func runLedgerCLI(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	io := IO{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb, Now: func() time.Time { return ledgertest.Now }}
	code := Main(NewApp(io), append([]string{"formation"}, args...))
	return code, out.String(), errb.String()
}

// cliWorld is a ledgertest world driven through the command line.
type cliWorld struct {
	*ledgertest.World
	global []string
}

func newCLIWorld(t *testing.T) cliWorld {
	w := ledgertest.New(t)
	return cliWorld{w, []string{"--store", "file://" + w.StoreDir, "--courses-dir", w.CoursesDir,
		"--trusted-keys", w.TrustedPath, "--packs-dir", testutil.ShippedPacks(t)}}
}

func (w cliWorld) run(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	return runLedgerCLI(t, append(append([]string{}, w.global...), args...)...)
}

var cliClaimLanes = "fabrication_control,inference_closure,domain_qa"

// promoteToAuditPassed runs the lanes, writes a registry and signs a claim,
// all through the commands.
func (w cliWorld) promoteToAuditPassed(t *testing.T) {
	t.Helper()
	for _, lane := range ledgertest.Lanes {
		for _, split := range []string{"public", "holdout"} {
			if code, out, errs := w.run(t, "eval", "--domain", ledgertest.Domain, "--split", split, lane); code != 0 {
				t.Fatalf("eval %s %s: exit %d\n%s%s", lane, split, code, out, errs)
			}
		}
	}
	if code, _, errs := w.run(t, "reviewers", "init", "--out", w.RegistryPath, "--id", ledgertest.Reviewer,
		"--name", "Demo Reviewer", "--public-key", w.ReviewerKeyPath+".pub"); code != 0 {
		t.Fatalf("reviewers init: %d %s", code, errs)
	}
	code, block, errs := w.run(t, "claim", "sign", "--domain", ledgertest.Domain, "--lanes", cliClaimLanes, "--revision", "demo:rev-1",
		"--key", w.ReviewerKeyPath, "--signer", ledgertest.Reviewer, "--registry", w.RegistryPath)
	if code != 0 {
		t.Fatalf("claim sign: %d %s", code, errs)
	}
	appendFile(t, w.RegistryPath, "audit_passed_claims:\n"+block)
	if code, out, _ := w.run(t, "reviewers", "check", w.RegistryPath); code != 0 || !strings.Contains(out, "signature verifies") {
		t.Fatalf("reviewers check: %d %s", code, out)
	}
}

func (w cliWorld) ledgerJSON(t *testing.T, wantCode int) ledger.Report {
	t.Helper()
	code, out, errs := w.run(t, "--json", "ledger", "--registry", w.RegistryPath)
	if code != wantCode {
		t.Fatalf("ledger: exit %d, want %d\n%s", code, wantCode, errs)
	}
	return strictLedger(t, []byte(out))
}

// Through the commands: lanes, registry, claim, audit-passed; then a broken
// or missing registry and a changed signature each still print every row,
// below audit-passed and naming why, and exit 77; restoring restores.
func TestLedgerCommandEndToEnd(t *testing.T) {
	w := newCLIWorld(t)
	w.promoteToAuditPassed(t)
	rep := w.ledgerJSON(t, 0)
	row := rep.Domains[0]
	if row.Status != ledger.StatusAuditPassed || row.AuditPassedReason != ledger.ReasonPassed {
		t.Fatalf("row %s: %s", row.Status, row.AuditPassedReason)
	}
	for _, e := range row.Evidence {
		if e.Lane == eval.LaneFabricationControl && e.Split == "holdout" && !e.Pass {
			t.Fatal("fabrication_control holdout does not pass")
		}
	}
	code, out, _ := w.run(t, "ledger", "--registry", w.RegistryPath, "--domain", ledgertest.Domain)
	if code != 0 || !strings.Contains(out, ledgertest.Domain) || !strings.Contains(out, "audit-passed") {
		t.Fatalf("table: %d\n%s", code, out)
	}
	raw, err := os.ReadFile(w.RegistryPath)
	if err != nil {
		t.Fatal(err)
	}

	t.Run("broken registry", func(t *testing.T) {
		appendFile(t, w.RegistryPath, "expert_demo_claims: []\n")
		rep := w.ledgerJSON(t, 77)
		if rep.Registry.Valid || rep.Domains[0].Status != ledger.StatusReasoningCapable ||
			!strings.Contains(rep.Domains[0].AuditPassedReason, "unknown top-level keys: ['expert_demo_claims']") {
			t.Fatalf("registry %+v row %s %q", rep.Registry, rep.Domains[0].Status, rep.Domains[0].AuditPassedReason)
		}
		if code, _, _ := w.run(t, "reviewers", "check", w.RegistryPath); code != 77 {
			t.Fatalf("reviewers check of a broken registry: exit %d", code)
		}
		writeFile(t, w.RegistryPath, string(raw))
		w.ledgerJSON(t, 0)
	})

	t.Run("missing registry", func(t *testing.T) {
		if err := os.Remove(w.RegistryPath); err != nil {
			t.Fatal(err)
		}
		rep := w.ledgerJSON(t, 77)
		if !strings.Contains(rep.Domains[0].AuditPassedReason, "reviewer registry not found at") {
			t.Fatalf("reason %q", rep.Domains[0].AuditPassedReason)
		}
		writeFile(t, w.RegistryPath, string(raw))
		w.ledgerJSON(t, 0)
	})

	t.Run("signature", func(t *testing.T) {
		i := strings.Index(string(raw), "sig: ")
		if i < 0 {
			t.Fatal("no signature in the registry")
		}
		bad := []byte(string(raw))
		j := i + len("sig: ") + 5
		if bad[j] == 'A' {
			bad[j] = 'B'
		} else {
			bad[j] = 'A'
		}
		writeFile(t, w.RegistryPath, string(bad))
		rep := w.ledgerJSON(t, 77)
		if rep.Domains[0].Status != ledger.StatusReasoningCapable || len(rep.Registry.ClaimErrors) != 1 {
			t.Fatalf("row %s claim errors %+v", rep.Domains[0].Status, rep.Registry.ClaimErrors)
		}
		if code, _, _ := w.run(t, "reviewers", "check", w.RegistryPath); code != 77 {
			t.Fatalf("reviewers check: exit %d", code)
		}
		writeFile(t, w.RegistryPath, string(raw))
		if rep := w.ledgerJSON(t, 0); rep.Domains[0].Status != ledger.StatusAuditPassed {
			t.Fatal("restoring the signature did not restore audit-passed")
		}
	})
}

func TestEvalCommandErrors(t *testing.T) {
	w := newCLIWorld(t)
	cases := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"eval", "--domain", ledgertest.Domain, "made_up_lane"}, 65, "has no registered shape"},
		{[]string{"eval", "--domain", "nope", "domain_qa"}, 66, "domain 'nope'"},
		{[]string{"eval", "--domain", ledgertest.Domain, "--split", "final", "domain_qa"}, 65, "no split 'final'"},
		{[]string{"eval", "domain_qa"}, 2, "--domain"},
	}
	for _, c := range cases {
		code, _, errs := w.run(t, c.args...)
		if code != c.code || !strings.Contains(errs, c.want) {
			t.Errorf("%v: exit %d %q", c.args, code, errs)
		}
	}
	// Without trusted keys nothing verifies: nothing to evaluate.
	code, _, errs := runLedgerCLI(t, "--store", "file://"+w.StoreDir, "--courses-dir", w.CoursesDir,
		"--packs-dir", testutil.ShippedPacks(t), "eval", "--domain", ledgertest.Domain, "domain_qa")
	if code != 65 || !strings.Contains(errs, "no promoted course that verifies") {
		t.Fatalf("no trusted keys: exit %d %q", code, errs)
	}
}

// A lane whose result fails its thresholds is stored and exits 3.
func TestEvalFailingLaneExits3(t *testing.T) {
	w := newCLIWorld(t)
	path := filepath.Join(w.CoursesDir, ledgertest.Subject, "questions", "public.jsonl")
	raw, _ := os.ReadFile(path)
	writeFile(t, path, strings.Replace(string(raw), ledgertest.Definition("heat"), "a kind of sound", 1))
	code, out, _ := w.run(t, "--json", "eval", "--domain", ledgertest.Domain, eval.LaneDomainQA)
	if code != 3 {
		t.Fatalf("exit %d", code)
	}
	var doc EvalOutput
	if err := json.Unmarshal([]byte(out), &doc); err != nil || doc.Result.Pass || !strings.Contains(doc.Result.Reason, "accuracy=5/6 below threshold 0.95") {
		t.Fatalf("output %v %+v", err, doc.Result.Reason)
	}
}

func TestClaimSignRefusals(t *testing.T) {
	w := newCLIWorld(t)
	// No lane has run: nothing to sign over.
	code, _, errs := w.run(t, "claim", "sign", "--domain", ledgertest.Domain, "--lanes", "domain_qa", "--revision", "r",
		"--key", w.ReviewerKeyPath, "--signer", ledgertest.Reviewer)
	if code != 65 || !strings.Contains(errs, "has no results") {
		t.Fatalf("exit %d %q", code, errs)
	}
	if code, _, _ := w.run(t, "claim", "sign", "--domain", ledgertest.Domain); code != 2 {
		t.Fatalf("missing flags: exit %d", code)
	}
	// A registry that does not hold the signer's key.
	writeFile(t, w.RegistryPath, "schema_version: 2\nreviewers: []\n")
	code, _, errs = w.run(t, "claim", "sign", "--domain", ledgertest.Domain, "--lanes", "domain_qa", "--revision", "r",
		"--key", w.ReviewerKeyPath, "--signer", ledgertest.Reviewer, "--registry", w.RegistryPath)
	if code != 77 || !strings.Contains(errs, "is not in") {
		t.Fatalf("exit %d %q", code, errs)
	}
}

func TestReviewersCheckOriginalRegistry(t *testing.T) {
	code, out, _ := runLedgerCLI(t, "--json", "reviewers", "check", testutil.Original(t, "docs", "reviewers.yaml"))
	var doc ReviewersCheckOutput
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	if code != 0 || !doc.Valid || doc.RegistrySchemaVersion != 1 || len(doc.Claims) != 3 {
		t.Fatalf("exit %d doc %+v", code, doc)
	}
	for _, c := range doc.Claims {
		if c.Signed || c.Verified || !strings.Contains(c.Reason, "unsigned") {
			t.Fatalf("claim %+v", c)
		}
	}
}

// strictLedger decodes the report with unknown fields refused (but for the
// error object of a failed run), checks that every key of the documented
// struct is present, and checks the enums and the invariants between fields.
func strictLedger(t *testing.T, data []byte) ledger.Report {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var doc struct {
		ledger.Report
		Error *struct {
			Code    int    `json:"code"`
			Reason  string `json:"reason"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := dec.Decode(&doc); err != nil {
		t.Fatalf("strict decode: %v\n%s", err, data)
	}
	rep := doc.Report
	if doc.Error != nil && (doc.Error.Code == 0 || doc.Error.Reason == "" || doc.Error.Message == "") {
		t.Fatalf("error object %+v", *doc.Error)
	}
	if dec.More() {
		t.Fatal("more than one JSON document on stdout")
	}
	var generic any
	if err := json.Unmarshal(data, &generic); err != nil {
		t.Fatal(err)
	}
	requireKeys(t, "$", reflect.TypeOf(rep), generic)
	if rep.SchemaVersion != ledger.ReportSchemaVersion || !slices.Equal(rep.StatusOrder, ledger.StatusOrder()) ||
		rep.Thresholds != ledger.CurrentThresholds() {
		t.Fatalf("header %+v", rep)
	}
	if rep.Registry.Valid == (rep.Registry.Error != "") {
		t.Fatalf("registry valid %v with error %q", rep.Registry.Valid, rep.Registry.Error)
	}
	for _, row := range rep.Domains {
		checkRow(t, row)
	}
	return rep
}

func checkRow(t *testing.T, row ledger.Row) {
	t.Helper()
	p := row.Predicates
	want := ledger.StatusBlocked
	for _, rung := range []struct {
		holds  bool
		status string
	}{{p.Seeded, ledger.StatusSeeded}, {p.Grounded, ledger.StatusGrounded}, {p.ReasoningCapable, ledger.StatusReasoningCapable}, {p.AuditPassed, ledger.StatusAuditPassed}} {
		if !rung.holds {
			break
		}
		want = rung.status
	}
	if !slices.Contains(ledger.StatusOrder(), row.Status) || row.Status != want {
		t.Fatalf("%s: status %q, predicates say %q", row.Domain, row.Status, want)
	}
	if (p.Grounded && !p.Seeded) || (p.ReasoningCapable && !p.Grounded) || (p.AuditPassed && !p.ReasoningCapable) {
		t.Fatalf("%s: predicates not nested: %+v", row.Domain, p)
	}
	if p.AuditPassed != (row.AuditPassedReason == ledger.ReasonPassed) || row.AuditPassedReason == "" {
		t.Fatalf("%s: audit_passed %v with reason %q", row.Domain, p.AuditPassed, row.AuditPassedReason)
	}
	for _, e := range row.Evidence {
		if !slices.Contains([]string{"public", "holdout", "dev"}, e.Split) || e.Pass != (e.Reason == "") {
			t.Fatalf("%s: evidence %+v", row.Domain, e)
		}
	}
	for _, l := range row.EvalLanes {
		if _, ok := eval.ShapeOf(l.Lane); ok != (l.Shape != "") {
			t.Fatalf("%s: lane %s shape %q", row.Domain, l.Lane, l.Shape)
		}
	}
}

// requireKeys walks the documented type beside the decoded document: every
// field without omitempty must be present, objects must be objects and
// lists lists (never null); a pointer field may be null.
func requireKeys(t *testing.T, path string, typ reflect.Type, v any) {
	t.Helper()
	switch typ.Kind() {
	case reflect.Pointer:
		if v != nil {
			requireKeys(t, path, typ.Elem(), v)
		}
	case reflect.Struct:
		m, ok := v.(map[string]any)
		if !ok {
			t.Fatalf("%s: want an object, got %T", path, v)
		}
		for i := 0; i < typ.NumField(); i++ {
			f := typ.Field(i)
			name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
			if name == "-" || !f.IsExported() {
				continue
			}
			fv, present := m[name]
			if !present {
				if !strings.Contains(opts, "omitempty") {
					t.Fatalf("%s: missing required key %q", path, name)
				}
				continue
			}
			requireKeys(t, path+"."+name, f.Type, fv)
		}
	case reflect.Slice:
		arr, ok := v.([]any)
		if !ok {
			t.Fatalf("%s: want a list, got %T", path, v)
		}
		for i, item := range arr {
			requireKeys(t, path+"["+string(rune('0'+i%10))+"]", typ.Elem(), item)
		}
	case reflect.Map:
		m, ok := v.(map[string]any)
		if !ok {
			t.Fatalf("%s: want an object, got %T", path, v)
		}
		for k, item := range m {
			requireKeys(t, path+"."+k, typ.Elem(), item)
		}
	}
}

func appendFile(t *testing.T, path, s string) {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, path, string(raw)+s)
}

func writeFile(t *testing.T, path, s string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

// eval takes --identity-hard-block (and FORMATION_IDENTITY_HARD_BLOCK): the
// lanes' ordinary questions do not flag, so every lane still passes with it.
func TestEvalWithIdentityHardBlock(t *testing.T) {
	w := newCLIWorld(t)
	for _, lane := range ledgertest.Lanes {
		if code, out, errs := w.run(t, "eval", "--identity-hard-block", "--domain", ledgertest.Domain, lane); code != 0 {
			t.Fatalf("eval --identity-hard-block %s: exit %d\n%s%s", lane, code, out, errs)
		}
	}
	t.Setenv("FORMATION_IDENTITY_HARD_BLOCK", "1")
	if code, out, errs := w.run(t, "eval", "--domain", ledgertest.Domain, eval.LaneDomainQA); code != 0 {
		t.Fatalf("eval with FORMATION_IDENTITY_HARD_BLOCK=1: exit %d\n%s%s", code, out, errs)
	}
}
