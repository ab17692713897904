package courses

import (
	"fmt"
	"strings"
)

// Reason codes carried by Problem.Code. They are stable strings: audit
// records and tests key on them.
const (
	CodeRead              = "read_failed"             // the file could not be read
	CodeTooLarge          = "too_large"               // the file exceeds its size limit
	CodeYAMLSyntax        = "yaml_syntax"             // not parseable YAML
	CodeYAMLMultiDoc      = "yaml_multiple_documents" // more than one YAML document
	CodeYAMLAlias         = "yaml_alias"              // anchors, aliases and merge keys are refused
	CodeYAMLTag           = "yaml_tag"                // an explicit or unsupported tag (!!binary, !custom)
	CodeYAMLFloat         = "yaml_float"              // floats never enter hashed artifacts
	CodeDuplicateKey      = "duplicate_key"           // a mapping key given twice
	CodeSchema            = "schema"                  // unknown field, wrong type
	CodeMissing           = "missing_field"           // a required field is absent or empty
	CodeNotAllowed        = "field_not_allowed"       // a field the source's adapter does not take
	CodeBadSubjectID      = "bad_subject_id"
	CodeBadID             = "bad_id" // a source, question, domain or lane id
	CodeDuplicateID       = "duplicate_id"
	CodeBadAdapter        = "bad_adapter"
	CodeBadFormat         = "bad_format"
	CodeBadTime           = "bad_time"   // not YYYY-MM-DDTHH:MM:SSZ
	CodeBadSHA256         = "bad_sha256" // not 64 lowercase hex
	CodeBadURL            = "bad_url"
	CodeBadTemplate       = "bad_template"
	CodeBadExtractor      = "bad_extractor" // not a smelter this build has
	CodeBadLimit          = "bad_limit"
	CodeBadSchemaVersion  = "bad_schema_version"
	CodeBadModel          = "bad_model"
	CodeBadKind           = "bad_kind"           // question kind
	CodeBadExpect         = "bad_expect"         // question expectation does not fit its kind
	CodeBadRelation       = "bad_relation"       // not a relation of the vocabulary, or a declared name not of the form [a-z]+(_[a-z]+)*
	CodeDuplicateRelation = "duplicate_relation" // a declared relation listed twice or one of the original 17
	CodeBadSplit          = "bad_split"
	CodeUnknownSubject    = "unknown_subject"
	CodeBadText           = "bad_text" // empty or non-UTF-8 text where text is required
)

// Problem is one thing wrong with a file.
type Problem struct {
	Field  string // where: "sources[2].path", "line 4", ""
	Source string // the source id the problem is about, when there is one
	Code   string // one of the Code* reason codes
	Detail string // human-readable detail
}

func (p Problem) String() string {
	var b strings.Builder
	if p.Field != "" {
		b.WriteString(p.Field)
		b.WriteString(": ")
	}
	b.WriteString(p.Code)
	if p.Detail != "" {
		b.WriteString(": ")
		b.WriteString(p.Detail)
	}
	return b.String()
}

// ValidationError lists every problem found in one file.
type ValidationError struct {
	File     string // the file's name relative to the folder it was loaded from
	Problems []Problem
}

func (e *ValidationError) Error() string {
	parts := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		parts[i] = p.String()
	}
	return fmt.Sprintf("courses: %s rejected (%d problem(s)): %s", e.File, len(e.Problems), strings.Join(parts, "; "))
}

// Has reports whether the error lists a problem with the given code.
func (e *ValidationError) Has(code string) bool {
	for _, p := range e.Problems {
		if p.Code == code {
			return true
		}
	}
	return false
}

// problems accumulates Problems while a file is checked.
type problems []Problem

func (ps *problems) add(field, source, code, format string, args ...any) {
	*ps = append(*ps, Problem{Field: field, Source: source, Code: code, Detail: fmt.Sprintf(format, args...)})
}

// err returns nil when nothing was found, or the ValidationError for file.
func (ps problems) err(file string) error {
	if len(ps) == 0 {
		return nil
	}
	return &ValidationError{File: file, Problems: ps}
}
