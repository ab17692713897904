package mining

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"

	"formation/artifact"
	"formation/canon"
)

const (
	mdDoc   = "# Lenses\n\nA lens is a curved piece of glass.\n"
	htmlDoc = "<html><body><h1>Light</h1><p>Light is a wave.</p></body></html>"
	txtDoc  = "Heat causes expansion.\n"
)

func TestMineDocuments(t *testing.T) {
	snap := "<p>A prism produces a spectrum.</p>"
	subj := subjectDir(t,
		src("id", "lenses", "adapter", "file", "path", "sources/lenses.md", "citation", "Lens notes")+
			src("id", "notes", "adapter", "folder", "path", "sources/notes")+
			src("id", "prism", "adapter", "snapshot", "url", "https://example.org/prism?rev=7", "sha256", sha(snap), "path", "snapshots/prism.html", "retrieved_at", "2026-04-01T09:30:00Z"),
		map[string]string{
			"sources/lenses.md":         mdDoc,
			"sources/notes/light.html":  htmlDoc,
			"sources/notes/b/heat.txt":  txtDoc,
			"sources/notes/a b/ü #.txt": "Odd names are fine.",
			"snapshots/prism.html":      snap,
		})
	store := newMemStore()
	res, err := Mine(context.Background(), subj, store, Options{Jobs: 2})
	if err != nil {
		t.Fatalf("Mine: %v", err)
	}
	want := []artifact.OreEntry{
		{SourceSHA: sha(mdDoc), URL: "file:sources/lenses.md", Adapter: "file", RetrievedAt: "2026-05-16T00:00:00Z", ByteLength: int64(len(mdDoc)), Citation: "Lens notes", TextSHA: sha("Lenses\n\nA lens is a curved piece of glass.\n")},
		{SourceSHA: sha("Odd names are fine."), URL: "file:sources/notes/a%20b/%C3%BC%20%23.txt", Adapter: "folder", RetrievedAt: "2026-05-16T00:00:00Z", ByteLength: 19},
		{SourceSHA: sha(txtDoc), URL: "file:sources/notes/b/heat.txt", Adapter: "folder", RetrievedAt: "2026-05-16T00:00:00Z", ByteLength: int64(len(txtDoc))},
		{SourceSHA: sha(htmlDoc), URL: "file:sources/notes/light.html", Adapter: "folder", RetrievedAt: "2026-05-16T00:00:00Z", ByteLength: int64(len(htmlDoc)), TextSHA: sha("Light\n\nLight is a wave.\n")},
		{SourceSHA: sha(snap), URL: "https://example.org/prism?rev=7", Adapter: "snapshot", RetrievedAt: "2026-04-01T09:30:00Z", ByteLength: int64(len(snap)), TextSHA: sha("A prism produces a spectrum.\n")},
	}
	if !slices.Equal(res.Bundle.Entries, want) {
		t.Errorf("entries:\n got %+v\nwant %+v", res.Bundle.Entries, want)
	}
	if res.Bundle.SubjectID != "demo" || res.Bundle.SchemaVersion != "1.0.0" {
		t.Errorf("bundle header %+v", res.Bundle)
	}
	digest, _ := canon.SHA256Hex(res.Bundle)
	if res.Digest != digest || res.Digest != sha(string(res.Canonical)) {
		t.Errorf("source_bundle_sha %s is not the SHA-256 of the canonical bundle (%s)", res.Digest, digest)
	}
	for _, e := range want {
		store.get(t, e.SourceSHA)
		if e.TextSHA != "" {
			if got := store.get(t, e.TextSHA); sha(string(got)) != e.TextSHA {
				t.Errorf("text object %s does not hash to its name", e.TextSHA)
			}
		}
	}
	if got := string(store.get(t, want[3].TextSHA)); got != "Light\n\nLight is a wave.\n" {
		t.Errorf("stored HTML text %q", got)
	}
	if res.Bytes != int64(len(mdDoc)+19+len(txtDoc)+len(htmlDoc)+len(snap)) {
		t.Errorf("Bytes = %d", res.Bytes)
	}
}

