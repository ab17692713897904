package compile

import (
	"strconv"
)

// Readers for the entry shapes the templates share.

// sources checks a list of source references: four string fields each.
func sources(m map[string]any, path string) error {
	return entries(m, path, "sources", func(v any, p string) error {
		keys := [...]string{"source_sha", "span", "adapter", "retrieved_at"}
		s, err := object(v, p, keys[:]...)
		if err != nil {
			return err
		}
		for _, k := range keys {
			if _, err := str(s, p, k); err != nil {
				return err
			}
		}
		return nil
	})
}

// tripleOf reads head, relation and tail (named relKey) of an entry.
func tripleOf(m map[string]any, path, relKey string) (triple, error) {
	var t triple
	var err error
	if t.head, err = text(m, path, "head"); err != nil {
		return t, err
	}
	if t.relation, err = text(m, path, relKey); err != nil {
		return t, err
	}
	t.tail, err = text(m, path, "tail")
	return t, err
}

// relation reads {head, relation, tail, sources}.
func relation(v any, path string) (triple, error) {
	m, err := object(v, path, "head", "relation", "tail", "sources")
	if err != nil {
		return triple{}, err
	}
	t, err := tripleOf(m, path, "relation")
	if err != nil {
		return t, err
	}
	return t, sources(m, path)
}

// phase reads body[key] as a mapping with exactly keys.
func phase(body map[string]any, key string, keys ...string) (map[string]any, string, error) {
	path := child("$", key)
	m, err := object(body[key], path, keys...)
	return m, path, err
}

// seedConcepts makes a seed step of each {canonical_term, definition, sources}.
func seedConcepts(m map[string]any, path string, p *plan) error {
	return entries(m, path, "concepts", func(v any, path string) error {
		c, err := object(v, path, "canonical_term", "definition", "sources")
		if err != nil {
			return err
		}
		term, err := text(c, path, "canonical_term")
		if err != nil {
			return err
		}
		def, err := str(c, path, "definition")
		if err != nil {
			return err
		}
		p.seed(term, def, nil)
		return sources(c, path)
	})
}

// introduceRelations makes an introduce step of each relation under key.
func introduceRelations(m map[string]any, path, key string, p *plan) error {
	if l, ok := m[key].([]any); ok {
		p.reserve(len(l))
	}
	return entries(m, path, key, func(v any, path string) error {
		t, err := relation(v, path)
		if err == nil {
			p.introduce(t)
		}
		return err
	})
}

// walkEntry is one step of a walk with the template's extra field.
type walkEntry struct {
	t     triple
	extra string
	path  string
}

type walk struct {
	id    string
	steps []walkEntry
}

// walkShape names a template's walk form: its kind ("" when walks carry no
// kind) and the extra field of each step ("" when none).
type walkShape struct{ kind, extra string }

// readWalks reads m["walks"]: each walk has an id and at least one step.
func readWalks(m map[string]any, path string, shape walkShape) ([]walk, error) {
	var walks []walk
	err := entries(m, path, "walks", func(v any, path string) error {
		w, err := readWalk(v, path, shape)
		walks = append(walks, w)
		return err
	})
	return walks, err
}

func readWalk(v any, path string, shape walkShape) (walk, error) {
	keys := []string{"walk_id", "steps"}
	if shape.kind != "" {
		keys = append(keys, "kind")
	}
	m, err := object(v, path, keys...)
	if err != nil {
		return walk{}, err
	}
	if shape.kind != "" {
		if err := exact(m, path, "kind", shape.kind); err != nil {
			return walk{}, err
		}
	}
	var w walk
	if w.id, err = text(m, path, "walk_id"); err != nil {
		return w, err
	}
	err = entries(m, path, "steps", func(v any, path string) error {
		e, err := readWalkStep(v, path, shape.extra)
		w.steps = append(w.steps, e)
		return err
	})
	if err == nil && len(w.steps) == 0 {
		err = errorf(KindUnusable, child(path, "steps"), "a walk needs at least one step")
	}
	return w, err
}

