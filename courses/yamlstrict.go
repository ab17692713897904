package courses

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

// readLimited reads a whole file of at most limit bytes. It refuses
// anything that is not a regular file (a FIFO would block, a folder is a
// mistake) and reports an over-long file as CodeTooLarge rather than
// truncating it.
func readLimited(ctx context.Context, path, name string, limit int64) ([]byte, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	info, err := os.Lstat(path)
	if err != nil {
		return nil, fmt.Errorf("courses: read %s: %w", name, err)
	}
	if !info.Mode().IsRegular() {
		// Symlinks included: a subject file is data of this folder, never a
		// pointer to somewhere else.
		return nil, &ValidationError{File: name, Problems: []Problem{{Code: CodeRead, Detail: "not a regular file (" + info.Mode().Type().String() + ")"}}}
	}
	if info.Size() > limit {
		return nil, tooLarge(name, limit)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("courses: read %s: %w", name, err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, fmt.Errorf("courses: read %s: %w", name, err)
	}
	if int64(len(data)) > limit {
		return nil, tooLarge(name, limit) // it grew while we read it
	}
	return data, nil
}

func tooLarge(name string, limit int64) error {
	return &ValidationError{File: name, Problems: []Problem{{Code: CodeTooLarge, Detail: fmt.Sprintf("larger than %d bytes", limit)}}}
}

// decodeStrictYAML decodes one YAML document into v, refusing what the
// generic decoder would let through: several documents, anchors and
// aliases (they hide repetition and can expand without bound), explicit
// tags, floats (yaml.v3 silently truncates 1.5 into an integer field),
// duplicate keys and unknown fields. Problems are returned, not wrapped, so
// the caller can add its own.
func decodeStrictYAML(data []byte, v any) problems {
	var ps problems
	if !utf8.Valid(data) {
		ps.add("", "", CodeYAMLSyntax, "not valid UTF-8")
		return ps
	}
	var root yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&root); err != nil {
		if errors.Is(err, io.EOF) {
			ps.add("", "", CodeYAMLSyntax, "empty document")
		} else {
			ps.add("", "", CodeYAMLSyntax, "%v", err)
		}
		return ps
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); !errors.Is(err, io.EOF) {
		ps.add("", "", CodeYAMLMultiDoc, "only one YAML document is allowed")
		return ps
	}
	checkNode(&root, &ps)
	if len(ps) > 0 {
		return ps
	}
	typed := yaml.NewDecoder(bytes.NewReader(data))
	typed.KnownFields(true)
	if err := typed.Decode(v); err != nil {
		var te *yaml.TypeError
		if errors.As(err, &te) {
			for _, msg := range te.Errors {
				ps.add("", "", CodeSchema, "%s", msg)
			}
		} else {
			ps.add("", "", CodeSchema, "%v", err)
		}
	}
	return ps
}

// allowedTag reports whether tag is one that plain YAML resolves to on its
// own; anything else only appears when the author wrote an explicit tag.
func allowedTag(tag string) bool {
	switch tag {
	case "!!str", "!!int", "!!bool", "!!null", "!!seq", "!!map", "!!timestamp":
		return true
	}
	return false
}

// checkNode walks the document iteratively (a hostile file may nest deeply)
// and records every refused construct with its line.
func checkNode(root *yaml.Node, ps *problems) {
	stack := []*yaml.Node{root}
	for len(stack) > 0 {
		n := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		where := fmt.Sprintf("line %d", n.Line)
		switch {
		case n.Kind == yaml.AliasNode || n.Anchor != "":
			ps.add(where, "", CodeYAMLAlias, "anchors and aliases are not allowed")
			continue
		case n.Kind == yaml.ScalarNode && n.Tag == "!!float":
			ps.add(where, "", CodeYAMLFloat, "floats are not allowed (%q); write integers or quoted strings", n.Value)
			continue
		case n.Kind != yaml.DocumentNode && n.Tag != "" && !allowedTag(n.Tag):
			ps.add(where, "", CodeYAMLTag, "tag %s is not allowed", n.Tag)
			continue
		case n.Style&yaml.TaggedStyle != 0 && n.Kind == yaml.ScalarNode && n.Tag != "!!str":
			ps.add(where, "", CodeYAMLTag, "explicit tag %s is not allowed", n.Tag)
			continue
		}
		if n.Kind == yaml.MappingNode {
			checkKeys(n, ps)
		}
		for i := len(n.Content) - 1; i >= 0; i-- {
			stack = append(stack, n.Content[i])
		}
	}
}

// checkKeys refuses duplicate, merge and non-scalar keys of one mapping.
func checkKeys(n *yaml.Node, ps *problems) {
	seen := make(map[string]int, len(n.Content)/2)
	for i := 0; i+1 < len(n.Content); i += 2 {
		k := n.Content[i]
		where := fmt.Sprintf("line %d", k.Line)
		if k.Kind != yaml.ScalarNode {
			ps.add(where, "", CodeSchema, "mapping keys must be plain strings")
			continue
		}
		if k.Tag == "!!merge" || k.Value == "<<" {
			ps.add(where, "", CodeYAMLAlias, "merge keys are not allowed")
			continue
		}
		if first, dup := seen[k.Value]; dup {
			ps.add(where, "", CodeDuplicateKey, "key %q already given at line %d", k.Value, first)
			continue
		}
		seen[k.Value] = k.Line
	}
}
