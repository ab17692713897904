package courses

import (
	"context"
	"fmt"
	"path"
	"path/filepath"
	"strings"

	"formation/artifact"
	"formation/canon"
	"formation/relparse"
)

// SubjectFile is the name of the subject file inside a subject folder.
const SubjectFile = "subject.yaml"

// MaxSubjectFileBytes bounds subject.yaml; a real one is a few kilobytes.
const MaxSubjectFileBytes = 1 << 20

// Source adapters.
const (
	AdapterFile     = "file"     // one text, Markdown or HTML file
	AdapterFolder   = "folder"   // every file below a folder, recursively
	AdapterTable    = "table"    // an Arrow IPC or Parquet table, one entry per row
	AdapterSnapshot = "snapshot" // a pinned local copy of a URL, checked against its SHA-256
	AdapterLLM      = "llm"      // text an LLM generated; off unless mining enables it
	// AdapterProposals is every teaching proposal a curator accepted, read
	// from the store: each proposal's canonical bytes are one source.
	AdapterProposals = "proposals"
)

// Source formats.
const (
	FormatText     = "text"
	FormatMarkdown = "markdown"
	FormatHTML     = "html"
	FormatArrow    = "arrow"
	FormatParquet  = "parquet"
)

// Templates returns the ids of the five course templates compose knows, the
// only values subject.yaml may name as its template.
func Templates() []string {
	return []string{"definition", "composed_relation", "procedural", "falsification", "identity_anchor"}
}

// Extractors returns the ids of the smelters subject.yaml may pin with
// `extractor:`; smelting.Extractors() names the same ones (a pipeline test
// keeps the two lists equal). Without the field a subject gets the
// smelter's default, DefaultExtractor.
func Extractors() []string {
	return []string{"smelter/pattern_v2", "smelter/pattern_v3"}
}

// DefaultExtractor is the smelter of a subject that pins none.
const DefaultExtractor = "smelter/pattern_v3"

// ExtractorOf returns the smelter the subject pins, or DefaultExtractor.
func (s *Subject) ExtractorOf() string {
	if s.Extractor == "" {
		return DefaultExtractor
	}
	return s.Extractor
}

func validTemplate(t string) bool {
	switch t {
	case "definition", "composed_relation", "procedural", "falsification", "identity_anchor":
		return true
	}
	return false
}

// Default limits, applied when neither the source nor the subject sets one.
// They bound what a single worker holds in memory (one file at a time).
const (
	DefaultMaxFileBytes = 16 << 20
	DefaultMaxFiles     = 1_000_000
	DefaultMaxRows      = 1_000_000
	// CeilingMaxFileBytes is the largest per-file limit a subject may ask for.
	CeilingMaxFileBytes = 256 << 20
)

// Limits bound what mining reads. Zero means "not set here".
type Limits struct {
	MaxFileBytes int64 `yaml:"max_file_bytes" json:"max_file_bytes,omitempty"`
	MaxFiles     int64 `yaml:"max_files" json:"max_files,omitempty"`
	MaxRows      int64 `yaml:"max_rows" json:"max_rows,omitempty"`
}

// Source is one entry of the source list. Which fields apply depends on the
// adapter (README.md has the table); validation refuses the others.
type Source struct {
	ID          string `yaml:"id" json:"id"`
	Adapter     string `yaml:"adapter" json:"adapter"`
	Path        string `yaml:"path" json:"path,omitempty"`
	Format      string `yaml:"format" json:"format,omitempty"`
	URL         string `yaml:"url" json:"url,omitempty"`
	SHA256      string `yaml:"sha256" json:"sha256,omitempty"`
	TextColumn  string `yaml:"text_column" json:"text_column,omitempty"`
	IDColumn    string `yaml:"id_column" json:"id_column,omitempty"`
	Model       string `yaml:"model" json:"model,omitempty"`
	Prompt      string `yaml:"prompt" json:"prompt,omitempty"`
	Citation    string `yaml:"citation" json:"citation,omitempty"`
	RetrievedAt string `yaml:"retrieved_at" json:"retrieved_at,omitempty"`
	MaxBytes    int64  `yaml:"max_bytes" json:"max_bytes,omitempty"`
	MaxFiles    int64  `yaml:"max_files" json:"max_files,omitempty"`
	MaxRows     int64  `yaml:"max_rows" json:"max_rows,omitempty"`
}

