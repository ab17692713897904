package cli_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/minio/minio-go/v7"

	"formation/internal/cli"
	"formation/internal/testutil"
	"formation/store"
	"formation/storecheck"
	"formation/storegc"
)

// TestMain lets tests run this binary as `formation` in child processes:
// with FORMATION_TEST_AS_MAIN=1 it is the command, not the test runner.
func TestMain(m *testing.M) {
	if os.Getenv("FORMATION_TEST_AS_MAIN") == "1" {
		os.Exit(cli.Main(cli.NewApp(cli.StdIO()), os.Args))
	}
	os.Exit(m.Run())
}

// storeWorld is a store (a folder, or a prefix of the real S3 server) and
// a courses folder with optics and a copy of it, optics2, that tests change.
type storeWorld struct {
	url     string
	courses string
	env     []string
	srv     *testutil.S3Server
}

func newStoreWorld(t *testing.T, backend string) *storeWorld {
	t.Helper()
	root, err := testutil.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	w := &storeWorld{courses: filepath.Join(t.TempDir(), "courses")}
	copyDir(t, filepath.Join(root, "courses", "optics"), filepath.Join(w.courses, "optics"))
	copyDir(t, filepath.Join(root, "courses", "optics"), filepath.Join(w.courses, "optics2"))
	domains, err := os.ReadFile(filepath.Join(root, "courses", "domains.yaml"))
	must(t, err)
	must(t, os.WriteFile(filepath.Join(w.courses, "domains.yaml"), domains, 0o644))
	subj := filepath.Join(w.courses, "optics2", "subject.yaml")
	raw, err := os.ReadFile(subj)
	must(t, err)
	must(t, os.WriteFile(subj, []byte(strings.Replace(string(raw), "subject_id: optics\n", "subject_id: optics2\n", 1)), 0o644))
	packsDir := filepath.Join(root, "packs")
	w.env = []string{"FORMATION_PACKS_DIR=" + packsDir, "FORMATION_COURSES_DIR=" + w.courses}
	switch backend {
	case "file":
		w.url = "file://" + filepath.Join(t.TempDir(), "store")
	case "s3":
		srv := testutil.StartS3(t)
		srv.SetEnv(t)
		w.srv, w.url = &srv, "s3://"+srv.Bucket+"/gc"
		w.env = append(w.env, srv.Env()...)
	}
	return w
}

func copyDir(t *testing.T, from, to string) {
	t.Helper()
	must(t, os.CopyFS(to, os.DirFS(from)))
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// run runs `formation --store URL args...` in a child process.
func (w *storeWorld) run(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], append([]string{"--store", w.url}, args...)...)
	cmd.Env = append(append(os.Environ(), "FORMATION_TEST_AS_MAIN=1"), w.env...)
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case err == nil:
		return 0, out.String(), errb.String()
	case errors.As(err, &exit):
		return exit.ExitCode(), out.String(), errb.String()
	}
	t.Fatalf("run formation %v: %v", args, err)
	return 0, "", ""
}

func (w *storeWorld) mustRun(t *testing.T, args ...string) string {
	t.Helper()
	code, out, errs := w.run(t, args...)
	if code != 0 {
		t.Fatalf("formation %v: exit %d\n%s%s", args, code, out, errs)
	}
	return out
}

// change appends the n-th new sentence to one of a subject's sources.
func (w *storeWorld) change(t *testing.T, subject string, n int) {
	t.Helper()
	f, err := os.OpenFile(filepath.Join(w.courses, subject, "sources", "colour.md"), os.O_APPEND|os.O_WRONLY, 0)
	must(t, err)
	_, err = fmt.Fprintf(f, "\nRevision %d of these notes adds nothing new about colour.\n", n)
	must(t, errors.Join(err, f.Close()))
}

func (w *storeWorld) open(t *testing.T) store.Maintainer {
	t.Helper()
	s, err := store.Open(context.Background(), w.url)
	must(t, err)
	m, err := store.AsMaintainer(s)
	must(t, err)
	return m
}

// listing is every object and every ref with its value.
type listing struct {
	objects []string
	refs    map[string]string
}

func (w *storeWorld) list(t *testing.T) listing {
	t.Helper()
	m, ctx := w.open(t), context.Background()
	objs, err := m.ListObjects(ctx)
	must(t, err)
	names, err := m.ListRefs(ctx, "")
	must(t, err)
	l := listing{objects: objs, refs: map[string]string{}}
	for _, n := range names {
		v, _, err := m.GetRef(ctx, n)
		must(t, err)
		l.refs[n] = string(v)
	}
	return l
}

