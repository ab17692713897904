package extracteval

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"formation/artifact"
	"formation/courses"
	"formation/forge"
	"formation/mining"
	"formation/smelting"
)

// Extracted is what the pipeline's first three stages made of one
// document: its mined texts by file, the smelted candidates and the
// validated set.
type Extracted struct {
	Texts     map[string]string // file name → mined text
	TextFile  map[string]string // text digest → file name
	Smelted   artifact.SmeltedBundle
	Validated artifact.ValidatedTripleSet
}

// memObjects is the object store of one evaluation: bytes by SHA-256.
type memObjects map[string][]byte

func (m memObjects) PutReader(_ context.Context, r io.Reader) (string, int64, error) {
	b, err := io.ReadAll(r)
	if err != nil {
		return "", 0, err
	}
	sum := sha256.Sum256(b)
	d := hex.EncodeToString(sum[:])
	m[d] = b
	return d, int64(len(b)), nil
}

// Extract runs mine, smelt and forge over one document. The document
// becomes a subject of its own in a temporary folder, every file a file
// source allow-listed as primary.
func Extract(ctx context.Context, set *Set, d *Document) (*Extracted, error) {
	dir, err := os.MkdirTemp("", "extracteval-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	subjDir := filepath.Join(dir, d.ID)
	subj, err := writeSubject(set, d, subjDir)
	if err != nil {
		return nil, err
	}
	objects := memObjects{}
	mined, err := mining.Mine(ctx, subj, objects, mining.Options{Jobs: 1})
	if err != nil {
		return nil, fmt.Errorf("extracteval: mine %s: %w", d.ID, err)
	}
	out := &Extracted{Texts: map[string]string{}, TextFile: map[string]string{}}
	texts := map[string][]byte{}
	spans := forge.MemoryTexts{}
	var allow []artifact.AllowedSource
	for _, e := range mined.Bundle.Entries {
		key := smelting.TextKey(e)
		name := strings.TrimPrefix(e.URL, "file:sources/")
		texts[key] = objects[key]
		spans.Put(objects[key])
		out.Texts[name] = string(objects[key])
		out.TextFile[key] = name
		allow = append(allow, artifact.AllowedSource{SourceSHA: e.SourceSHA, Tier: artifact.TierPrimary, Label: name})
	}
	if out.Smelted, err = smelting.SmeltWith(mined.Bundle, texts, smelting.Options{Relations: d.Relations}); err != nil {
		return nil, fmt.Errorf("extracteval: smelt %s: %w", d.ID, err)
	}
	al, err := forge.NewAllowlist(allow)
	if err != nil {
		return nil, err
	}
	res, err := forge.Validate(ctx, forge.Config{Allowlist: al, SpanChecker: spans, Relations: d.Relations}, d.ID, out.Smelted)
	if err != nil {
		return nil, fmt.Errorf("extracteval: forge %s: %w", d.ID, err)
	}
	out.Validated = res.VTS
	return out, nil
}

// writeSubject lays the document out as a subject folder (subject.yaml and
// sources/) and loads it.
func writeSubject(set *Set, d *Document, dir string) (*courses.Subject, error) {
	if err := os.MkdirAll(filepath.Join(dir, "sources"), 0o755); err != nil {
		return nil, err
	}
	var y bytes.Buffer
	fmt.Fprintf(&y, "subject_id: %s\ntitle: %q\ntemplate: definition\nretrieved_at: \"2026-01-01T00:00:00Z\"\nsources:\n", d.ID, d.Title)
	for i, f := range d.Files {
		raw, err := os.ReadFile(filepath.Join(set.Dir, "docs", f.Name))
		if err != nil {
			return nil, fmt.Errorf("extracteval: %w", err)
		}
		if err := os.WriteFile(filepath.Join(dir, "sources", f.Name), raw, 0o644); err != nil {
			return nil, err
		}
		fmt.Fprintf(&y, "  - id: f%d\n    adapter: file\n    path: sources/%s\n    format: %s\n", i+1, f.Name, f.Format)
	}
	if err := os.WriteFile(filepath.Join(dir, courses.SubjectFile), y.Bytes(), 0o644); err != nil {
		return nil, err
	}
	subj, err := courses.Load(context.Background(), dir)
	if err != nil {
		return nil, fmt.Errorf("extracteval: %s: %w", d.ID, err)
	}
	return subj, nil
}