// Subject is a loaded, validated subject.yaml.
type Subject struct {
	// Dir is the subject folder the file was loaded from ("" after Parse).
	Dir string `yaml:"-" json:"-"`

	SchemaVersion           string   `yaml:"schema_version" json:"schema_version"`
	SubjectID               string   `yaml:"subject_id" json:"subject_id"`
	Title                   string   `yaml:"title" json:"title"`
	TargetDepth             string   `yaml:"target_depth" json:"target_depth"`
	RequiresCourses         []string `yaml:"requires_courses" json:"requires_courses"`
	AntiRequisites          []string `yaml:"anti_requisites" json:"anti_requisites"`
	IdentityAxisConstraints []string `yaml:"identity_axis_constraints" json:"identity_axis_constraints"`
	Template                string   `yaml:"template" json:"template"`
	Extractor               string   `yaml:"extractor" json:"extractor,omitempty"`
	RetrievedAt             string   `yaml:"retrieved_at" json:"retrieved_at"`
	IssuedAt                string   `yaml:"issued_at" json:"issued_at,omitempty"`
	Limits                  Limits   `yaml:"limits" json:"limits"`
	Sources                 []Source `yaml:"sources" json:"sources"`
	// Relations are the relations this subject declares beyond the
	// original's 17 (underscore form, e.g. "defines", "is_part_of"); they
	// rank after the 17. Omitted from the canonical JSON when empty, so a
	// subject that declares none keeps its digest.
	Relations []string `yaml:"relations" json:"relations,omitempty"`
}

// Load reads and validates <dir>/subject.yaml. The folder's name must be
// the subject id, since stores and caches key on the id.
func Load(ctx context.Context, dir string) (*Subject, error) {
	data, err := readLimited(ctx, filepath.Join(dir, SubjectFile), SubjectFile, MaxSubjectFileBytes)
	if err != nil {
		return nil, err
	}
	s, err := Parse(data)
	if err != nil {
		return nil, err
	}
	if base := filepath.Base(filepath.Clean(dir)); base != s.SubjectID {
		return nil, &ValidationError{File: SubjectFile, Problems: []Problem{{
			Field: "subject_id", Code: CodeBadSubjectID,
			Detail: fmt.Sprintf("subject_id %q differs from its folder name %q", s.SubjectID, base),
		}}}
	}
	s.Dir = dir
	return s, nil
}

// Parse decodes and validates the bytes of a subject.yaml. It never reads
// the file system.
func Parse(data []byte) (*Subject, error) {
	if len(data) > MaxSubjectFileBytes {
		return nil, tooLarge(SubjectFile, MaxSubjectFileBytes)
	}
	var s Subject
	if ps := decodeStrictYAML(data, &s); len(ps) > 0 {
		return nil, ps.err(SubjectFile)
	}
	if s.SchemaVersion == "" {
		s.SchemaVersion = artifact.SchemaVersion
	}
	if err := s.validate().err(SubjectFile); err != nil {
		return nil, err
	}
	return &s, nil
}

// Vocabulary is the subject's relation vocabulary: the original's 17 and the
// declared relations. A loaded subject's declaration is valid, so the error
// of relparse.NewVocabulary cannot occur here.
func (s *Subject) Vocabulary() relparse.Vocabulary {
	v, _ := relparse.NewVocabulary(s.Relations)
	return v
}