func (l listing) equal(o listing) bool {
	if !slices.Equal(l.objects, o.objects) || len(l.refs) != len(o.refs) {
		return false
	}
	for k, v := range l.refs {
		if o.refs[k] != v {
			return false
		}
	}
	return true
}

// size is the bytes the store holds: every object and every ref value.
func (w *storeWorld) size(t *testing.T) int64 {
	t.Helper()
	m := w.open(t)
	infos, err := m.ObjectInfos(context.Background())
	must(t, err)
	var n int64
	for _, o := range infos {
		n += o.Size
	}
	for _, v := range w.list(t).refs {
		n += int64(len(v))
	}
	return n
}

func (w *storeWorld) gc(t *testing.T, args ...string) storegc.Report {
	t.Helper()
	var rep storegc.Report
	must(t, json.Unmarshal([]byte(w.mustRun(t, append([]string{"--json", "gc"}, args...)...)), &rep))
	return rep
}

// checkClean runs check --read-data: no finding, no leftover, every ref
// resolving to stored objects.
func (w *storeWorld) checkClean(t *testing.T) storecheck.Report {
	t.Helper()
	code, out, errs := w.run(t, "--json", "check", "--read-data", "--grace", "0s")
	var rep storecheck.Report
	if err := json.Unmarshal([]byte(out), &rep); err != nil || code != 0 || len(rep.Findings) != 0 || len(rep.Leftovers) != 0 {
		t.Fatalf("check --read-data: exit %d, %v\n%s%s", code, err, out, errs)
	}
	return rep
}

func autorunHits(t *testing.T, w *storeWorld, subject string) {
	t.Helper()
	out := w.mustRun(t, "--json", "autorun", subject)
	var doc struct {
		Stages []struct {
			Stage    string `json:"stage"`
			CacheHit bool   `json:"cache_hit"`
		} `json:"stages"`
	}
	must(t, json.Unmarshal([]byte(out), &doc))
	for _, s := range doc.Stages {
		if !s.CacheHit {
			t.Fatalf("autorun %s after gc: %s ran again\n%s", subject, s.Stage, out)
		}
	}
}

// TestGCAfterChangedAutoruns: ten autoruns of a subject changed each time,
// then gc: the store is at most twice the size of one fresh autorun's, a
// dry run before it changed nothing, the store checks clean, and an autorun
// of the latest version is six cache hits.
func TestGCAfterChangedAutoruns(t *testing.T) {
	for _, backend := range []string{"file", "s3"} {
		t.Run(backend, func(t *testing.T) {
			w := newStoreWorld(t, backend)
			w.mustRun(t, "-q", "autorun", "optics")
			fresh := w.size(t)
			for i := range 10 {
				w.change(t, "optics", i)
				w.mustRun(t, "-q", "autorun", "optics")
			}
			grown := w.size(t)
			before := w.list(t)
			dry := w.gc(t, "--dry-run", "--grace", "0s")
			if !before.equal(w.list(t)) {
				t.Fatal("gc --dry-run changed the store")
			}
			rep := w.gc(t, "--grace", "0s")
			after := w.size(t)
			if rep.ObjectsDeleted == 0 || rep.ObjectsDeleted != dry.ObjectsDeleted || len(rep.RefsDeleted) != len(dry.RefsDeleted) {
				t.Fatalf("gc removed %d objects and %d refs; the dry run said %d and %d",
					rep.ObjectsDeleted, len(rep.RefsDeleted), dry.ObjectsDeleted, len(dry.RefsDeleted))
			}
			if after > 2*fresh {
				t.Fatalf("after gc the store holds %d bytes, more than twice a fresh autorun's %d", after, fresh)
			}
			w.checkClean(t)
			autorunHits(t, w, "optics")
			t.Logf("%s: fresh autorun %d bytes; after 10 changed autoruns %d; after gc %d (%.2f× fresh); dry run and gc: %d objects, %d refs",
				backend, fresh, grown, after, float64(after)/float64(fresh), rep.ObjectsDeleted, len(rep.RefsDeleted))
		})
	}
}

// TestGCBesideAutoruns: gc --grace 0s runs beside 4 concurrent autoruns in
// every round; afterwards the store checks clean (every ref resolves, every
// object re-hashes) and autoruns of the latest versions are cache hits.
func TestGCBesideAutoruns(t *testing.T) { besideAutoruns(t, 2) }

// TestGCBesideAutorunsSoak is the same over 10 rounds.
func TestGCBesideAutorunsSoak(t *testing.T) {
	if os.Getenv("FORMATION_SOAK") != "1" {
		t.Skip("soak test: run with FORMATION_SOAK=1 (make soak)")
	}
	besideAutoruns(t, 10)
}

