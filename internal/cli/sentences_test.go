package cli_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSmeltSentences: `formation smelt --sentences` reports every sentence
// of the mined texts, with its range, what it yields or why it yields
// nothing, as JSONL under --json; it runs no stage.
func TestSmeltSentences(t *testing.T) {
	root := t.TempDir()
	subj := filepath.Join(root, "courses", "notes")
	if err := os.MkdirAll(filepath.Join(subj, "sources"), 0o755); err != nil {
		t.Fatal(err)
	}
	text := "A lens is a curved glass.\n\nIf it rains, it pours.\n\nIt is a misconception that glass is liquid.\n"
	files := map[string]string{
		"subject.yaml":   "subject_id: notes\ntemplate: definition\nretrieved_at: \"2026-01-01T00:00:00Z\"\nsources:\n  - id: n\n    adapter: file\n    path: sources/n.txt\n",
		"sources/n.txt":  text,
		"allowlist.yaml": "[]\n",
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(subj, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	common := []string{"--store", "file://" + filepath.Join(root, "store"), "--courses-dir", filepath.Join(root, "courses")}
	if code, _, errs := run(t, "", append(common, "mine", "notes")...); code != 0 {
		t.Fatalf("mine: %d %s", code, errs)
	}
	code, out, errs := run(t, "", append(common, "--json", "smelt", "--sentences", "notes")...)
	if code != 0 {
		t.Fatalf("smelt --sentences: %d %s", code, errs)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 3 {
		t.Fatalf("want 3 JSON lines, got %q", out)
	}
	type report struct {
		TextSHA string `json:"text_sha"`
		Start   int    `json:"start"`
		End     int    `json:"end"`
		Yielded []struct {
			Kind string   `json:"kind"`
			Key  []string `json:"key"`
		} `json:"yielded"`
		Reason string `json:"reason"`
	}
	var reports []report
	for _, l := range lines {
		var one report
		if err := json.Unmarshal([]byte(l), &one); err != nil {
			t.Fatal(err)
		}
		reports = append(reports, one)
	}
	if r := reports[0]; text[r.Start:r.End] != "A lens is a curved glass." || len(r.Yielded) != 2 || r.Reason != "" || len(r.TextSHA) != 64 {
		t.Errorf("first sentence: %+v", r)
	}
	if r := reports[1]; len(r.Yielded) != 0 || r.Reason != "conditional" {
		t.Errorf("a conditional must yield nothing and say why: %+v", r)
	}
	if r := reports[2]; len(r.Yielded) != 1 || r.Yielded[0].Kind != "counter" {
		t.Errorf("a misconception yields its counter-claim: %+v", r)
	}
	code, out, _ = run(t, "", append(common, "smelt", "--sentences", "notes")...)
	if code != 0 || !strings.Contains(out, "3 sentences: 2 yielded candidates, 1 conditional") {
		t.Errorf("text report: %d %q", code, out)
	}
	smeltRef := filepath.Join(root, "store", "refs", "subjects", "notes", "smelt")
	if _, err := os.Stat(smeltRef); !os.IsNotExist(err) {
		t.Errorf("the report must run no stage and move no ref: %v", err)
	}
	if code, _, errs := run(t, "", append(common, "smelt", "notes")...); code != 0 {
		t.Fatalf("smelt: %d %s", code, errs)
	}
	if _, err := os.Stat(smeltRef); err != nil {
		t.Errorf("the stage itself moves the ref the report leaves alone: %v", err)
	}
}
