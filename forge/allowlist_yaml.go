package forge

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"go.yaml.in/yaml/v3"

	"formation/artifact"
	"formation/ident"
)

// The subject's allowlist.yaml is a YAML sequence of mappings, one per
// source, with exactly these keys (see README.md):
//
//	- source_sha: <64 lowercase hex>   required
//	  tier: primary|secondary|llm      required
//	  label: <text>                    optional, default ""
//	  curated: true|false              optional, default false
//
// An empty file or an empty sequence is an empty list.

// LoadAllowlist parses allowlist.yaml strictly: one document; unknown,
// missing, repeated or wrongly typed keys, anchors and aliases, malformed
// digests and a digest listed twice are all errors (wrapping
// ErrInvalidAllowlist, or ErrInvalidTier for a bad tier).
func LoadAllowlist(data []byte) (Allowlist, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	err := dec.Decode(&doc)
	if errors.Is(err, io.EOF) {
		return Allowlist{}, nil
	}
	if err != nil {
		return Allowlist{}, fmt.Errorf("allow-list: %w: %v", ErrInvalidAllowlist, err)
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); !errors.Is(err, io.EOF) {
		return Allowlist{}, fmt.Errorf("allow-list: %w: more than one YAML document", ErrInvalidAllowlist)
	}
	entries, err := readEntries(&doc)
	if err != nil {
		return Allowlist{}, fmt.Errorf("allow-list: %w", err)
	}
	seen := make(map[string]bool, len(entries))
	for i, e := range entries {
		if seen[e.SourceSHA] {
			return Allowlist{}, fmt.Errorf("allow-list: entry %d: %w: source_sha %s listed twice", i, ErrInvalidAllowlist, e.SourceSHA)
		}
		seen[e.SourceSHA] = true
	}
	return NewAllowlist(entries)
}

func readEntries(doc *yaml.Node) ([]artifact.AllowedSource, error) {
	root := doc
	if root.Kind == yaml.DocumentNode {
		if len(root.Content) != 1 {
			return nil, fmt.Errorf("%w: empty document", ErrInvalidAllowlist)
		}
		root = root.Content[0]
	}
	if root.Anchor != "" {
		return nil, fmt.Errorf("%w: line %d: anchors are not allowed", ErrInvalidAllowlist, root.Line)
	}
	if root.Kind == yaml.ScalarNode && root.Tag == "!!null" {
		return nil, nil
	}
	if root.Kind != yaml.SequenceNode {
		return nil, fmt.Errorf("%w: line %d: want a list of entries", ErrInvalidAllowlist, root.Line)
	}
	out := make([]artifact.AllowedSource, 0, len(root.Content))
	for i, item := range root.Content {
		e, err := readEntry(item)
		if err != nil {
			return nil, fmt.Errorf("entry %d: %w", i, err)
		}
		out = append(out, e)
	}
	return out, nil
}

func readEntry(n *yaml.Node) (artifact.AllowedSource, error) {
	var e artifact.AllowedSource
	if n.Kind != yaml.MappingNode || n.Anchor != "" {
		return e, fmt.Errorf("%w: line %d: want a mapping without anchors", ErrInvalidAllowlist, n.Line)
	}
	seen := map[string]bool{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if v.Anchor != "" || k.Anchor != "" {
			return e, fmt.Errorf("%w: line %d: anchors are not allowed", ErrInvalidAllowlist, k.Line)
		}
		if k.Kind != yaml.ScalarNode || k.Tag != "!!str" {
			return e, fmt.Errorf("%w: line %d: keys must be plain strings", ErrInvalidAllowlist, k.Line)
		}
		if seen[k.Value] {
			return e, fmt.Errorf("%w: line %d: key %q repeated", ErrInvalidAllowlist, k.Line, k.Value)
		}
		seen[k.Value] = true
		if err := setField(&e, k.Value, v); err != nil {
			return e, err
		}
	}
	for _, req := range []string{"source_sha", "tier"} {
		if !seen[req] {
			return e, fmt.Errorf("%w: line %d: missing %s", ErrInvalidAllowlist, n.Line, req)
		}
	}
	if !ident.ValidDigest(e.SourceSHA) {
		return e, fmt.Errorf("%w: line %d: source_sha %s is not 64 lowercase hex", ErrInvalidAllowlist, n.Line, escapeUntrusted(e.SourceSHA))
	}
	if !validTier(e.Tier) {
		return e, &tierError{tier: e.Tier, withChoice: true}
	}
	return e, nil
}

