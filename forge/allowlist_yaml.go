package forge

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"slices"

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
// An empty file or an empty sequence is an empty list. A file that also
// holds curator exclusions is a mapping of two lists:
//
//	sources: [ <entries as above> ]
//	exclude:
//	  - text_sha: <64 lowercase hex>   a byte range of an extracted text …
//	    start: <int>
//	    end: <int>
//	    reason: <text>                 required
//	  - sentence_sha: <64 lowercase hex>  … or a sentence by the SHA-256 of its bytes
//	    reason: <text>

// LoadAllowlist parses allowlist.yaml strictly: one document; unknown,
// missing, repeated or wrongly typed keys, anchors and aliases, malformed
// digests, a digest listed twice and an exclusion listed twice are all
// errors (wrapping ErrInvalidAllowlist, or ErrInvalidTier for a bad tier).
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
	entries, excludes, err := readFile(&doc)
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
	a, err := NewAllowlist(entries)
	if err != nil {
		return Allowlist{}, err
	}
	a.excludes = slices.Clone(excludes)
	slices.SortFunc(a.excludes, compareTarget)
	for i := 1; i < len(a.excludes); i++ {
		if a.excludes[i].sameTarget(a.excludes[i-1]) {
			return Allowlist{}, fmt.Errorf("allow-list: %w: exclusion %s listed twice", ErrInvalidAllowlist, a.excludes[i].describe())
		}
	}
	return a, nil
}

// readFile reads the document: a sequence of sources, or a mapping with
// the sources and the exclusions.
func readFile(doc *yaml.Node) ([]artifact.AllowedSource, []Exclusion, error) {
	root := doc
	if root.Kind == yaml.DocumentNode {
		if len(root.Content) != 1 {
			return nil, nil, fmt.Errorf("%w: empty document", ErrInvalidAllowlist)
		}
		root = root.Content[0]
	}
	if root.Kind != yaml.MappingNode {
		entries, err := readEntries(root)
		return entries, nil, err
	}
	if root.Anchor != "" {
		return nil, nil, fmt.Errorf("%w: line %d: anchors are not allowed", ErrInvalidAllowlist, root.Line)
	}
	var entries []artifact.AllowedSource
	var excludes []Exclusion
	seen := map[string]bool{}
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], root.Content[i+1]
		if k.Kind != yaml.ScalarNode || k.Tag != "!!str" || k.Anchor != "" {
			return nil, nil, fmt.Errorf("%w: line %d: keys must be plain strings", ErrInvalidAllowlist, k.Line)
		}
		if seen[k.Value] {
			return nil, nil, fmt.Errorf("%w: line %d: key %q repeated", ErrInvalidAllowlist, k.Line, k.Value)
		}
		seen[k.Value] = true
		var err error
		switch k.Value {
		case "sources":
			entries, err = readEntries(v)
		case "exclude":
			excludes, err = readExclusions(v)
		default:
			err = fmt.Errorf("%w: line %d: unknown key %q (want sources and exclude)", ErrInvalidAllowlist, k.Line, k.Value)
		}
		if err != nil {
			return nil, nil, err
		}
	}
	return entries, excludes, nil
}

// readList checks that n is a sequence (or null, an empty one) without an
// anchor and calls item on each element.
func readList(n *yaml.Node, item func(int, *yaml.Node) error) error {
	if n.Anchor != "" {
		return fmt.Errorf("%w: line %d: anchors are not allowed", ErrInvalidAllowlist, n.Line)
	}
	if n.Kind == yaml.ScalarNode && n.Tag == "!!null" {
		return nil
	}
	if n.Kind != yaml.SequenceNode {
		return fmt.Errorf("%w: line %d: want a list of entries", ErrInvalidAllowlist, n.Line)
	}
	for i, c := range n.Content {
		if err := item(i, c); err != nil {
			return err
		}
	}
	return nil
}

func readEntries(root *yaml.Node) ([]artifact.AllowedSource, error) {
	out := make([]artifact.AllowedSource, 0, len(root.Content))
	err := readList(root, func(i int, item *yaml.Node) error {
		e, err := readEntry(item)
		if err != nil {
			return fmt.Errorf("entry %d: %w", i, err)
		}
		out = append(out, e)
		return nil
	})
	return out, err
}

func readExclusions(root *yaml.Node) ([]Exclusion, error) {
	var out []Exclusion
	err := readList(root, func(i int, item *yaml.Node) error {
		e, err := readExclusion(item)
		if err != nil {
			return fmt.Errorf("exclusion %d: %w", i, err)
		}
		out = append(out, e)
		return nil
	})
	return out, err
}

// readExclusion reads one exclusion mapping strictly: string digests and
// reason, integer offsets, no other key, each key once.
func readExclusion(n *yaml.Node) (Exclusion, error) {
	var e Exclusion
	err := readMapping(n, func(key string, v *yaml.Node) error {
		switch key {
		case "text_sha":
			return scalarString(v, &e.TextSHA)
		case "sentence_sha":
			return scalarString(v, &e.SentenceSHA)
		case "reason":
			return scalarString(v, &e.Reason)
		case "start":
			return scalarInt(v, &e.Start)
		case "end":
			return scalarInt(v, &e.End)
		}
		return fmt.Errorf("%w: line %d: unknown key %q", ErrInvalidAllowlist, v.Line, key)
	})
	if err != nil {
		return e, err
	}
	return e, e.check()
}

