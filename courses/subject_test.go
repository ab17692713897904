package courses

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const validSubject = `subject_id: optics
title: Elementary optics
target_depth: introductory
requires_courses: []
anti_requisites: []
identity_axis_constraints: []
template: definition
retrieved_at: 2026-05-16T00:00:00Z
issued_at: "2026-05-20T00:00:00Z"
limits:
  max_file_bytes: 65536
sources:
  - id: light
    adapter: file
    path: sources/light.md
    citation: Notes on light
  - id: notes
    adapter: folder
    path: sources/notes
    max_files: 50
  - id: glossary
    adapter: table
    path: sources/glossary.parquet
    text_column: text
    id_column: id
  - id: wiki-lens
    adapter: snapshot
    url: https://example.org/wiki/Lens?oldid=42
    sha256: 0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef
    path: snapshots/lens.html
    retrieved_at: 2026-05-01T12:00:00Z
  - id: ideas
    adapter: llm
    model: demo-model-1
    prompt: prompts/ideas.txt
    path: llm/ideas.txt
`

func TestParseValidSubject(t *testing.T) {
	s, err := Parse([]byte(validSubject))
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	if s.SubjectID != "optics" || s.Template != "definition" || len(s.Sources) != 5 {
		t.Fatalf("unexpected subject %+v", s)
	}
	if s.SchemaVersion != "1.0.0" {
		t.Errorf("schema_version defaults to 1.0.0, got %q", s.SchemaVersion)
	}
	// An unquoted timestamp stays the exact text written, never a parsed time.
	if s.RetrievedAt != "2026-05-16T00:00:00Z" {
		t.Errorf("retrieved_at = %q", s.RetrievedAt)
	}
	snap, _ := s.Source("wiki-lens")
	if got := s.RetrievedAtOf(snap); got != "2026-05-01T12:00:00Z" {
		t.Errorf("source retrieved_at override: %q", got)
	}
	light, _ := s.Source("light")
	if got := s.RetrievedAtOf(light); got != s.RetrievedAt {
		t.Errorf("source inherits retrieved_at: %q", got)
	}
	if lim := s.LimitsOf(light); lim.MaxFileBytes != 65536 || lim.MaxFiles != DefaultMaxFiles || lim.MaxRows != DefaultMaxRows {
		t.Errorf("limits of light: %+v", lim)
	}
	notes, _ := s.Source("notes")
	if lim := s.LimitsOf(notes); lim.MaxFiles != 50 {
		t.Errorf("per-source max_files: %+v", lim)
	}
	if f, ok := FormatOf(light); !ok || f != FormatMarkdown {
		t.Errorf("FormatOf(light) = %q, %v", f, ok)
	}
	glossary, _ := s.Source("glossary")
	if f, ok := FormatOf(glossary); !ok || f != FormatParquet {
		t.Errorf("FormatOf(glossary) = %q, %v", f, ok)
	}
	spec := s.Spec()
	if spec.SubjectID != "optics" || spec.RequiresCourses == nil || spec.SchemaVersion != "1.0.0" {
		t.Errorf("spec: %+v", spec)
	}
	d1, err := s.Digest()
	if err != nil || len(d1) != 64 {
		t.Fatalf("Digest: %q %v", d1, err)
	}
	s2, _ := Parse([]byte(strings.Replace(validSubject, "Notes on light", "Notes on light!", 1)))
	if d2, _ := s2.Digest(); d2 == d1 {
		t.Error("a changed citation must change the subject digest")
	}
}

// wantProblem parses data and requires a ValidationError carrying code.
func wantProblem(t *testing.T, data, code string) *ValidationError {
	t.Helper()
	_, err := Parse([]byte(data))
	var ve *ValidationError
	if !errors.As(err, &ve) {
		t.Fatalf("want a *ValidationError with %s, got %v", code, err)
	}
	if !ve.Has(code) {
		t.Fatalf("want problem %s, got %v", code, ve)
	}
	return ve
}