func TestEveryRefusalIsNamed(t *testing.T) {
	snap := "pinned bytes"
	files := map[string]string{
		"sources/big.txt":        strings.Repeat("x", 101),
		"sources/ok.md":          mdDoc,
		"sources/notes/fine.txt": txtDoc,
		"sources/notes/raw.pdf":  "%PDF",
		"snapshots/page.html":    snap + " (edited)",
		"sources/latin1.txt":     "caf\xe9",
		"outside/secret.txt":     "not for mining",
	}
	subj := subjectDir(t,
		src("id", "big", "adapter", "file", "path", "sources/big.txt", "max_bytes", "100")+
			src("id", "ok", "adapter", "file", "path", "sources/ok.md")+
			src("id", "escape", "adapter", "file", "path", "../../etc/passwd.txt")+
			src("id", "absolute", "adapter", "file", "path", "/etc/hostname.txt")+
			src("id", "linked", "adapter", "file", "path", "sources/link.txt")+
			src("id", "via-linked-dir", "adapter", "file", "path", "sources/linkdir/secret.txt")+
			src("id", "missing", "adapter", "file", "path", "sources/nothing.txt")+
			src("id", "notes", "adapter", "folder", "path", "sources/notes")+
			src("id", "page", "adapter", "snapshot", "url", "https://example.org/page", "sha256", sha(snap), "path", "snapshots/page.html")+
			src("id", "latin1", "adapter", "file", "path", "sources/latin1.txt")+
			src("id", "ideas", "adapter", "llm", "model", "m1", "prompt", "prompts/p.txt", "path", "llm/out.txt"),
		files)
	mustSymlink(t, filepath.Join(subj.Dir, "outside", "secret.txt"), filepath.Join(subj.Dir, "sources", "link.txt"))
	mustSymlink(t, filepath.Join(subj.Dir, "outside"), filepath.Join(subj.Dir, "sources", "linkdir"))
	mustSymlink(t, filepath.Join(subj.Dir, "outside", "secret.txt"), filepath.Join(subj.Dir, "sources", "notes", "sneaky.txt"))

	for _, jobs := range []int{1, 4} {
		_, err := Mine(context.Background(), subj, newMemStore(), Options{Jobs: jobs})
		var re *RefusedError
		if !errors.As(err, &re) {
			t.Fatalf("jobs=%d: want a *RefusedError, got %v", jobs, err)
		}
		got := map[string]string{}
		for _, r := range re.Refusals {
			got[r.SourceID+"|"+r.Path] = r.Code
		}
		want := map[string]string{
			"big|sources/big.txt":                       CodeTooLarge,
			"escape|../../etc/passwd.txt":               CodePathEscapes,
			"absolute|/etc/hostname.txt":                CodePathEscapes,
			"linked|sources/link.txt":                   CodeSymlink,
			"via-linked-dir|sources/linkdir/secret.txt": CodeSymlink,
			"missing|sources/nothing.txt":               CodeMissing,
			"notes|sources/notes/raw.pdf":               CodeUnsupported,
			"notes|sources/notes/sneaky.txt":            CodeSymlink,
			"page|snapshots/page.html":                  CodeSnapshotHash,
			"latin1|sources/latin1.txt":                 CodeInvalidUTF8,
			"ideas|":                                    CodeLLMDisabled,
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("jobs=%d refusals:\n got %v\nwant %v", jobs, got, want)
		}
		if !slices.IsSortedFunc(re.Refusals, func(a, b Refusal) int { return strings.Compare(a.SourceID+"|"+a.Path, b.SourceID+"|"+b.Path) }) {
			t.Errorf("refusals are not sorted: %v", re.Refusals)
		}
		if !strings.Contains(re.Error(), "11 source(s) refused") {
			t.Errorf("message: %v", re)
		}
	}
}

func mustSymlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
}

func TestSnapshotMismatchAloneHalts(t *testing.T) {
	subj := subjectDir(t, src("id", "page", "adapter", "snapshot", "url", "https://example.org/page", "sha256", sha("expected"), "path", "snap.txt"),
		map[string]string{"snap.txt": "tampered"})
	res, err := Mine(context.Background(), subj, newMemStore(), Options{})
	var re *RefusedError
	if res != nil || !errors.As(err, &re) || len(re.Refusals) != 1 || re.Refusals[0].Code != CodeSnapshotHash || re.Refusals[0].SourceID != "page" {
		t.Fatalf("a snapshot that does not hash to its pin halts the mine: %v, %v", res, err)
	}
	if !strings.Contains(re.Refusals[0].Detail, sha("tampered")) || !strings.Contains(re.Refusals[0].Detail, sha("expected")) {
		t.Errorf("the refusal names both digests: %q", re.Refusals[0].Detail)
	}
}

