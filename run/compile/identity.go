package compile

// compileIdentityAnchor: axes seed, relations introduce (and are walked),
// every refusal-walk step and every override probe is a false claim the
// runtime must refuse.
func compileIdentityAnchor(body map[string]any, p *plan) error {
	m, path, err := phase(body, "phase_1_axis_declaration", "axes")
	if err == nil {
		err = entries(m, path, "axes", func(v any, path string) error { return axis(v, path, p) })
	}
	if err != nil {
		return err
	}
	if m, path, err = phase(body, "phase_2_immutability_relations", "relations"); err == nil {
		err = introduceRelations(m, path, "relations", p)
	}
	if err != nil {
		return err
	}
	if m, path, err = phase(body, "phase_3_refusal_walks", "walks"); err != nil {
		return err
	}
	walks, err := readWalks(m, path, walkShape{kind: "refusal", extra: "expected_terminal_state"})
	if err != nil {
		return err
	}
	for _, w := range walks {
		for i, s := range w.steps {
			if s.extra != "rejected" {
				return errorf(KindUnusable, child(s.path, "expected_terminal_state"), "a refusal walk must end rejected, not %q", s.extra)
			}
			p.falseClaim(joinIDs(w.id, numberOnly(i)), s.t)
		}
	}
	p.walkTheRest()
	if m, path, err = phase(body, "phase_4_epistemic_boundary_hardening", "adversarial_corrections"); err == nil {
		err = corrections(m, path, p)
	}
	if err != nil {
		return err
	}
	return replay(body, p)
}

// axis seeds one identity axis: "What is <axis>?" with its commitment as
// the definition.
func axis(v any, path string, p *plan) error {
	a, err := object(v, path, "axis_id", "priority", "canonical_term", "commitment", "sources")
	if err != nil {
		return err
	}
	id, err := text(a, path, "axis_id")
	if err != nil {
		return err
	}
	if _, err := text(a, path, "priority"); err != nil {
		return err
	}
	term, err := text(a, path, "canonical_term")
	if err != nil {
		return err
	}
	commitment, err := str(a, path, "commitment")
	if err != nil {
		return err
	}
	p.seed(term, commitment, map[string]any{"axis_id": id})
	return sources(a, path)
}