func TestParseRefusals(t *testing.T) {
	replace := func(old, new string) string {
		if !strings.Contains(validSubject, old) {
			t.Fatalf("fixture lacks %q", old)
		}
		return strings.Replace(validSubject, old, new, 1)
	}
	cases := []struct {
		name, data, code string
	}{
		{"duplicate key", replace("title: Elementary optics\n", "title: Elementary optics\ntitle: again\n"), CodeDuplicateKey},
		{"unknown field", replace("template: definition\n", "template: definition\ncolour: blue\n"), CodeSchema},
		{"float", replace("max_file_bytes: 65536", "max_file_bytes: 1.5"), CodeYAMLFloat},
		{"alias", replace("title: Elementary optics", "title: &t Elementary optics\ntarget_depth2: *t"), CodeYAMLAlias},
		{"binary tag", replace("title: Elementary optics", "title: !!binary aGk="), CodeYAMLTag},
		{"custom tag", replace("title: Elementary optics", "title: !shout hi"), CodeYAMLTag},
		{"two documents", validSubject + "---\nsubject_id: other\n", CodeYAMLMultiDoc},
		{"syntax", "subject_id: [unclosed\n", CodeYAMLSyntax},
		{"empty", "", CodeYAMLSyntax},
		{"subject id dotdot", replace("subject_id: optics", "subject_id: a..b"), CodeBadSubjectID},
		{"subject id leading dot", replace("subject_id: optics", "subject_id: .optics"), CodeBadSubjectID},
		{"subject id slash", replace("subject_id: optics", "subject_id: a/b"), CodeBadSubjectID},
		{"template", replace("template: definition", "template: essay"), CodeBadTemplate},
		{"retrieved_at", replace("retrieved_at: 2026-05-16T00:00:00Z", "retrieved_at: 2026-05-16"), CodeBadTime},
		{"issued_at", replace(`issued_at: "2026-05-20T00:00:00Z"`, `issued_at: "2026-13-20T00:00:00Z"`), CodeBadTime},
		{"negative limit", replace("max_file_bytes: 65536", "max_file_bytes: -1"), CodeBadLimit},
		{"limit above ceiling", replace("max_file_bytes: 65536", "max_file_bytes: 999999999999"), CodeBadLimit},
		{"adapter", replace("adapter: file", "adapter: ftp"), CodeBadAdapter},
		{"missing path", replace("    path: sources/light.md\n", ""), CodeMissing},
		{"field not allowed", replace("    citation: Notes on light\n", "    citation: Notes on light\n    sha256: 0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef\n"), CodeNotAllowed},
		{"duplicate source id", replace("id: notes", "id: light"), CodeDuplicateID},
		{"bad source id", replace("id: notes", "id: ../notes"), CodeBadID},
		{"bad sha256", replace("sha256: 0123456789abcdef", "sha256: 0123456789ABCDEF"), CodeBadSHA256},
		{"bad url scheme", replace("https://example.org", "ftp://example.org"), CodeBadURL},
		{"url credentials", replace("https://example.org", "https://user:pw@example.org"), CodeBadURL},
		{"bad model", replace("model: demo-model-1", "model: vendor/model"), CodeBadModel},
		{"format for adapter", replace("    citation: Notes on light\n", "    citation: Notes on light\n    format: parquet\n"), CodeBadFormat},
		{"unknown extension", replace("path: sources/light.md", "path: sources/light.docx"), CodeBadFormat},
		{"same columns", replace("id_column: id", "id_column: text"), CodeSchema},
		{"control char in title", replace("title: Elementary optics", `title: "Elementary\u0007optics"`), CodeBadText},
		{"no sources", strings.Split(validSubject, "sources:")[0], CodeMissing},
		{"wrong schema version", "schema_version: \"2.0.0\"\n" + validSubject, CodeBadSchemaVersion},
		{"relation with spaces", validSubject + "relations: [is part of]\n", CodeBadRelation},
		{"relation in capitals", validSubject + "relations: [Defines]\n", CodeBadRelation},
		{"relation with a digit", validSubject + "relations: [has2]\n", CodeBadRelation},
		{"empty relation", validSubject + "relations: [\"\"]\n", CodeBadRelation},
		{"relation not a string", validSubject + "relations: [[defines]]\n", CodeSchema},
		{"relation of the 17", validSubject + "relations: [defines, belongs_to]\n", CodeDuplicateRelation},
		{"relation twice", validSubject + "relations: [defines, provides, defines]\n", CodeDuplicateRelation},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { wantProblem(t, c.data, c.code) })
	}
}

