package ledger

import (
	"fmt"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"

	"formation/runtime/knowledge"
	"formation/runtime/text"
)

// CourseWalks reads the walks of a course YAML: every list under walks (or
// ordered_walks) of a phase_* section, each walk's edges under steps (or
// edges), as the compile stage reads them. Only walks whose every edge is a
// held triple of k are returned: a walk over a counter-claim (a refusal or
// polarity walk) shows what must be rejected, not a reasoning path.
func CourseWalks(courseID string, yamlBytes []byte, k *knowledge.Knowledge) ([]Walk, error) {
	var body map[string]any
	if err := yaml.Unmarshal(yamlBytes, &body); err != nil {
		return nil, fmt.Errorf("ledger: course %s: %w", courseID, err)
	}
	phases := make([]string, 0, len(body))
	for key := range body {
		if strings.HasPrefix(key, "phase_") {
			phases = append(phases, key)
		}
	}
	sort.Strings(phases)
	var out []Walk
	for _, ph := range phases {
		section, _ := body[ph].(map[string]any)
		walks, ok := section["walks"].([]any)
		if !ok || len(walks) == 0 {
			walks, _ = section["ordered_walks"].([]any)
		}
		for i, w := range walks {
			if walk, ok := heldWalk(courseID, ph, i, w, k); ok {
				out = append(out, walk)
			}
		}
	}
	return out, nil
}

// heldWalk converts one walk entry; ok is false when it has no edge or an
// edge that is not a held triple.
func heldWalk(courseID, phase string, i int, w any, k *knowledge.Knowledge) (Walk, bool) {
	m, _ := w.(map[string]any)
	steps, ok := m["steps"].([]any)
	if !ok || len(steps) == 0 {
		steps, _ = m["edges"].([]any)
	}
	id, _ := m["walk_id"].(string)
	if id == "" {
		id = fmt.Sprintf("%s[%d]", phase, i)
	}
	walk := Walk{Course: courseID, ID: phase + "/" + id}
	for _, s := range steps {
		e, _ := s.(map[string]any)
		h, _ := e["head"].(string)
		r, _ := e["relation"].(string)
		t, _ := e["tail"].(string)
		key := knowledge.Key{Head: text.Term(h), Relation: text.Relation(r), Tail: text.Term(t)}
		if _, held := k.Triple(key); !held {
			return Walk{}, false
		}
		walk.Relations = append(walk.Relations, key.Relation)
	}
	return walk, len(walk.Relations) > 0
}

// DefinitionCoverage counts the domain's terms and how many of them have a
// definition. The domain's terms are its concept terms and the heads of its
// held triples: the things the domain makes claims about. Tails are left out
// on purpose: a tail is often a description rather than a term (the tail of
// "lens is_defined_as a curved piece of glass" is the definition itself, and
// "mirror is smooth reflecting surface" names a class by a phrase), so
// counting tails would make coverage measure prose style, not grounding.
func DefinitionCoverage(k *knowledge.Knowledge, conceptTerms []string) (terms, defined int64) {
	seen := map[string]bool{}
	add := func(t string) {
		if t = text.Term(t); t == "" || seen[t] {
			return
		}
		seen[t] = true
		terms++
		for _, d := range k.Definitions(t) {
			if strings.TrimSpace(d.Definition) != "" {
				defined++
				return
			}
		}
	}
	for _, t := range conceptTerms {
		add(t)
	}
	for _, tr := range k.Triples() {
		add(tr.Head)
	}
	return terms, defined
}
