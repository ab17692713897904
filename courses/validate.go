package courses

import (
	"fmt"
	"net/url"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"formation/artifact"
	"formation/relparse"
)

// validate checks everything subject.yaml can get wrong on its own and
// returns every problem, not just the first.
func (s *Subject) validate() problems {
	var ps problems
	if s.SchemaVersion != artifact.SchemaVersion {
		ps.add("schema_version", "", CodeBadSchemaVersion, "want %q, got %q", artifact.SchemaVersion, s.SchemaVersion)
	}
	if err := ValidSubjectID(s.SubjectID); err != nil {
		ps.add("subject_id", "", CodeBadSubjectID, "%v", err)
	}
	checkText(&ps, "title", s.Title, false)
	checkText(&ps, "target_depth", s.TargetDepth, false)
	checkList(&ps, "requires_courses", s.RequiresCourses)
	checkList(&ps, "anti_requisites", s.AntiRequisites)
	checkList(&ps, "identity_axis_constraints", s.IdentityAxisConstraints)
	if !validTemplate(s.Template) {
		ps.add("template", "", CodeBadTemplate, "%q is not one of %s", s.Template, strings.Join(Templates(), ", "))
	}
	if s.Extractor != "" && !slices.Contains(Extractors(), s.Extractor) {
		ps.add("extractor", "", CodeBadExtractor, "%q is not one of %s", s.Extractor, strings.Join(Extractors(), ", "))
	}
	if !ValidTime(s.RetrievedAt) {
		ps.add("retrieved_at", "", CodeBadTime, "%q is not YYYY-MM-DDTHH:MM:SSZ", s.RetrievedAt)
	}
	if s.IssuedAt != "" && !ValidTime(s.IssuedAt) {
		ps.add("issued_at", "", CodeBadTime, "%q is not YYYY-MM-DDTHH:MM:SSZ", s.IssuedAt)
	}
	checkLimit(&ps, "limits.max_file_bytes", "", s.Limits.MaxFileBytes, CeilingMaxFileBytes)
	checkLimit(&ps, "limits.max_files", "", s.Limits.MaxFiles, 0)
	checkLimit(&ps, "limits.max_rows", "", s.Limits.MaxRows, 0)
	if len(s.Sources) == 0 {
		ps.add("sources", "", CodeMissing, "a subject needs at least one source")
	}
	checkRelations(&ps, s.Relations)
	seen := make(map[string]int, len(s.Sources))
	for i, src := range s.Sources {
		at := fmt.Sprintf("sources[%d]", i)
		if first, dup := seen[src.ID]; dup && src.ID != "" {
			ps.add(at+".id", src.ID, CodeDuplicateID, "source id %q already used by sources[%d]", src.ID, first)
		}
		seen[src.ID] = i
		src.validate(&ps, at)
	}
	return ps
}

// checkRelations checks the declared relations: each is lower-case words
// joined by '_' (bad_relation), declared once and not one of the original's
// 17 (duplicate_relation).
func checkRelations(ps *problems, rels []string) {
	seen := make(map[string]int, len(rels))
	for i, r := range rels {
		at := fmt.Sprintf("relations[%d]", i)
		first, dup := seen[r]
		switch {
		case !relparse.ValidRelationName(r):
			ps.add(at, "", CodeBadRelation, "%q is not lower-case words joined by '_' ([a-z]+(_[a-z]+)*)", r)
		case relparse.IsRelation(r):
			ps.add(at, "", CodeDuplicateRelation, "%q is one of the original 17 relations already", r)
		case dup:
			ps.add(at, "", CodeDuplicateRelation, "%q is already declared as relations[%d]", r, first)
		}
		if !dup {
			seen[r] = i
		}
	}
}

// checkText refuses control characters and invalid UTF-8 in a free-text
// field; required fields must also be non-blank.
func checkText(ps *problems, field, v string, required bool) {
	switch {
	case required && strings.TrimSpace(v) == "":
		ps.add(field, "", CodeMissing, "required")
	case !printable(v):
		ps.add(field, "", CodeBadText, "must be valid UTF-8 without control characters")
	}
}

func checkList(ps *problems, field string, list []string) {
	for i, v := range list {
		checkText(ps, fmt.Sprintf("%s[%d]", field, i), v, true)
	}
}

// checkLimit refuses negative limits and, when ceiling > 0, limits above it.
func checkLimit(ps *problems, field, source string, v, ceiling int64) {
	switch {
	case v < 0:
		ps.add(field, source, CodeBadLimit, "must be positive, got %d", v)
	case ceiling > 0 && v > ceiling:
		ps.add(field, source, CodeBadLimit, "%d exceeds the ceiling %d", v, ceiling)
	}
}

type fieldState struct {
	name string
	set  bool
}

// fieldSet says, in a fixed order, which adapter-specific fields a source
// has set, for the per-adapter "required" and "not allowed" checks.
func (src Source) fieldSet() []fieldState {
	return []fieldState{
		{"path", src.Path != ""},
		{"format", src.Format != ""},
		{"url", src.URL != ""},
		{"sha256", src.SHA256 != ""},
		{"text_column", src.TextColumn != ""},
		{"id_column", src.IDColumn != ""},
		{"model", src.Model != ""},
		{"prompt", src.Prompt != ""},
		{"max_files", src.MaxFiles != 0},
		{"max_rows", src.MaxRows != 0},
	}
}

