package cli_test

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"formation/artifact"
	"formation/internal/testutil"
)

// A real-documentation subject: documentation installed on this machine that
// nobody on the project wrote, built into a subject at test time (nothing of
// it is committed), run through autorun to ratification and promotion, and
// then asked back the way a user asks: every validated relation in its
// step's own words and every concept as "What is X?".
//
// It runs only with FORMATION_REALDOC=1 (make realdoc): it needs the Go
// toolchain's sources and the manual pages and Node.js and Python
// documentation this machine has installed, and takes a few minutes.
// FORMATION_REALDOC_SOURCES=DIR runs it on the documents of DIR instead, as
// they are (any .txt, .md or .html files).
//
// The documents are kept apart from the labelled real-text set
// (smelting/testdata/realtext), and nothing is read from
// $(go env GOROOT)/doc, which is reserved for acceptance.

// realDoc is one document of the subject: the file it becomes under
// sources/ and how it is made from the machine's documentation.
type realDoc struct {
	name string
	// goPkg: `go doc -all goPkg`; manPage: the page rendered at 80
	// columns; path: a file copied as installed (gunzipped when it ends in
	// .gz).
	goPkg, manPage, path string
}

// realDocs are Go package documentation (BSD-3-Clause, plain text), the
// manual pages of GNU gzip, grep and find (rendered text), two chapters of the
// Node.js API reference (MIT, Markdown) and Debian's Python policy (HTML):
// four kinds of text.
var realDocs = []realDoc{
	{name: "go-bufio.txt", goPkg: "bufio"},
	{name: "go-bytes.txt", goPkg: "bytes"},
	{name: "go-encoding-json.txt", goPkg: "encoding/json"},
	{name: "go-fmt.txt", goPkg: "fmt"},
	{name: "go-io.txt", goPkg: "io"},
	{name: "go-net-url.txt", goPkg: "net/url"},
	{name: "go-os.txt", goPkg: "os"},
	{name: "go-path-filepath.txt", goPkg: "path/filepath"},
	{name: "go-regexp.txt", goPkg: "regexp"},
	{name: "go-sort.txt", goPkg: "sort"},
	{name: "go-strconv.txt", goPkg: "strconv"},
	{name: "go-strings.txt", goPkg: "strings"},
	{name: "go-sync.txt", goPkg: "sync"},
	{name: "go-time.txt", goPkg: "time"},
	{name: "man-gzip.txt", manPage: "gzip"},
	{name: "man-grep.txt", manPage: "grep"},
	{name: "man-find.txt", manPage: "find"},
	{name: "node-events.md", path: "/usr/share/doc/nodejs/api/events.md"},
	{name: "node-path.md", path: "/usr/share/doc/nodejs/api/path.md"},
	{name: "python-policy.html", path: "/usr/share/doc/python3/python-policy.html"},
}

// realDocRelations are the relations the subject declares for the verbs
// reference documentation is written in.
var realDocRelations = []string{"defines", "provides", "implements", "contains", "returns", "denotes"}

func TestRealDocumentationAsksBack(t *testing.T) {
	if os.Getenv("FORMATION_REALDOC") == "" {
		t.Skip("FORMATION_REALDOC=1 runs the real-documentation subject (make realdoc)")
	}
	dir := t.TempDir()
	courses := filepath.Join(dir, "courses")
	sources := filepath.Join(courses, "realdoc", "sources")
	if from := os.Getenv("FORMATION_REALDOC_SOURCES"); from != "" {
		copyDocuments(t, from, sources)
	} else {
		buildRealDocs(t, sources)
	}
	docBytes := writeRealDocSubject(t, filepath.Join(courses, "realdoc"))

	storeURL := "file://" + filepath.Join(dir, "store")
	base := []string{"--store", storeURL, "--courses-dir", courses, "--packs-dir", testutil.ShippedPacks(t)}
	code, _, errs := run(t, "", append(base, "--quiet", "autorun", "realdoc")...)
	var status struct {
		Ratified bool   `json:"ratified"`
		Report   string `json:"report"`
		Stages   []struct {
			Stage  string `json:"stage"`
			Output string `json:"output"`
		} `json:"stages"`
	}
	if code != 0 && code != 3 {
		t.Fatalf("autorun: exit %d, want 0 (ratified): %s", code, errs)
	}
	showJSON(t, base, []string{"--json", "status", "realdoc"}, &status)
	var vts artifact.ValidatedTripleSet
	var record artifact.RunRecord
	for _, st := range status.Stages {
		switch st.Stage {
		case "forge":
			showJSON(t, base, []string{"show", "--json", st.Output}, &vts)
		case "run":
			showJSON(t, base, []string{"show", "--json", st.Output}, &record)
		}
	}
	if code != 0 || !status.Ratified {
		for _, r := range record.Runs {
			for _, res := range r.Results {
				if !res.Accepted && res.StepType != "adversarial_probe" {
					t.Errorf("rejected %s step: %v", res.StepType, res.Payload)
				}
			}
		}
		t.Fatalf("autorun: exit %d, want 0 (ratified): %s", code, errs)
	}

	prose := proseBytes(t, base)
	rels, concepts := validated(vts)
	t.Logf("documents: %d files, %d bytes; prose %d bytes (%.1f KB): sentences the smelter does not read as code",
		len(docBytes), total(docBytes), prose, float64(prose)/1024)
	t.Logf("validated: %d relations, %d concepts, %d counter-claims; %.2f relations per 2 KB of prose",
		len(rels), len(concepts), len(vts.Counters), float64(len(rels))*2048/float64(prose))
	if len(rels)*2048 < prose {
		t.Errorf("%d relations for %d bytes of prose: fewer than one per 2 KB", len(rels), prose)
	}

	relSteps, conceptSteps := askSteps(t, record, rels, concepts)

	key := filepath.Join(dir, "curator.key")
	if code, _, errs := run(t, "", "keygen", "--out", key, "--label", "realdoc curator"); code != 0 {
		t.Fatalf("keygen: exit %d: %s", code, errs)
	}
	if code, _, errs := run(t, "", append(base, "--trusted-keys", key+".pub", "promote", "--key", key, status.Report)...); code != 0 {
		t.Fatalf("promote: exit %d: %s", code, errs)
	}

	askAll(t, base, "relations", relSteps, "relation_confirmation")
	askAll(t, base, "concepts", conceptSteps, "definition")
}