// Spec returns the SubjectSpec artifact the stages carry.
func (s *Subject) Spec() artifact.SubjectSpec {
	return artifact.SubjectSpec{
		SubjectID:               s.SubjectID,
		Title:                   s.Title,
		TargetDepth:             s.TargetDepth,
		RequiresCourses:         nonNil(s.RequiresCourses),
		AntiRequisites:          nonNil(s.AntiRequisites),
		IdentityAxisConstraints: nonNil(s.IdentityAxisConstraints),
		SchemaVersion:           s.SchemaVersion,
	}
}

// nonNil copies v, never returning nil: artifacts write empty lists as [].
func nonNil(v []string) []string {
	out := make([]string, len(v))
	copy(out, v)
	return out
}

// Canonical returns the canonical JSON of the subject as loaded (Dir
// excluded): what a stage cache key names as "the subject file".
func (s *Subject) Canonical() ([]byte, error) {
	b, err := canon.Marshal(s)
	if err != nil {
		return nil, fmt.Errorf("courses: canonical subject %s: %w", s.SubjectID, err)
	}
	return b, nil
}

// Digest is the SHA-256 of Canonical.
func (s *Subject) Digest() (string, error) {
	d, err := canon.SHA256Hex(s)
	if err != nil {
		return "", fmt.Errorf("courses: digest subject %s: %w", s.SubjectID, err)
	}
	return d, nil
}

// Source returns the source with the given id.
func (s *Subject) Source(id string) (Source, bool) {
	for _, src := range s.Sources {
		if src.ID == id {
			return src, true
		}
	}
	return Source{}, false
}

// RetrievedAtOf is the retrieved_at recorded for src: its own, else the
// subject's. Never the clock.
func (s *Subject) RetrievedAtOf(src Source) string {
	if src.RetrievedAt != "" {
		return src.RetrievedAt
	}
	return s.RetrievedAt
}

// LimitsOf returns the limits that apply to src: the source's own, else the
// subject's, else the defaults.
func (s *Subject) LimitsOf(src Source) Limits {
	pick := func(vals ...int64) int64 {
		for _, v := range vals {
			if v > 0 {
				return v
			}
		}
		return 0
	}
	return Limits{
		MaxFileBytes: pick(src.MaxBytes, s.Limits.MaxFileBytes, DefaultMaxFileBytes),
		MaxFiles:     pick(src.MaxFiles, s.Limits.MaxFiles, DefaultMaxFiles),
		MaxRows:      pick(src.MaxRows, s.Limits.MaxRows, DefaultMaxRows),
	}
}

// FormatOf returns the format of a file, snapshot or table source: its
// declared format, else the one its path's extension implies.
func FormatOf(src Source) (string, bool) {
	if src.Format != "" {
		return src.Format, validFormatFor(src.Adapter, src.Format)
	}
	if src.Adapter == AdapterTable {
		return TableFormat(src.Path)
	}
	return DocumentFormat(src.Path)
}

// DocumentFormat maps a document's file name to its format by extension
// (case-insensitive): .txt, .md/.markdown, .html/.htm.
func DocumentFormat(name string) (string, bool) {
	switch strings.ToLower(path.Ext(name)) {
	case ".txt":
		return FormatText, true
	case ".md", ".markdown":
		return FormatMarkdown, true
	case ".html", ".htm":
		return FormatHTML, true
	}
	return "", false
}

// TableFormat maps a table's file name to its format by extension:
// .arrow/.arrows/.ipc/.feather for Arrow IPC, .parquet for Parquet.
func TableFormat(name string) (string, bool) {
	switch strings.ToLower(path.Ext(name)) {
	case ".arrow", ".arrows", ".ipc", ".feather":
		return FormatArrow, true
	case ".parquet":
		return FormatParquet, true
	}
	return "", false
}

func validFormatFor(adapter, format string) bool {
	switch adapter {
	case AdapterTable:
		return format == FormatArrow || format == FormatParquet
	case AdapterFile, AdapterSnapshot:
		return format == FormatText || format == FormatMarkdown || format == FormatHTML
	}
	return false
}