func setField(e *artifact.AllowedSource, key string, v *yaml.Node) error {
	switch key {
	case "source_sha":
		return scalarString(v, &e.SourceSHA)
	case "tier":
		return scalarString(v, &e.Tier)
	case "label":
		return scalarString(v, &e.Label)
	case "curated":
		if v.Kind != yaml.ScalarNode || v.Tag != "!!bool" {
			return fmt.Errorf("%w: line %d: curated must be true or false", ErrInvalidAllowlist, v.Line)
		}
		return v.Decode(&e.Curated)
	}
	return fmt.Errorf("%w: line %d: unknown key %q", ErrInvalidAllowlist, v.Line, key)
}

// scalarString accepts only string scalars: a digest written as a bare
// number or a tier written as a boolean is a mistake, not a value to coerce.
func scalarString(v *yaml.Node, dst *string) error {
	if v.Kind != yaml.ScalarNode || v.Tag != "!!str" {
		return fmt.Errorf("%w: line %d: want a string", ErrInvalidAllowlist, v.Line)
	}
	*dst = v.Value
	return nil
}

// yamlEntry fixes the key order of the written file.
type yamlEntry struct {
	SourceSHA string `yaml:"source_sha"`
	Tier      string `yaml:"tier"`
	Label     string `yaml:"label"`
	Curated   bool   `yaml:"curated,omitempty"`
}

// Bytes returns the canonical allowlist.yaml bytes: entries sorted by
// digest, keys in the documented order, two-space indentation, `curated`
// written only when true. LoadAllowlist of the result gives the same list.
func (a Allowlist) Bytes() ([]byte, error) {
	if len(a.entries) == 0 {
		return []byte("[]\n"), nil
	}
	rows := make([]yamlEntry, len(a.entries))
	for i, e := range a.entries {
		rows[i] = yamlEntry(e)
	}
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(rows); err != nil {
		return nil, fmt.Errorf("allow-list: encode: %w", err)
	}
	if err := enc.Close(); err != nil {
		return nil, fmt.Errorf("allow-list: encode: %w", err)
	}
	return buf.Bytes(), nil
}

// AllowAdd is `formation allow add`: it parses the current file (nil or
// empty for none), adds or replaces the entry and returns the new file.
func AllowAdd(current []byte, e artifact.AllowedSource) ([]byte, error) {
	if !ident.ValidDigest(e.SourceSHA) {
		return nil, fmt.Errorf("allow-list: add: %w: source_sha %s is not 64 lowercase hex", ErrInvalidAllowlist, escapeUntrusted(e.SourceSHA))
	}
	a, err := LoadAllowlist(current)
	if err != nil {
		return nil, err
	}
	if a, err = a.Add(e); err != nil {
		return nil, err
	}
	return a.Bytes()
}

// AllowRemove is `formation allow remove`: the file without sha's entry.
func AllowRemove(current []byte, sha string) ([]byte, error) {
	a, err := LoadAllowlist(current)
	if err != nil {
		return nil, err
	}
	if a, err = a.Remove(sha); err != nil {
		return nil, err
	}
	return a.Bytes()
}

// AllowList is `formation allow list`: the entries sorted by digest.
func AllowList(current []byte) ([]artifact.AllowedSource, error) {
	a, err := LoadAllowlist(current)
	if err != nil {
		return nil, err
	}
	return a.Entries(), nil
}