// buildRealDocs writes the documents of realDocs into dir.
func buildRealDocs(t *testing.T, dir string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	empty := t.TempDir() // go doc resolves packages from no module
	goroot := strings.TrimSpace(string(command(t, empty, nil, "go", "env", "GOROOT")))
	for _, d := range realDocs {
		var body []byte
		switch {
		case d.goPkg != "":
			body = command(t, empty, []string{"GOFLAGS="}, "go", "doc", "-all", d.goPkg)
		case d.manPage != "":
			body = command(t, empty, []string{"MANWIDTH=80", "LC_ALL=C.UTF-8"}, "man", "--nh", "--nj", "-P", "cat", d.manPage)
		default:
			if rel, err := filepath.Rel(filepath.Join(goroot, "doc"), d.path); err == nil && !strings.HasPrefix(rel, "..") {
				t.Fatalf("%s is under $(go env GOROOT)/doc, which is reserved for acceptance", d.path)
			}
			body = readInstalled(t, d.path)
		}
		if err := os.WriteFile(filepath.Join(dir, d.name), body, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// command runs a program in dir with extra environment and returns its
// standard output.
func command(t *testing.T, dir string, env []string, name string, args ...string) []byte {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	var errb bytes.Buffer
	cmd.Stderr = &errb
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s %s: %v: %s", name, strings.Join(args, " "), err, errb.String())
	}
	return out
}

// readInstalled reads an installed documentation file, gunzipping a .gz.
func readInstalled(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(path, ".gz") {
		return b
	}
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	out, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// copyDocuments copies the documents of from (not recursively) into dir.
func copyDocuments(t *testing.T, from, dir string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	ents, err := os.ReadDir(from)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		switch filepath.Ext(e.Name()) {
		case ".txt", ".md", ".markdown", ".html", ".htm":
		default:
			continue
		}
		b, err := os.ReadFile(filepath.Join(from, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, e.Name()), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// writeRealDocSubject writes subject.yaml (one folder source) and an
// allow-list naming every document primary — no exclusions — and returns
// each document's size. It refuses a document of the labelled set.
func writeRealDocSubject(t *testing.T, subject string) map[string]int {
	t.Helper()
	labelled := labelledDigests(t)
	ents, err := os.ReadDir(filepath.Join(subject, "sources"))
	if err != nil {
		t.Fatal(err)
	}
	sizes := map[string]int{}
	listed := map[string]string{} // digest -> the document it was allowed as
	var allow strings.Builder
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join(subject, "sources", e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256(b)
		digest := hex.EncodeToString(sum[:])
		if labelled[digest] {
			t.Fatalf("%s is a document of the labelled set", e.Name())
		}
		sizes[e.Name()] = len(b)
		// Installed documentation repeats itself (a man page under two
		// names): the allow-list names a source by its bytes, once.
		if first, ok := listed[digest]; ok {
			t.Logf("document %s has the bytes of %s: one allow-list entry for both", e.Name(), first)
			continue
		}
		listed[digest] = e.Name()
		fmt.Fprintf(&allow, "- source_sha: %q\n  tier: primary\n  label: %q\n", digest, e.Name())
	}
	if len(sizes) == 0 {
		t.Fatal("no documents")
	}
	names := make([]string, 0, len(sizes))
	for n := range sizes {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		t.Logf("document %-28s %7d bytes", n, sizes[n])
	}
	spec := `subject_id: realdoc
title: Real documentation
target_depth: introductory
requires_courses: []
anti_requisites: []
identity_axis_constraints: []
template: definition
retrieved_at: "2026-05-16T00:00:00Z"
issued_at: "2026-05-16T00:00:00Z"
relations: [` + strings.Join(realDocRelations, ", ") + `]
sources:
  - id: docs
    adapter: folder
    path: sources
`
	if err := os.WriteFile(filepath.Join(subject, "subject.yaml"), []byte(spec), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(subject, "allowlist.yaml"), []byte(allow.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return sizes
}

// labelledDigests are the SHA-256 digests of the labelled set's documents.
func labelledDigests(t *testing.T) map[string]bool {
	t.Helper()
	root, err := testutil.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(root, "smelting", "testdata", "realtext", "docs.sha256"))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) == 2 {
			out[f[0]] = true
		}
	}
	return out
}

// showJSON runs a command that prints one JSON document and decodes it.
func showJSON(t *testing.T, base, args []string, v any) {
	t.Helper()
	code, out, errs := run(t, "", append(append([]string{}, base...), args...)...)
	if code != 0 {
		t.Fatalf("%v: exit %d: %s", args, code, errs)
	}
	if err := json.Unmarshal([]byte(out), v); err != nil {
		t.Fatalf("%v: %v", args, err)
	}
}

// proseBytes is the size of every sentence of the mined texts that the
// smelter does not read as code (`formation smelt --sentences`).
func proseBytes(t *testing.T, base []string) int {
	t.Helper()
	code, out, errs := run(t, "", append(append([]string{}, base...), "--json", "smelt", "--sentences", "realdoc")...)
	if code != 0 {
		t.Fatalf("smelt --sentences: exit %d: %s", code, errs)
	}
	n := 0
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var s struct {
			Start, End int
			Reason     string
		}
		if err := json.Unmarshal(sc.Bytes(), &s); err != nil {
			t.Fatal(err)
		}
		if s.Reason != "code" {
			n += s.End - s.Start
		}
	}
	return n
}

func total(m map[string]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}

// validated returns the validated relations as "head|relation|tail" and the
// validated concepts' terms.
func validated(vts artifact.ValidatedTripleSet) (map[string]bool, map[string]bool) {
	rels, concepts := map[string]bool{}, map[string]bool{}
	for _, r := range vts.Relations {
		if r.State == artifact.StateValidated {
			rels[r.Head+"|"+r.Relation+"|"+r.Tail] = true
		}
	}
	for _, c := range vts.Concepts {
		if c.State == artifact.StateValidated {
			concepts[c.CanonicalTerm] = true
		}
	}
	return rels, concepts
}

// askSteps returns the utterances of the run's introduce_relation and
// seed_concept steps, and checks that every validated relation and concept
// has its step.
func askSteps(t *testing.T, record artifact.RunRecord, rels, concepts map[string]bool) (relSteps, conceptSteps []string) {
	t.Helper()
	if len(record.Runs) == 0 {
		t.Fatal("run record without runs")
	}
	seenRel, seenConcept := map[string]bool{}, map[string]bool{}
	for _, r := range record.Runs[0].Results {
		p := func(k string) string { s, _ := r.Payload[k].(string); return s }
		switch r.StepType {
		case "introduce_relation":
			seenRel[p("head")+"|"+p("relation")+"|"+p("tail")] = true
			relSteps = append(relSteps, p("utterance"))
		case "seed_concept":
			seenConcept[p("canonical_term")] = true
			conceptSteps = append(conceptSteps, p("utterance"))
		}
	}
	for k := range rels {
		if !seenRel[k] {
			t.Errorf("validated relation %s has no introduce_relation step", k)
		}
	}
	for k := range concepts {
		if !seenConcept[k] {
			t.Errorf("validated concept %q has no seed_concept step", k)
		}
	}
	return relSteps, conceptSteps
}

// askAll asks every question through `formation ask --json` on the promoted
// knowledge and requires the answer kind want for each.
func askAll(t *testing.T, base []string, what string, questions []string, want string) {
	t.Helper()
	kinds := map[string]int{}
	var failed []string
	for _, q := range questions {
		code, out, errs := run(t, "", append(append([]string{}, base...), "--json", "ask", q)...)
		var r struct {
			Kind          string `json:"kind"`
			RefusalReason string `json:"refusal_reason"`
		}
		if code != 0 || json.Unmarshal([]byte(out), &r) != nil {
			t.Fatalf("ask %q: exit %d: %s", q, code, errs)
		}
		kinds[r.Kind]++
		if r.Kind != want {
			failed = append(failed, fmt.Sprintf("%q → %s %s", q, r.Kind, r.RefusalReason))
		}
	}
	ok := len(questions) - len(failed)
	t.Logf("asked back %d %s: %d (%.1f%%) answered %s; kinds %v", len(questions), what, ok, 100*float64(ok)/float64(max(len(questions), 1)), want, kinds)
	for _, f := range failed {
		t.Errorf("%s: %s", what, f)
	}
}
