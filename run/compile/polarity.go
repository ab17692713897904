package compile

// compileFalsification: the polarity pairs are carried by the polarity
// walks (walk i carries pair i: reject its rejected claim, then accept its
// coherent alternative). The rejected claim becomes a false_claim probe
// named by the pair id, the alternative a walk step; the pair and the walk
// must agree, and the alternative must be a supporting relation.
func compileFalsification(body map[string]any, p *plan) error {
	m, path, err := phase(body, "phase_1_ontological_seeding", "concepts")
	if err == nil {
		err = seedConcepts(m, path, p)
	}
	if err != nil {
		return err
	}
	corpus, corpusPath, err := phase(body, "phase_2_falsification_corpus", "polarity_pairs", "unmatched_counters", "supporting_relations")
	if err == nil {
		err = introduceRelations(corpus, corpusPath, "supporting_relations", p)
	}
	if err != nil {
		return err
	}
	if err := polarityPairs(body, corpus, corpusPath, p); err != nil {
		return err
	}
	n := 0
	if err := entries(corpus, corpusPath, "unmatched_counters", func(v any, path string) error {
		t, err := relation(v, path)
		if err == nil {
			p.falseClaim(numbered("unmatched", n), t)
			n++
		}
		return err
	}); err != nil {
		return err
	}
	p.walkTheRest()
	if err := dependencies(body, p); err != nil {
		return err
	}
	if m, path, err = phase(body, "phase_4_epistemic_boundary_hardening", "adversarial_corrections"); err == nil {
		err = corrections(m, path, p)
	}
	if err != nil {
		return err
	}
	return replay(body, p)
}

type pair struct {
	id                    string
	rejected, alternative triple
}

func polarityPairs(body, corpus map[string]any, corpusPath string, p *plan) error {
	var pairs []pair
	if err := entries(corpus, corpusPath, "polarity_pairs", func(v any, path string) error {
		m, err := object(v, path, "pair_id", "rejected_claim", "coherent_alternative")
		if err != nil {
			return err
		}
		var pr pair
		if pr.id, err = text(m, path, "pair_id"); err != nil {
			return err
		}
		if pr.rejected, err = relation(m["rejected_claim"], child(path, "rejected_claim")); err != nil {
			return err
		}
		if pr.alternative, err = relation(m["coherent_alternative"], child(path, "coherent_alternative")); err != nil {
			return err
		}
		if !p.has(pr.alternative) {
			return errorf(KindInconsistent, child(path, "coherent_alternative"), "%q is not a supporting relation", pr.alternative.String())
		}
		pairs = append(pairs, pr)
		return nil
	}); err != nil {
		return err
	}
	m, path, err := phase(body, "phase_3_polarity_walks", "walks")
	if err != nil {
		return err
	}
	walks, err := readWalks(m, path, walkShape{kind: "polarity_flip", extra: "polarity"})
	if err != nil {
		return err
	}
	if len(walks) != len(pairs) {
		return errorf(KindInconsistent, child(path, "walks"), "%d polarity walks for %d pairs", len(walks), len(pairs))
	}
	for i, w := range walks {
		pr := pairs[i]
		if len(w.steps) != 2 || w.steps[0] != (walkEntry{pr.rejected, "reject", w.steps[0].path}) ||
			w.steps[1] != (walkEntry{pr.alternative, "accept", w.steps[1].path}) {
			return errorf(KindInconsistent, index(child(path, "walks"), i), "walk does not reject then accept pair %q", pr.id)
		}
		p.falseClaim(pr.id, pr.rejected)
		if err := p.walk(pr.alternative, w.steps[1].path, nil); err != nil {
			return err
		}
	}
	return nil
}