func TestFolderLimitsAndDuplicates(t *testing.T) {
	files := map[string]string{}
	for i := range 5 {
		files[fmt.Sprintf("notes/%d.txt", i)] = fmt.Sprintf("Note %d.", i)
	}
	subj := subjectDir(t, src("id", "notes", "adapter", "folder", "path", "notes", "max_files", "3"), files)
	_, err := Mine(context.Background(), subj, newMemStore(), Options{})
	var re *RefusedError
	if !errors.As(err, &re) || !slices.Contains(re.Codes(), CodeTooManyFiles) {
		t.Fatalf("a folder over max_files is refused: %v", err)
	}

	subj = subjectDir(t, src("id", "all", "adapter", "folder", "path", "notes")+src("id", "one", "adapter", "file", "path", "notes/1.txt"), files)
	_, err = Mine(context.Background(), subj, newMemStore(), Options{})
	if !errors.As(err, &re) || len(re.Refusals) != 1 || re.Refusals[0].Code != CodeDuplicateEntry || re.Refusals[0].SourceID != "one" {
		t.Fatalf("a file mined by two sources is refused once, naming the second source: %v", err)
	}
}

func TestMineTables(t *testing.T) {
	rec := testTable(t, []int64{2, 1}, strs("Glass belongs to optics.", "Light is a wave."))
	defer rec.Release()
	files := map[string]string{"t/facts.parquet": string(parquetFile(t, rec)), "t/facts.arrow": string(arrowFile(t, rec))}
	subj := subjectDir(t,
		src("id", "pq", "adapter", "table", "path", "t/facts.parquet", "text_column", "text", "id_column", "id")+
			src("id", "ar", "adapter", "table", "path", "t/facts.arrow", "text_column", "text", "id_column", "id", "citation", "Fact table"),
		files)
	store := newMemStore()
	res, err := Mine(context.Background(), subj, store, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Bundle.Entries) != 4 {
		t.Fatalf("one entry per row: %+v", res.Bundle.Entries)
	}
	e := res.Bundle.Entries[0]
	if e.URL != "file:t/facts.arrow#id=1" || e.Adapter != "table" || e.SourceSHA != sha(files["t/facts.arrow"]) ||
		e.TextSHA != sha("Light is a wave.") || e.ByteLength != int64(len("Light is a wave.")) || e.Citation != "Fact table" {
		t.Errorf("first table entry %+v", e)
	}
	if got := string(store.get(t, e.TextSHA)); got != "Light is a wave." {
		t.Errorf("row text object %q", got)
	}
	store.get(t, e.SourceSHA)

	subj = subjectDir(t, src("id", "pq", "adapter", "table", "path", "t/facts.parquet", "text_column", "body", "id_column", "id"), files)
	_, err = Mine(context.Background(), subj, newMemStore(), Options{})
	var re *RefusedError
	if !errors.As(err, &re) || re.Refusals[0].Code != CodeTableSchema || re.Refusals[0].SourceID != "pq" {
		t.Fatalf("a table without the named column is refused: %v", err)
	}
}