func besideAutoruns(t *testing.T, rounds int) {
	for _, backend := range []string{"file", "s3"} {
		t.Run(backend, func(t *testing.T) {
			w := newStoreWorld(t, backend)
			// gc reads an existing store only (a missing one is exit 66), so
			// the store exists before gc first meets the autoruns.
			w.mustRun(t, "-q", "autorun", "optics")
			deleted := 0
			start := time.Now()
			for r := range rounds {
				w.change(t, "optics", r)
				w.change(t, "optics2", r)
				w.leaveUpload(t)
				var wg sync.WaitGroup
				fail := make(chan string, 5)
				for i := range 4 {
					wg.Add(1)
					go func() {
						defer wg.Done()
						subject := []string{"optics", "optics2"}[i%2]
						if code, out, errs := w.run(t, "-q", "autorun", subject); code != 0 {
							fail <- fmt.Sprintf("autorun %s: exit %d\n%s%s", subject, code, out, errs)
						}
					}()
				}
				wg.Add(1)
				go func() {
					defer wg.Done()
					// Stagger gc so that it meets the autoruns at different points.
					time.Sleep(time.Duration(r%4) * 150 * time.Millisecond)
					code, out, errs := w.run(t, "--json", "gc", "--grace", "0s", "--wait", "5m")
					var rep storegc.Report
					if code != 0 || json.Unmarshal([]byte(out), &rep) != nil {
						fail <- fmt.Sprintf("gc: exit %d\n%s%s", code, out, errs)
						return
					}
					deleted += rep.ObjectsDeleted
				}()
				wg.Wait()
				close(fail)
				for f := range fail {
					t.Errorf("round %d: %s", r, f)
				}
				if t.Failed() {
					t.FailNow()
				}
			}
			if w.srv != nil {
				w.leaveUpload(t)
				code, out, _ := w.run(t, "--json", "check", "--grace", "0s")
				var c storecheck.Report
				if err := json.Unmarshal([]byte(out), &c); err != nil || code != 0 || len(c.Leftovers) == 0 ||
					c.Leftovers[0].Kind != "multipart_upload" {
					t.Fatalf("check does not list an abandoned upload: exit %d %v\n%s", code, err, out)
				}
			}
			w.gc(t, "--grace", "0s")
			rep := w.checkClean(t)
			if locks, _ := w.open(t).ListRefs(context.Background(), "locks/"); len(locks) != 0 {
				t.Fatalf("locks left behind: %v", locks)
			}
			autorunHits(t, w, "optics")
			autorunHits(t, w, "optics2")
			t.Logf("%s: %d rounds of gc beside 4 autoruns in %v; gc removed %d objects during the rounds; check: %d refs, %d objects re-hashed, 0 findings",
				backend, rounds, time.Since(start).Round(time.Second), deleted, rep.Refs, rep.Objects)
		})
	}
}

// leaveUpload starts a multipart upload and abandons it (S3 only), as a
// killed writer would: gc must abort it.
func (w *storeWorld) leaveUpload(t *testing.T) {
	if w.srv == nil {
		return
	}
	c := minio.Core{Client: w.srv.Client(t)}
	_, err := c.NewMultipartUpload(t.Context(), w.srv.Bucket, "gc/objects/sha256/00/"+strings.Repeat("0", 64), minio.PutObjectOptions{})
	must(t, err)
}

// TestGCKeepsPromotedState: the reviewed state's whole chain, every object
// each state names and the reports its envelopes name survive gc after the
// subject moved on; ask still answers from it.
func TestGCKeepsPromotedState(t *testing.T) {
	w := newStoreWorld(t, "file")
	key := filepath.Join(t.TempDir(), "curator.key")
	w.mustRun(t, "keygen", "--out", key)
	trusted := []string{"--trusted-keys", key + ".pub"}
	report := func() string {
		var st struct {
			Report string `json:"report"`
		}
		must(t, json.Unmarshal([]byte(w.mustRun(t, "--json", "status", "optics")), &st))
		return st.Report
	}
	w.mustRun(t, "-q", "autorun", "optics")
	w.mustRun(t, append(trusted, "-q", "promote", "--key", key, report())...)
	w.change(t, "optics", 1)
	w.reissue(t, "optics", "2026-06-01T00:00:00Z")
	w.mustRun(t, "-q", "autorun", "optics")
	w.mustRun(t, append(trusted, "-q", "promote", "--key", key, "--supersede", "--allow-removal", report())...)
	w.change(t, "optics", 2)
	w.mustRun(t, "-q", "autorun", "optics")
	rep := w.gc(t, "--grace", "0s")
	if rep.ObjectsDeleted == 0 {
		t.Fatal("gc removed nothing after three versions of the subject")
	}
	check := w.checkClean(t)
	if check.StateSeq != 1 {
		t.Fatalf("reviewed state after gc: seq %d, want 1", check.StateSeq)
	}
	code, out, errs := w.run(t, append(trusted, "--json", "ask", "What does refraction cause?")...)
	if code != 0 || !strings.Contains(out, `"citations":[{`) {
		t.Fatalf("ask after gc: exit %d\n%s%s", code, out, errs)
	}
	// The ledger verifies every promoted course's report, seal, envelope and
	// objects; without a reviewer registry it exits 77 after the rows.
	if _, out, errs := w.run(t, append(trusted, "ledger", "--domain", "optics")...); !strings.Contains(out, "reasoning-capable") {
		t.Fatalf("ledger after gc no longer places optics:\n%s%s", out, errs)
	}
}

