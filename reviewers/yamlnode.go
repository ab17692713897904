package reviewers

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// parseYAML reads exactly one YAML document into a node tree and refuses
// duplicate keys, anchors and aliases anywhere in it. An empty input yields
// a null node, which the caller reports as a root that is not a mapping.
func parseYAML(data []byte) (*yaml.Node, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null"}, nil
		}
		return nil, err
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); !errors.Is(err, io.EOF) {
		return nil, errors.New("more than one YAML document")
	}
	root := &doc
	if root.Kind == yaml.DocumentNode {
		if len(root.Content) == 0 {
			return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null"}, nil
		}
		root = root.Content[0]
	}
	if err := checkTree(root); err != nil {
		return nil, err
	}
	return root, nil
}

// checkTree refuses aliases, anchors and duplicate mapping keys.
func checkTree(n *yaml.Node) error {
	if n.Kind == yaml.AliasNode || n.Anchor != "" {
		return fmt.Errorf("line %d: anchors and aliases are not allowed", n.Line)
	}
	if n.Kind == yaml.MappingNode {
		seen := map[string]int{}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i]
			if first, dup := seen[k.Value]; dup {
				return fmt.Errorf("line %d: mapping key %q already defined at line %d", k.Line, k.Value, first)
			}
			seen[k.Value] = k.Line
		}
	}
	for _, c := range n.Content {
		if err := checkTree(c); err != nil {
			return err
		}
	}
	return nil
}

// mapping is a YAML mapping node read as an ordered key → value table.
type mapping struct {
	keys []string
	vals map[string]*yaml.Node
}

func asMapping(n *yaml.Node) (*mapping, bool) {
	if n == nil || n.Kind != yaml.MappingNode {
		return nil, false
	}
	m := &mapping{vals: map[string]*yaml.Node{}}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k := n.Content[i].Value
		m.keys = append(m.keys, k)
		m.vals[k] = n.Content[i+1]
	}
	return m, true
}

// unknown lists keys outside allowed, in file order.
func (m *mapping) unknown(allowed []string) []string {
	var out []string
	for _, k := range m.keys {
		if !contains(allowed, k) {
			out = append(out, k)
		}
	}
	return out
}

// missing lists required keys that are absent.
func (m *mapping) missing(required []string) []string {
	var out []string
	for _, k := range required {
		if _, ok := m.vals[k]; !ok {
			out = append(out, k)
		}
	}
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// nonEmptyString returns a scalar string value whose trimmed form is not
// empty. The value itself is kept as written; only the emptiness test trims.
func nonEmptyString(n *yaml.Node) (string, bool) {
	if n == nil || n.Kind != yaml.ScalarNode || n.Tag != "!!str" {
		return "", false
	}
	if strings.TrimSpace(n.Value) == "" {
		return "", false
	}
	return n.Value, true
}

// stringList reads a sequence of non-empty strings. ok is false when the node
// is not a sequence or an item is not a non-empty string.
func stringList(n *yaml.Node) ([]string, bool) {
	if n == nil || n.Kind != yaml.SequenceNode {
		return nil, false
	}
	out := make([]string, 0, len(n.Content))
	for _, item := range n.Content {
		s, ok := nonEmptyString(item)
		if !ok {
			return nil, false
		}
		out = append(out, s)
	}
	return out, true
}

func isNull(n *yaml.Node) bool {
	return n == nil || (n.Kind == yaml.ScalarNode && n.Tag == "!!null")
}

// describe renders a scalar for an error message.
func describe(n *yaml.Node) string {
	if isNull(n) {
		return "None"
	}
	if n.Kind == yaml.ScalarNode {
		if n.Tag == "!!str" {
			return strconv.Quote(n.Value)
		}
		return n.Value
	}
	return "a " + kindName(n)
}

func kindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "mapping"
	case yaml.SequenceNode:
		return "list"
	}
	return "scalar"
}
