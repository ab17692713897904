package mining

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
)

// Refusal reason codes. They are stable: audit records and tests key on
// them. Path codes come from courses (CodePathEscapes, CodeBadPath).
const (
	CodePathEscapes    = "path_escapes"       // absolute, or ".." out of the subject folder
	CodeBadPath        = "bad_path"           // empty, unclean or non-UTF-8 path or file name
	CodeSymlink        = "symlink"            // a symlink on the path, or the file changed while opened
	CodeNotRegular     = "not_regular"        // a device, FIFO, socket; or a folder where a file was expected
	CodeMissing        = "missing"            // the path does not exist
	CodeUnreadable     = "unreadable"         // permission denied
	CodeTooLarge       = "too_large"          // a file, prompt or generated text over its byte limit
	CodeTooManyFiles   = "too_many_files"     // a folder with more files than max_files
	CodeTooManyRows    = "too_many_rows"      // a table with more rows than max_rows
	CodeUnsupported    = "unsupported_format" // a file whose format cannot be told or is not supported
	CodeInvalidUTF8    = "invalid_utf8"       // text that is not UTF-8
	CodeSnapshotHash   = "snapshot_mismatch"  // a snapshot whose bytes do not hash to the pinned SHA-256
	CodeTableSchema    = "table_schema"       // a missing, repeated or wrongly typed column
	CodeTableCorrupt   = "table_corrupt"      // an Arrow or Parquet file that cannot be read
	CodeTableNull      = "table_null"         // a null id or text
	CodeDuplicateRowID = "duplicate_row_id"   // two rows with the same id
	CodeDuplicateEntry = "duplicate_entry"    // two sources yield the same entry (the same file twice)
	CodeLLMDisabled    = "llm_disabled"       // an llm source while LLM sources are off
	CodeLLMFailed      = "llm_failed"         // the LLM provider failed for this source
)

// Refusal is one refused source (or one refused file of a folder source).
type Refusal struct {
	SourceID string // the source's id in subject.yaml
	Path     string // the file (subject-relative, '/'-separated) or URL concerned; may be ""
	Code     string // a reason code above
	Detail   string
}

func (r Refusal) String() string {
	var b strings.Builder
	b.WriteString(r.SourceID)
	if r.Path != "" {
		b.WriteString(" (")
		b.WriteString(r.Path)
		b.WriteString(")")
	}
	b.WriteString(": ")
	b.WriteString(r.Code)
	if r.Detail != "" {
		b.WriteString(": ")
		b.WriteString(r.Detail)
	}
	return b.String()
}

// RefusedError halts a mine: it names every refused source. No bundle is
// produced when it is returned.
type RefusedError struct {
	SubjectID string
	Refusals  []Refusal // sorted by source id, path, code, detail
}

func (e *RefusedError) Error() string {
	const shown = 5
	parts := make([]string, 0, shown)
	for i, r := range e.Refusals {
		if i == shown {
			parts = append(parts, fmt.Sprintf("and %d more", len(e.Refusals)-shown))
			break
		}
		parts = append(parts, r.String())
	}
	return fmt.Sprintf("mining: subject %s: %d source(s) refused: %s", e.SubjectID, len(e.Refusals), strings.Join(parts, "; "))
}

// Codes returns the distinct reason codes of the refusals, sorted.
func (e *RefusedError) Codes() []string {
	var codes []string
	for _, r := range e.Refusals {
		codes = append(codes, r.Code)
	}
	slices.Sort(codes)
	return slices.Compact(codes)
}

func sortRefusals(rs []Refusal) {
	slices.SortFunc(rs, func(a, b Refusal) int {
		return cmp.Or(cmp.Compare(a.SourceID, b.SourceID), cmp.Compare(a.Path, b.Path),
			cmp.Compare(a.Code, b.Code), cmp.Compare(a.Detail, b.Detail))
	})
}

// refusal is the internal error a reader returns for bad input; the worker
// turns it into a Refusal with the source named.
type refusal struct {
	code   string
	detail string
}

func (r *refusal) Error() string { return r.code + ": " + r.detail }

func refuse(code, format string, args ...any) error {
	return &refusal{code: code, detail: fmt.Sprintf(format, args...)}
}