// reissue sets a subject's issued_at, so that its next report supersedes.
func (w *storeWorld) reissue(t *testing.T, subject, at string) {
	t.Helper()
	path := filepath.Join(w.courses, subject, "subject.yaml")
	raw, err := os.ReadFile(path)
	must(t, err)
	lines := strings.Split(string(raw), "\n")
	for i, l := range lines {
		if strings.HasPrefix(l, "issued_at:") {
			lines[i] = fmt.Sprintf("issued_at: %q", at)
		}
	}
	must(t, os.WriteFile(path, []byte(strings.Join(lines, "\n")), 0o644))
}

// TestGCRefusesWhatItCannotRead: a stage ref whose object is not the kind
// the stage writes stops gc before it deletes anything (exit 65, one audit
// record).
func TestGCRefusesWhatItCannotRead(t *testing.T) {
	w := newStoreWorld(t, "file")
	w.mustRun(t, "-q", "autorun", "optics")
	w.change(t, "optics", 1)
	w.mustRun(t, "-q", "autorun", "optics")
	m, ctx := w.open(t), context.Background()
	mine, _, err := m.GetRef(ctx, "subjects/optics/mine")
	must(t, err)
	must(t, store.SetRefValue(ctx, m, "subjects/optics/forge", mine)) // an OreBundle where a validated set belongs
	before := w.list(t)
	code, _, errs := w.run(t, "gc", "--grace", "0s")
	if code != 65 || !strings.Contains(errs, "undecodable_object") {
		t.Fatalf("gc over an unreadable artifact: exit %d: %s", code, errs)
	}
	after := w.list(t)
	if !slices.Equal(before.objects, after.objects) {
		t.Fatal("gc deleted objects before refusing")
	}
	_, out, _ := w.run(t, "--json", "audit", "list", "--subject", "_store", "--stage", "gc")
	if strings.Count(out, `"reason_code":"undecodable_object"`) != 1 {
		t.Fatalf("want one audit record of the refusal, got %s", out)
	}
}

// TestGCLeftovers: check lists a killed writer's temp file and a stale
// lock's holder is ignored; gc removes both, and then check lists nothing.
func TestGCLeftovers(t *testing.T) {
	w := newStoreWorld(t, "file")
	w.mustRun(t, "-q", "autorun", "optics")
	dir := strings.TrimPrefix(w.url, "file://")
	tmp := filepath.Join(dir, "tmp", "w-killed")
	must(t, os.WriteFile(tmp, []byte("half an object"), 0o444))
	old := time.Now().Add(-2 * time.Minute)
	must(t, os.Chtimes(tmp, old, old))
	stale := time.Now().Add(-time.Hour).UTC()
	lock := fmt.Sprintf(`{"created":"%s","host":"gone","kind":"shared","owner":"formation autorun","pid":1,"refreshed":"%s"}`,
		stale.Format(time.RFC3339), stale.Format(time.RFC3339Nano))
	m := w.open(t)
	_, err := m.SetRef(context.Background(), "locks/shared-0000000000000000001-dead", "", []byte(lock))
	must(t, err)
	code, out, errs := w.run(t, "--json", "check", "--grace", "1m")
	var rep storecheck.Report
	if err := json.Unmarshal([]byte(out), &rep); err != nil || code != 0 || len(rep.Leftovers) != 1 ||
		rep.Leftovers[0].Kind != "temp_file" || rep.Leftovers[0].Size != 14 {
		t.Fatalf("check with a killed writer's temp file: exit %d %v\n%s%s", code, err, out, errs)
	}
	g := w.gc(t, "--grace", "0s")
	if len(g.LeftoversRemoved) != 1 || !slices.Contains(g.RefsDeleted, "locks/shared-0000000000000000001-dead") {
		t.Fatalf("gc: leftovers %v, refs %v", g.LeftoversRemoved, g.RefsDeleted)
	}
	w.checkClean(t)
}