// readMapping walks a mapping without anchors whose keys are plain strings,
// each at most once.
func readMapping(n *yaml.Node, field func(key string, v *yaml.Node) error) error {
	if n.Kind != yaml.MappingNode || n.Anchor != "" {
		return fmt.Errorf("%w: line %d: want a mapping without anchors", ErrInvalidAllowlist, n.Line)
	}
	seen := map[string]bool{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if v.Anchor != "" || k.Anchor != "" {
			return fmt.Errorf("%w: line %d: anchors are not allowed", ErrInvalidAllowlist, k.Line)
		}
		if k.Kind != yaml.ScalarNode || k.Tag != "!!str" {
			return fmt.Errorf("%w: line %d: keys must be plain strings", ErrInvalidAllowlist, k.Line)
		}
		if seen[k.Value] {
			return fmt.Errorf("%w: line %d: key %q repeated", ErrInvalidAllowlist, k.Line, k.Value)
		}
		seen[k.Value] = true
		if err := field(k.Value, v); err != nil {
			return err
		}
	}
	return nil
}

// scalarInt accepts only integer scalars that fit an int64.
func scalarInt(v *yaml.Node, dst **int64) error {
	if v.Kind != yaml.ScalarNode || v.Tag != "!!int" {
		return fmt.Errorf("%w: line %d: want an integer", ErrInvalidAllowlist, v.Line)
	}
	var n int64
	if err := v.Decode(&n); err != nil {
		return fmt.Errorf("%w: line %d: want an integer: %v", ErrInvalidAllowlist, v.Line, err)
	}
	*dst = &n
	return nil
}

func readEntry(n *yaml.Node) (artifact.AllowedSource, error) {
	var e artifact.AllowedSource
	seen := map[string]bool{}
	err := readMapping(n, func(key string, v *yaml.Node) error {
		seen[key] = true
		return setField(&e, key, v)
	})
	if err != nil {
		return e, err
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

// yamlExclusion fixes the key order of a written exclusion.
type yamlExclusion struct {
	TextSHA     string `yaml:"text_sha,omitempty"`
	Start       *int64 `yaml:"start,omitempty"`
	End         *int64 `yaml:"end,omitempty"`
	SentenceSHA string `yaml:"sentence_sha,omitempty"`
	Reason      string `yaml:"reason"`
}

// yamlFile is the form of a file with exclusions.
type yamlFile struct {
	Sources []yamlEntry     `yaml:"sources"`
	Exclude []yamlExclusion `yaml:"exclude"`
}

// Bytes returns the canonical allowlist.yaml bytes: entries sorted by
// digest, keys in the documented order, two-space indentation, `curated`
// written only when true. Without exclusions the file is the list of
// sources (the original's form, unchanged); with some, it is the mapping of
// sources and exclude, exclusions sorted by what they name. LoadAllowlist of
// the result gives the same list.
func (a Allowlist) Bytes() ([]byte, error) {
	if len(a.entries) == 0 && len(a.excludes) == 0 {
		return []byte("[]\n"), nil
	}
	rows := make([]yamlEntry, len(a.entries))
	for i, e := range a.entries {
		rows[i] = yamlEntry(e)
	}
	var doc any = rows
	if len(a.excludes) > 0 {
		f := yamlFile{Sources: rows, Exclude: make([]yamlExclusion, len(a.excludes))}
		for i, e := range a.excludes {
			f.Exclude[i] = yamlExclusion(e)
		}
		doc = f
	}
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(doc); err != nil {
		return nil, fmt.Errorf("allow-list: encode: %w", err)
	}
	if err := enc.Close(); err != nil {
		return nil, fmt.Errorf("allow-list: encode: %w", err)
	}
	return buf.Bytes(), nil
}

// AllowAdd is `formation allow add`: it parses the current file (nil or
// empty for none), adds or replaces each entry in turn and returns the new
// file.
func AllowAdd(current []byte, es ...artifact.AllowedSource) ([]byte, error) {
	a, err := LoadAllowlist(current)
	if err != nil {
		return nil, err
	}
	// Parsed and rendered once, whatever the number of entries: 1,193
	// digests took 9 s with the file parsed and rendered for each, 0.45 s
	// in one pass (the whole command).
	for _, e := range es {
		if !ident.ValidDigest(e.SourceSHA) {
			return nil, fmt.Errorf("allow-list: add: %w: source_sha %s is not 64 lowercase hex", ErrInvalidAllowlist, escapeUntrusted(e.SourceSHA))
		}
		if a, err = a.Add(e); err != nil {
			return nil, err
		}
	}
	return a.Bytes()
}

// AllowRemove is `formation allow remove`: the file without the entries of
// shas, or an error naming the first one it does not list.
func AllowRemove(current []byte, shas ...string) ([]byte, error) {
	a, err := LoadAllowlist(current)
	if err != nil {
		return nil, err
	}
	for _, sha := range shas {
		if a, err = a.Remove(sha); err != nil {
			return nil, err
		}
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

// AllowExclude is `formation allow exclude`: the file with the exclusion
// added, or replacing the one that names the same evidence.
func AllowExclude(current []byte, e Exclusion) ([]byte, error) {
	a, err := LoadAllowlist(current)
	if err != nil {
		return nil, err
	}
	if a, err = a.Exclude(e); err != nil {
		return nil, err
	}
	return a.Bytes()
}

// AllowUnexclude is `formation allow exclude --remove`: the file without the
// exclusion of e's evidence (ErrNotListed when there is none).
func AllowUnexclude(current []byte, e Exclusion) ([]byte, error) {
	a, err := LoadAllowlist(current)
	if err != nil {
		return nil, err
	}
	if a, err = a.Unexclude(e); err != nil {
		return nil, err
	}
	return a.Bytes()
}
