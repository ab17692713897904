package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"formation/artifact"
	"formation/promote"
	"formation/reviewed"
	"formation/store"
)

func runPromoteCLI(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	io := IO{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb, Now: func() time.Time { return time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC) }}
	code := Main(NewApp(io), append([]string{"formation"}, args...))
	return code, out.String(), errb.String()
}

// storeReport stores a course, its validated set (recorded for lookup) and
// a sealed report, and returns the report's object digest.
func storeReport(t *testing.T, s store.Store, ratified bool, issuedAt string) (string, artifact.MasteryReport) {
	t.Helper()
	ctx := context.Background()
	src := artifact.SourceRef{SourceSHA: strings.Repeat("1", 64), Span: "example span", Adapter: "wikipedia", RetrievedAt: "2026-05-16T00:00:00Z"}
	vts := artifact.ValidatedTripleSet{SubjectID: "subject.micro", SchemaVersion: artifact.SchemaVersion,
		Concepts:  []artifact.ConceptCandidate{{CanonicalTerm: "wisdom", Definition: "definition of wisdom", Sources: []artifact.SourceRef{src}, State: artifact.StateValidated}},
		Relations: []artifact.RelationCandidate{{Head: "wisdom", Relation: "is", Tail: "judgment", Sources: []artifact.SourceRef{src}, State: artifact.StateValidated}}}
	put := func(b []byte) string {
		d, err := s.Put(ctx, b)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	courseSHA := put([]byte("course_id: course.micro.v1\nsubject:\n  requires_courses: []\n  subject_id: subject.micro\n"))
	raw, _ := artifact.Encode(vts)
	vs, err := reviewed.RecordValidatedSet(ctx, s, put(raw))
	if err != nil {
		t.Fatal(err)
	}
	r := artifact.MasteryReport{SchemaVersion: "1.0.0", CourseID: "course.micro.v1", SourceBundleSHA: strings.Repeat("0", 64),
		ValidatedSetSHA: vs, CourseSHA256: courseSHA, PlanSHA256: strings.Repeat("3", 64),
		Gates: []artifact.GateMeasurement{}, TraceHashes: []string{}, Ratified: ratified, IssuedAt: issuedAt, FailureReasons: []string{}}
	sealed, err := r.Sealed()
	if err != nil {
		t.Fatal(err)
	}
	raw, _ = artifact.Encode(sealed)
	return put(raw), sealed
}

func TestKeygenAndPromoteCommands(t *testing.T) {
	dir := t.TempDir()
	key := filepath.Join(dir, "curator.key")
	code, out, _ := runPromoteCLI(t, "--json", "keygen", "--out", key, "--label", "ci")
	var kg KeygenOutput
	if code != 0 || json.Unmarshal([]byte(out), &kg) != nil || len(kg.KeyID) != 64 || kg.PublicKeyFile != key+".pub" {
		t.Fatalf("keygen: %d %q", code, out)
	}
	if code, _, _ := runPromoteCLI(t, "keygen", "--out", key); code != 65 {
		t.Fatalf("keygen over an existing key: exit %d", code)
	}
	storeDir := filepath.Join(dir, "store")
	s, err := store.Open(context.Background(), "file://"+storeDir)
	if err != nil {
		t.Fatal(err)
	}
	obj, report := storeReport(t, s, true, "2026-05-16T00:00:00Z")
	base := []string{"--store", "file://" + storeDir, "--trusted-keys", key + ".pub"}
	envPath := filepath.Join(dir, "promotion.dsse.json")

	code, out, errs := runPromoteCLI(t, append(base, "--json", "promote", "--key", key, "--envelope-out", envPath, obj)...)
	var res promote.Result
	if code != 0 || json.Unmarshal([]byte(out), &res) != nil || res.PromotedTriples != 1 || res.ReportSHA256 != report.ReportSHA256 {
		t.Fatalf("promote: %d %q %s", code, out, errs)
	}
	if ok, why := reviewed.VerifyEnvelopeFile(envPath, key+".pub"); !ok {
		t.Fatalf("envelope written by --envelope-out: %s", why)
	}
	code, out, _ = runPromoteCLI(t, append(base, "promote", "--key", key, obj)...)
	if code != 0 || !strings.HasPrefix(out, "already promoted") {
		t.Fatalf("second promote: %d %q", code, out)
	}
	// A report changed and stored again: intact object, broken seal.
	report.Ratified = true
	report.IssuedAt = "2026-06-01T00:00:00Z"
	raw, _ := artifact.Encode(report)
	tampered, _ := s.Put(context.Background(), raw)
	if code, _, errs := runPromoteCLI(t, append(base, "promote", "--key", key, "--supersede", tampered)...); code != 77 || !strings.Contains(errs, "seal_invalid") {
		t.Fatalf("tampered report: exit %d %s", code, errs)
	}
	unratified, _ := storeReport(t, s, false, "2026-06-02T00:00:00Z")
	if code, _, _ := runPromoteCLI(t, append(base, "promote", "--key", key, "--supersede", unratified)...); code != 3 {
		t.Fatalf("unratified: exit %d", code)
	}
	other := filepath.Join(dir, "other.key")
	if code, _, _ := runPromoteCLI(t, "keygen", "--out", other); code != 0 {
		t.Fatal("second keygen")
	}
	newer, _ := storeReport(t, s, true, "2026-06-03T00:00:00Z")
	untrusted := []string{"--store", "file://" + storeDir, "--trusted-keys", other + ".pub", "promote", "--key", key, "--supersede", newer}
	if code, _, errs := runPromoteCLI(t, untrusted...); code != 77 || !strings.Contains(errs, "untrusted_key") {
		t.Fatalf("untrusted key: exit %d %s", code, errs)
	}
	if code, _, _ := runPromoteCLI(t, append(base, "promote", "--key", key, newer)...); code != 65 {
		t.Fatalf("newer report without --supersede: exit %d", code)
	}
	// report.ReportSHA256 still holds the promoted seal: the tampered copy kept it.
	if code, out, _ := runPromoteCLI(t, append(base, "promote", "--key", key, "--supersede", newer)...); code != 0 || !strings.Contains(out, "superseding the report with seal "+report.ReportSHA256) {
		t.Fatalf("supersede: exit %d %q", code, out)
	}
}

func TestPromoteUsageErrors(t *testing.T) {
	dir := t.TempDir()
	for _, args := range [][]string{
		{"promote"},
		{"promote", strings.Repeat("a", 64)},
		{"--trusted-keys", filepath.Join(dir, "none"), "promote", strings.Repeat("a", 64)},
		{"keygen"},
	} {
		if code, _, _ := runPromoteCLI(t, args...); code != 2 {
			t.Errorf("%v: exit %d, want 2", args, code)
		}
	}
	key := filepath.Join(dir, "k")
	if code, _, _ := runPromoteCLI(t, "keygen", "--out", key); code != 0 {
		t.Fatal("keygen")
	}
	if err := os.Chmod(key, 0o640); err != nil {
		t.Fatal(err)
	}
	args := []string{"--store", "file://" + filepath.Join(dir, "s"), "--trusted-keys", key + ".pub", "promote", "--key", key, strings.Repeat("a", 64)}
	if code, _, errs := runPromoteCLI(t, args...); code != 65 || !strings.Contains(errs, "key_file_permissions") {
		t.Fatalf("exposed key: exit %d %s", code, errs)
	}
}