// readWalkStep reads {head, relation, tail} and the template's extra field.
func readWalkStep(v any, path, extra string) (walkEntry, error) {
	keys := []string{"head", "relation", "tail"}
	if extra != "" {
		keys = append(keys, extra)
	}
	s, err := object(v, path, keys...)
	if err != nil {
		return walkEntry{}, err
	}
	e := walkEntry{path: path}
	if e.t, err = tripleOf(s, path, "relation"); err != nil || extra == "" {
		return e, err
	}
	e.extra, err = str(s, path, extra)
	return e, err
}

// dependencies checks geometric_dependencies: each {from, to} must be the
// head and tail of an introduced relation.
func dependencies(body map[string]any, p *plan) error {
	ends := make(map[[2]string]bool, len(p.relations))
	for _, t := range p.relations {
		ends[[2]string{t.head, t.tail}] = true
	}
	return entries(body, "$", "geometric_dependencies", func(v any, path string) error {
		d, err := object(v, path, "from", "to")
		if err != nil {
			return err
		}
		from, err := text(d, path, "from")
		if err != nil {
			return err
		}
		to, err := text(d, path, "to")
		if err != nil {
			return err
		}
		if !ends[[2]string{from, to}] {
			return errorf(KindInconsistent, path, "dependency %q → %q joins no relation of the course", from, to)
		}
		return nil
	})
}

// corrections compiles adversarial_corrections: an entry with a prompt is a
// prompt probe; any other is a counter probe claiming its triple.
func corrections(m map[string]any, path string, p *plan) error {
	return entries(m, path, "adversarial_corrections", func(v any, path string) error {
		c, err := asMap(v, path)
		if err != nil {
			return err
		}
		if _, ok := c["prompt"]; ok {
			return promptProbe(c, path, p)
		}
		if err := fields(c, path, "probe_id", "head", "relation", "tail", "expected_outcome", "sources"); err != nil {
			return err
		}
		return counterProbe(c, path, "relation", p)
	})
}

func promptProbe(c map[string]any, path string, p *plan) error {
	if err := fields(c, path, "probe_id", "prompt", "expected_outcome", "rationale"); err != nil {
		return err
	}
	id, err := text(c, path, "probe_id")
	if err != nil {
		return err
	}
	prompt, err := text(c, path, "prompt")
	if err != nil {
		return err
	}
	if err := exact(c, path, "expected_outcome", "rejected"); err != nil {
		return err
	}
	if _, err := str(c, path, "rationale"); err != nil {
		return err
	}
	p.promptProbe(id, prompt)
	return nil
}

// counterProbe compiles a probe whose keys were checked by the caller; the
// claimed relation is under relKey.
func counterProbe(c map[string]any, path, relKey string, p *plan) error {
	id, err := text(c, path, "probe_id")
	if err != nil {
		return err
	}
	t, err := tripleOf(c, path, relKey)
	if err != nil {
		return err
	}
	if err := exact(c, path, "expected_outcome", "rejected"); err != nil {
		return err
	}
	if err := sources(c, path); err != nil {
		return err
	}
	p.falseClaim(id, t)
	return nil
}

// replay compiles phase_5: the declared gates become one replay step.
func replay(body map[string]any, p *plan) error {
	m, path, err := phase(body, "phase_5_ratified_consolidation", "ratification_gates", "promotion_path")
	if err != nil {
		return err
	}
	if _, err := text(m, path, "promotion_path"); err != nil {
		return err
	}
	gates, err := stringList(m, path, "ratification_gates")
	if err != nil {
		return err
	}
	if len(gates) == 0 {
		return errorf(KindUnusable, child(path, "ratification_gates"), "a course declares at least one gate")
	}
	for i, g := range gates {
		if g == "" {
			return errorf(KindUnusable, index(child(path, "ratification_gates"), i), "empty gate name")
		}
	}
	p.replayGates(gates)
	return nil
}

func numbered(prefix string, i int) string {
	s := strconv.Itoa(i)
	if len(s) < 4 {
		s = "0000"[len(s):] + s
	}
	return prefix + "_" + s
}