// Declared relations load in any order, rank after the 17, and leave the
// digest of a subject that declares none unchanged (the field is omitted).
func TestDeclaredRelations(t *testing.T) {
	s, err := Parse([]byte(validSubject + "relations:\n  - provides\n  - is_part_of\n  - defines\n"))
	if err != nil {
		t.Fatal(err)
	}
	v := s.Vocabulary()
	if got := v.Declared(); strings.Join(got, ",") != "defines,is_part_of,provides" {
		t.Fatalf("declared %v", got)
	}
	if rels := v.Relations(); rels[17] != "is_part_of" || len(rels) != 20 {
		t.Fatalf("vocabulary %v", rels)
	}
	plain, err := Parse([]byte(validSubject))
	if err != nil {
		t.Fatal(err)
	}
	empty, err := Parse([]byte(validSubject + "relations: []\n"))
	if err != nil {
		t.Fatal(err)
	}
	c1, _ := plain.Canonical()
	c2, _ := empty.Canonical()
	if string(c1) != string(c2) || strings.Contains(string(c1), "relations") {
		t.Fatalf("an empty declaration changes the canonical subject:\n%s\n%s", c1, c2)
	}
	c3, _ := s.Canonical()
	if !strings.Contains(string(c3), `"relations":["provides","is_part_of","defines"]`) {
		t.Fatalf("declared relations missing from the canonical subject: %s", c3)
	}
	if len(plain.Vocabulary().Relations()) != 17 {
		t.Fatal("a subject without a declaration has more than the 17")
	}
}

func TestParseReportsEveryProblem(t *testing.T) {
	data := strings.NewReplacer("template: definition", "template: essay", "adapter: ftp", "", "id: notes", "id: light",
		"retrieved_at: 2026-05-16T00:00:00Z", "retrieved_at: yesterday").Replace(validSubject)
	ve := wantProblem(t, data, CodeBadTemplate)
	for _, code := range []string{CodeDuplicateID, CodeBadTime} {
		if !ve.Has(code) {
			t.Errorf("missing %s in %v", code, ve)
		}
	}
	for _, p := range ve.Problems {
		if p.Code == CodeDuplicateID && p.Source != "light" {
			t.Errorf("a source problem names its source: %+v", p)
		}
	}
}

func TestLoad(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	dir := filepath.Join(root, "optics")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, SubjectFile), []byte(validSubject), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := Load(ctx, dir)
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	if s.Dir != dir {
		t.Errorf("Dir = %q", s.Dir)
	}

	other := filepath.Join(root, "photography")
	if err := os.Mkdir(other, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(other, SubjectFile), []byte(validSubject), 0o644); err != nil {
		t.Fatal(err)
	}
	var ve *ValidationError
	if _, err := Load(ctx, other); !errors.As(err, &ve) || !ve.Has(CodeBadSubjectID) {
		t.Errorf("folder name must equal subject_id: %v", err)
	}

	linked := filepath.Join(root, "linked")
	if err := os.Mkdir(linked, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(dir, SubjectFile), filepath.Join(linked, SubjectFile)); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(ctx, linked); !errors.As(err, &ve) || !ve.Has(CodeRead) {
		t.Errorf("a symlinked subject.yaml is refused: %v", err)
	}

	big := filepath.Join(root, "big")
	if err := os.Mkdir(big, 0o755); err != nil {
		t.Fatal(err)
	}
	huge := validSubject + "# " + strings.Repeat("x", MaxSubjectFileBytes) + "\n"
	if err := os.WriteFile(filepath.Join(big, SubjectFile), []byte(huge), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(ctx, big); !errors.As(err, &ve) || !ve.Has(CodeTooLarge) {
		t.Errorf("an oversized subject.yaml is refused: %v", err)
	}
}

