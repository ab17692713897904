// Package audit writes and reads Formation's append-only audit records: one
// for every rejection, drop, halt and promotion.
//
// Records are canonical JSON. They are appended in batches (stored in one of
// two forms, see DecodeBatch, and compressed when large, see Unpack), one
// create-only ref per batch under
// audit/<subject>/<stage>/, named so that listing returns them in time
// order; a batch is never rewritten. Before a record is written,
// every known secret value is replaced by "[redacted]", so credentials that
// reach an error message never reach the store.
package audit

import (
	"context"
	"fmt"
	"os"
	"sort"
	"strings"
	"time"

	"formation/artifact"
	"formation/internal/exitcode"
	"formation/internal/pipehash"
)

// Kinds of record.
const (
	KindRejection = "rejection" // an input or candidate refused
	KindDrop      = "drop"      // a candidate removed or merged without being an error
	KindHalt      = "halt"      // a stage stopped
	KindPromotion = "promotion" // knowledge entered the reviewed store
	KindNote      = "note"      // accepted, with a caveat worth keeping (e.g. span not byte-checked)
)

// Record is one audit record.
type Record struct {
	SchemaVersion string   `json:"schema_version"`
	Time          string   `json:"time"`
	Stage         string   `json:"stage"`
	Subject       string   `json:"subject"`
	Kind          string   `json:"kind"`
	ReasonCode    string   `json:"reason_code"`
	Key           string   `json:"key"`
	Detail        string   `json:"detail"`
	InputDigests  []string `json:"input_digests"`
	CodeVersion   string   `json:"code_version"`
}

// RefStore is the part of the object store the audit log needs.
type RefStore interface {
	GetRef(ctx context.Context, name string) ([]byte, string, error)
	SetRef(ctx context.Context, name, old string, value []byte) (string, error)
	ListRefs(ctx context.Context, prefix string) ([]string, error)
}

// Writer appends records.
type Writer struct {
	Store       RefStore
	Now         func() time.Time // injected clock; audit times are never hashed into artifacts
	CodeVersion string
	Secrets     []string // values to redact; see SecretsFromEnv
}

// Append writes recs as one batch. Every record gets the writer's time and
// code version; subject and stage of the batch are those of the first record.
func (w *Writer) Append(ctx context.Context, recs ...Record) error {
	if len(recs) == 0 {
		return nil
	}
	now := w.Now().UTC()
	stamp := now.Format("2006-01-02T15:04:05Z")
	// Each record is stamped and redacted on its way into the encoding, not
	// into a copy of the batch: forge's batch at 10,000 relations holds
	// 15,500 records, and the copy was megabytes of pointers to write and
	// for the collector to scan.
	record := func(i int) Record {
		r := recs[i]
		r.SchemaVersion, r.Time, r.CodeVersion = artifact.SchemaVersion, stamp, w.CodeVersion
		if r.InputDigests == nil {
			r.InputDigests = []string{}
		}
		w.redact(&r)
		return r
	}
	first := record(0)
	encode := appendRecords
	size := batchSize(recs) + len(recs)*(len(artifact.SchemaVersion)+len(stamp)+len(w.CodeVersion))
	if shares(recs) {
		encode, size = appendShared, sharedSize(recs)+len(artifact.SchemaVersion)+len(stamp)+len(w.CodeVersion)
	}
	// The encoding is hashed as it grows (the encoding is canonical:
	// hashing it is hashing the batch), on another goroutine once it is
	// large, so that the hash of a large batch is done when its encoding is.
	var h pipehash.SHA256
	body, err := encode(make([]byte, 0, size), len(recs), record, h.Add)
	if err != nil {
		h.Stop()
		return fmt.Errorf("audit: encode: %w", err)
	}
	digest := h.Sum(body)
	name := fmt.Sprintf("audit/%s/%s/%s-%09d-%s", refSegment(first.Subject), refSegment(first.Stage),
		now.Format("20060102T150405Z"), now.Nanosecond(), digest[:16])
	stored, err := pack(body)
	if err != nil {
		return err
	}
	if _, err := w.Store.SetRef(ctx, name, "", stored); err != nil {
		return fmt.Errorf("audit: append %s: %w", name, err)
	}
	return nil
}

// refSegment makes a value safe as one ref-name segment; subjects and stages
// are already validated ids, so this only guards against empty values.
func refSegment(s string) string {
	if s == "" {
		return "_"
	}
	return s
}

func (w *Writer) redact(r *Record) {
	if len(w.Secrets) == 0 {
		return
	}
	scrub := func(s string) string {
		for _, sec := range w.Secrets {
			if sec != "" {
				s = strings.ReplaceAll(s, sec, "[redacted]")
			}
		}
		return s
	}
	r.Detail = scrub(r.Detail)
	r.Key = scrub(r.Key)
	r.ReasonCode = scrub(r.ReasonCode)
	r.Subject = scrub(r.Subject)
}

// SecretsFromEnv collects the values of environment variables that hold
// credentials (names containing SECRET, TOKEN, PASSWORD, PRIVATE or ending in
// _KEY / _KEY_ID), at least 6 characters long so that redaction cannot eat
// ordinary words.
func SecretsFromEnv() []string {
	var out []string
	for _, kv := range os.Environ() {
		name, val, _ := strings.Cut(kv, "=")
		if len(val) < 6 {
			continue
		}
		up := strings.ToUpper(name)
		if strings.Contains(up, "SECRET") || strings.Contains(up, "TOKEN") || strings.Contains(up, "PASSWORD") ||
			strings.Contains(up, "PRIVATE") || strings.HasSuffix(up, "_KEY") || strings.HasSuffix(up, "_KEY_ID") {
			out = append(out, val)
		}
	}
	sort.Strings(out)
	return out
}

// Filter selects records when listing.
type Filter struct {
	Subject string
	Stage   string
}

// List returns the records that match f, oldest first. A batch that does
// not decode fails it with exit code 65.
func List(ctx context.Context, s RefStore, f Filter) ([]Record, error) {
	prefix := "audit/"
	if f.Subject != "" {
		prefix += f.Subject + "/"
		if f.Stage != "" {
			prefix += f.Stage + "/"
		}
	}
	names, err := s.ListRefs(ctx, prefix)
	if err != nil {
		return nil, fmt.Errorf("audit: list: %w", err)
	}
	sort.Slice(names, func(i, j int) bool { return batchTime(names[i]) < batchTime(names[j]) })
	var out []Record
	for _, name := range names {
		body, _, err := s.GetRef(ctx, name)
		if err != nil {
			return nil, fmt.Errorf("audit: read %s: %w", name, err)
		}
		batch, err := DecodeBatch(body)
		if err != nil {
			// A batch that does not decode is a corrupt record (exit 65),
			// as storecheck reports it; a failed read keeps its own code.
			return nil, exitcode.With(exitcode.Rejected, fmt.Errorf("audit: decode %s: %w", name, err))
		}
		for _, r := range batch {
			if f.Stage != "" && r.Stage != f.Stage {
				continue
			}
			out = append(out, r)
		}
	}
	return out, nil
}

// batchTime is the sortable time part of a batch name, then the name itself.
func batchTime(name string) string {
	i := strings.LastIndex(name, "/")
	return name[i+1:] + "\x00" + name
}

// Counts tallies records by kind.
func Counts(recs []Record) map[string]int {
	m := map[string]int{}
	for _, r := range recs {
		m[r.Kind]++
	}
	return m
}