// adapterFields lists, per adapter, the adapter-specific fields it requires
// and those it merely allows. id, adapter, citation, retrieved_at and
// max_bytes are common to all.
func adapterFields(adapter string) (required, optional []string, ok bool) {
	switch adapter {
	case AdapterFile:
		return []string{"path"}, []string{"format"}, true
	case AdapterFolder:
		return []string{"path"}, []string{"max_files"}, true
	case AdapterTable:
		return []string{"path", "text_column", "id_column"}, []string{"format", "max_rows"}, true
	case AdapterSnapshot:
		return []string{"path", "url", "sha256"}, []string{"format"}, true
	case AdapterLLM:
		return []string{"model", "prompt"}, []string{"path"}, true
	case AdapterProposals:
		return nil, nil, true
	}
	return nil, nil, false
}

func (src Source) validate(ps *problems, at string) {
	id := src.ID
	if err := ValidSubjectID(id); err != nil {
		ps.add(at+".id", id, CodeBadID, "source id: %v", err)
	}
	required, optional, ok := adapterFields(src.Adapter)
	if !ok {
		ps.add(at+".adapter", id, CodeBadAdapter, "%q is not one of file, folder, table, snapshot, llm, proposals", src.Adapter)
		return
	}
	for _, f := range src.fieldSet() {
		switch {
		case slices.Contains(required, f.name) && !f.set:
			ps.add(at+"."+f.name, id, CodeMissing, "adapter %s needs %s", src.Adapter, f.name)
		case f.set && !slices.Contains(required, f.name) && !slices.Contains(optional, f.name):
			ps.add(at+"."+f.name, id, CodeNotAllowed, "adapter %s does not take %s", src.Adapter, f.name)
		}
	}
	src.validateValues(ps, at)
}

// validateValues checks the values of the fields that are set.
func (src Source) validateValues(ps *problems, at string) {
	id := src.ID
	if src.Format != "" && !validFormatFor(src.Adapter, src.Format) {
		ps.add(at+".format", id, CodeBadFormat, "format %q does not fit adapter %s", src.Format, src.Adapter)
	}
	if src.Format == "" && src.Path != "" && (src.Adapter == AdapterFile || src.Adapter == AdapterSnapshot || src.Adapter == AdapterTable) {
		if _, ok := FormatOf(src); !ok {
			ps.add(at+".path", id, CodeBadFormat, "cannot tell the format of %q from its extension; set format", src.Path)
		}
	}
	if src.SHA256 != "" && !ValidSHA256(src.SHA256) {
		ps.add(at+".sha256", id, CodeBadSHA256, "%q is not 64 lowercase hex characters", src.SHA256)
	}
	if src.URL != "" {
		if err := checkURL(src.URL); err != nil {
			ps.add(at+".url", id, CodeBadURL, "%v", err)
		}
	}
	if src.Model != "" && !validModel(src.Model) {
		ps.add(at+".model", id, CodeBadModel, "%q: use [A-Za-z0-9._:-]", src.Model)
	}
	for _, col := range []fieldValue{{"text_column", src.TextColumn}, {"id_column", src.IDColumn}} {
		if col.value != "" && !printable(col.value) {
			ps.add(at+"."+col.name, id, CodeSchema, "column name must be printable UTF-8")
		}
	}
	if src.TextColumn != "" && src.TextColumn == src.IDColumn {
		ps.add(at+".id_column", id, CodeSchema, "the id column and the text column must differ")
	}
	if src.RetrievedAt != "" && !ValidTime(src.RetrievedAt) {
		ps.add(at+".retrieved_at", id, CodeBadTime, "%q is not YYYY-MM-DDTHH:MM:SSZ", src.RetrievedAt)
	}
	if !printable(src.Citation) {
		ps.add(at+".citation", id, CodeBadText, "citation must be printable UTF-8")
	}
	checkLimit(ps, at+".max_bytes", id, src.MaxBytes, CeilingMaxFileBytes)
	checkLimit(ps, at+".max_files", id, src.MaxFiles, 0)
	checkLimit(ps, at+".max_rows", id, src.MaxRows, 0)
}

type fieldValue struct{ name, value string }

// printable reports whether v is valid UTF-8 without control characters.
func printable(v string) bool {
	return utf8.ValidString(v) && strings.IndexFunc(v, unicode.IsControl) < 0
}

// checkURL accepts an absolute http(s) URL without credentials: a snapshot
// names where its bytes came from, and secrets must never reach artifacts.
func checkURL(raw string) error {
	u, err := url.Parse(raw)
	if err != nil {
		return fmt.Errorf("not a URL: %v", err)
	}
	switch {
	case u.Scheme != "http" && u.Scheme != "https":
		return fmt.Errorf("scheme %q: want http or https", u.Scheme)
	case u.Host == "":
		return fmt.Errorf("no host")
	case u.User != nil:
		return fmt.Errorf("credentials are not allowed in URLs")
	case strings.IndexFunc(raw, func(r rune) bool { return unicode.IsControl(r) || unicode.IsSpace(r) }) >= 0:
		return fmt.Errorf("spaces and control characters are not allowed")
	}
	return nil
}