func TestCheckRelPath(t *testing.T) {
	ok := []string{"sources/a.md", "a.txt", "deep/er/x.html", "with space/ü.md"}
	for _, p := range ok {
		if err := CheckRelPath(p); err != nil {
			t.Errorf("CheckRelPath(%q) = %v", p, err)
		}
	}
	refused := map[string]string{
		"":                CodeBadPath,
		"/etc/passwd":     CodePathEscapes,
		"../x.md":         CodePathEscapes,
		"sources/../../x": CodePathEscapes,
		"C:/x.md":         CodePathEscapes,
		"a\\b.md":         CodeBadPath,
		"./a.md":          CodeBadPath,
		"a//b.md":         CodeBadPath,
		"a/":              CodeBadPath,
		"a\x00b":          CodeBadPath,
		"\xff.md":         CodeBadPath,
	}
	for p, code := range refused {
		var pe *PathError
		if err := CheckRelPath(p); !errors.As(err, &pe) || pe.Code != code {
			t.Errorf("CheckRelPath(%q) = %v, want %s", p, err, code)
		}
	}
}

func TestValidTimeAndSHA(t *testing.T) {
	for _, s := range []string{"2026-05-16T00:00:00Z", "1999-12-31T23:59:59Z"} {
		if !ValidTime(s) {
			t.Errorf("ValidTime(%q) = false", s)
		}
	}
	for _, s := range []string{"2026-05-16T00:00:00", "2026-05-16 00:00:00Z", "2026-00-16T00:00:00Z", "2026-05-16T24:00:00Z", "2026-05-16T00:00:00.5Z", "２026-05-16T00:00:00Z"} {
		if ValidTime(s) {
			t.Errorf("ValidTime(%q) = true", s)
		}
	}
	if !ValidSHA256(strings.Repeat("a", 64)) || ValidSHA256(strings.Repeat("A", 64)) || ValidSHA256(strings.Repeat("a", 63)) {
		t.Error("ValidSHA256 disagrees with 64 lowercase hex")
	}
}

// TestExtractorPin: a subject may pin a smelter by id; without the field it
// gets the default and its digest is the one it had before the field
// existed; an unknown smelter is refused with bad_extractor.
func TestExtractorPin(t *testing.T) {
	plain, err := Parse([]byte(validSubject))
	if err != nil {
		t.Fatal(err)
	}
	if plain.ExtractorOf() != DefaultExtractor || plain.Extractor != "" {
		t.Fatalf("no pin: extractor %q, want the default %q", plain.ExtractorOf(), DefaultExtractor)
	}
	canonical, err := plain.Canonical()
	if err != nil || strings.Contains(string(canonical), "extractor") {
		t.Fatalf("an unpinned subject must not carry the field (digests stay as they were): %s %v", canonical, err)
	}
	pinned, err := Parse([]byte(strings.Replace(validSubject, "template: definition\n", "template: definition\nextractor: smelter/pattern_v2\n", 1)))
	if err != nil {
		t.Fatal(err)
	}
	if pinned.ExtractorOf() != "smelter/pattern_v2" {
		t.Fatalf("pinned extractor %q", pinned.ExtractorOf())
	}
	if d1, _ := plain.Digest(); func() string { d2, _ := pinned.Digest(); return d2 }() == d1 {
		t.Fatal("the pin must change the subject's digest")
	}
	_, err = Parse([]byte(strings.Replace(validSubject, "template: definition\n", "template: definition\nextractor: smelter/regex_v9\n", 1)))
	var ve *ValidationError
	if !errors.As(err, &ve) || len(ve.Problems) != 1 || ve.Problems[0].Code != CodeBadExtractor || ve.Problems[0].Field != "extractor" {
		t.Fatalf("an unknown extractor must be refused with %s, got %v", CodeBadExtractor, err)
	}
}
