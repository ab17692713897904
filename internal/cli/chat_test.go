package cli_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"formation/internal/cli"
	"formation/internal/testutil"
)

const lensVTS = `{"subject_id":"lens","schema_version":"1.0.0","quarantined":[],"ordering_hints":[],"counters":[],
"concepts":[{"canonical_term":"lens","definition":"a curved piece of glass that bends light","state":"validated","rejection_reason":"",
  "sources":[{"source_sha":"1111111111111111111111111111111111111111111111111111111111111111","span":"A lens bends light.","adapter":"file","retrieved_at":"2026-05-16T00:00:00Z"}]}],
"relations":[{"head":"lens","relation":"produces","tail":"image","state":"validated","rejection_reason":"",
  "sources":[{"source_sha":"1111111111111111111111111111111111111111111111111111111111111111","span":"A lens produces an image.","adapter":"file","retrieved_at":"2026-05-16T00:00:00Z"}]}]}`

// chat answers each line from the knowledge, writes one TurnEvent per turn
// to --trace, and starts in production mode with the shipped (ratified) packs.
func TestChatFromKnowledgeFile(t *testing.T) {
	dir := t.TempDir()
	vts := filepath.Join(dir, "lens.json")
	if err := os.WriteFile(vts, []byte(lensVTS), 0o644); err != nil {
		t.Fatal(err)
	}
	root, _ := testutil.ModuleRoot()
	trace := filepath.Join(dir, "events.jsonl")
	var out, errb bytes.Buffer
	io := cli.IO{Stdin: strings.NewReader("What is lens?\nWhat does lens produce?\nWhat is a unicorn?\n/quit\n"), Stdout: &out, Stderr: &errb,
		Now: func() time.Time { return time.Unix(0, 0) }}
	t.Setenv("CORE_ALLOW_UNRATIFIED_SAFETY", "")
	code := cli.Main(cli.NewApp(io), []string{"formation", "--store", "file://" + filepath.Join(dir, "store"), "--packs-dir", filepath.Join(root, "packs"),
		"chat", "--knowledge", vts, "--trace", trace})
	if code != 0 {
		t.Fatalf("chat: exit %d: %s", code, errb.String())
	}
	got := out.String()
	for _, want := range []string{"a curved piece of glass that bends light", "image", "I don't have field coordinates for that yet.", "cites 111111111111"} {
		if !strings.Contains(got, want) {
			t.Fatalf("chat output lacks %q:\n%s", want, got)
		}
	}
	events, err := os.ReadFile(trace)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(events), "\n"); n != 3 || !strings.Contains(string(events), `"trace_hash":"`) {
		t.Fatalf("want 3 TurnEvent lines with trace hashes, got %d:\n%s", n, events)
	}
}

// Without a ratified safety pack the runtime refuses to start: exit 77.
func TestAskRefusesWithoutSafetyPack(t *testing.T) {
	var out, errb bytes.Buffer
	io := cli.IO{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb, Now: time.Now}
	t.Setenv("CORE_ALLOW_UNRATIFIED_SAFETY", "")
	empty := t.TempDir()
	os.MkdirAll(filepath.Join(empty, "safety"), 0o755)
	code := cli.Main(cli.NewApp(io), []string{"formation", "--store", "file://" + t.TempDir(), "--packs-dir", empty, "ask", "What is light?"})
	if code != 77 {
		t.Fatalf("exit %d, want 77: %s", code, errb.String())
	}
}