func TestMineLLM(t *testing.T) {
	files := map[string]string{"prompts/p.txt": "List facts about light.", "llm/out.txt": "Light is a wave."}
	subj := subjectDir(t, src("id", "ideas", "adapter", "llm", "model", "demo-model:1", "prompt", "prompts/p.txt", "path", "llm/out.txt", "citation", "ideation run 1"), files)
	store := newMemStore()
	res, err := Mine(context.Background(), subj, store, Options{EnableLLM: true})
	if err != nil {
		t.Fatal(err)
	}
	want := artifact.OreEntry{SourceSHA: sha("Light is a wave."), URL: "llm:ideas", Adapter: "llm_ideation/demo-model:1", RetrievedAt: "2026-05-16T00:00:00Z",
		ByteLength: 16, Citation: "ideation run 1", Model: "demo-model:1", PromptSHA: sha("List facts about light.")}
	if len(res.Bundle.Entries) != 1 || res.Bundle.Entries[0] != want {
		t.Fatalf("LLM entry:\n got %+v\nwant %+v", res.Bundle.Entries, want)
	}
	store.get(t, want.PromptSHA)
	if !artifact.IsLLMAdapter(res.Bundle.Entries[0].Adapter) {
		t.Error("forge must see an LLM adapter")
	}

	// A command provider: the operator's program, the prompt on stdin.
	cmd := CommandLLM{Argv: []string{os.Args[0], "-test.run=TestHelperGenerator"}}
	t.Setenv("FORMATION_TEST_GENERATOR", "1")
	res, err = Mine(context.Background(), subj, newMemStore(), Options{EnableLLM: true, LLM: cmd})
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Bundle.Entries[0].SourceSHA; got != sha("generated by demo-model:1 from: List facts about light.") {
		t.Errorf("command output digest %s", got)
	}
	t.Setenv("FORMATION_TEST_GENERATOR", "fail")
	_, err = Mine(context.Background(), subj, newMemStore(), Options{EnableLLM: true, LLM: cmd})
	var re *RefusedError
	if !errors.As(err, &re) || re.Refusals[0].Code != CodeLLMFailed {
		t.Fatalf("a failing generator refuses its source: %v", err)
	}
}

// TestHelperGenerator is the generator command CommandLLM runs in
// TestMineLLM (the test binary itself); it does nothing in a normal run.
func TestHelperGenerator(t *testing.T) {
	switch os.Getenv("FORMATION_TEST_GENERATOR") {
	case "1":
		prompt, _ := io.ReadAll(os.Stdin)
		fmt.Printf("generated by %s from: %s", os.Getenv("FORMATION_LLM_MODEL"), prompt)
		os.Exit(0)
	case "fail":
		fmt.Fprintln(os.Stderr, "model unavailable")
		os.Exit(3)
	}
}

// countingWriter fails the first failFirst writes with err, then passes
// writes on to inner.
type countingWriter struct {
	mu        sync.Mutex
	inner     *memStore
	failFirst int
	err       error
	calls     int
}

func (w *countingWriter) PutReader(ctx context.Context, r io.Reader) (string, int64, error) {
	w.mu.Lock()
	w.calls++
	fail := w.calls <= w.failFirst
	w.mu.Unlock()
	if fail {
		return "", 0, w.err
	}
	return w.inner.PutReader(ctx, r)
}

type tempErr struct{}

func (tempErr) Error() string   { return "store briefly unavailable" }
func (tempErr) Temporary() bool { return true }

func TestRetriesOnlyTransientFaults(t *testing.T) {
	subj := subjectDir(t, src("id", "heat", "adapter", "file", "path", "heat.txt"), map[string]string{"heat.txt": txtDoc})
	w := &countingWriter{inner: newMemStore(), failFirst: 2, err: tempErr{}}
	if _, err := Mine(context.Background(), subj, w, Options{Retry: RetryPolicy{Attempts: 3, BaseDelay: 1}}); err != nil {
		t.Fatalf("two transient faults within three attempts must succeed: %v", err)
	}
	if w.calls != 3 {
		t.Errorf("calls = %d, want 3", w.calls)
	}
	w = &countingWriter{inner: newMemStore(), failFirst: 1, err: errors.New("disk full")}
	_, err := Mine(context.Background(), subj, w, Options{Retry: RetryPolicy{Attempts: 3, BaseDelay: 1}})
	var re *RefusedError
	if err == nil || errors.As(err, &re) || w.calls != 1 {
		t.Fatalf("a permanent fault is not retried and is not a refusal: %v (calls %d)", err, w.calls)
	}
	w = &countingWriter{inner: newMemStore(), failFirst: 1, err: syscall.EINTR}
	if _, err := Mine(context.Background(), subj, w, Options{Retry: RetryPolicy{BaseDelay: 1}}); err != nil || w.calls != 2 {
		t.Fatalf("EINTR is transient: %v (calls %d)", err, w.calls)
	}
	custom := errors.New("store unavailable")
	w = &countingWriter{inner: newMemStore(), failFirst: 1, err: custom}
	opt := Options{Retry: RetryPolicy{BaseDelay: 1}, IsTransient: func(err error) bool { return errors.Is(err, custom) }}
	if _, err := Mine(context.Background(), subj, w, opt); err != nil || w.calls != 2 {
		t.Fatalf("the caller's transient classifier is honoured: %v (calls %d)", err, w.calls)
	}
}
