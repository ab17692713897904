package forge

import (
	"strings"
	"testing"

	"formation/artifact"
)

func TestR1CompoundPredicatesValidate(t *testing.T) {
	f := newFixture(t)
	var cs []artifact.RelationCandidate
	for _, tr := range [][3]string{
		{"lens", "belongs_to", "optics"}, {"red", "contrasts_with", "green"}, {"fever", "is_caused_by", "infection"},
		{"lens", "is_defined_as", "curved glass"}, {"claim", "is_verified_as", "evidence"}, {"baking", "has_steps", "mixing"},
	} {
		cs = append(cs, rc(tr[0], tr[1], tr[2], f.cite(primarySHA, tr[0]+" "+tr[1]+" "+tr[2]+".")))
	}
	res := validate(t, f.cfg, artifact.SmeltedBundle{Relations: cs})
	if len(res.VTS.Relations) != 6 || len(res.VTS.Quarantined) != 0 {
		t.Fatalf("relations %+v quarantined %+v", res.VTS.Relations, res.VTS.Quarantined)
	}
	if len(res.Findings) != 0 {
		t.Errorf("byte-checked, corroborated relations produce no findings: %+v", res.Findings)
	}
}

func TestR1Malformed(t *testing.T) {
	f := newFixture(t)
	src := f.cite(primarySHA, "Some sentence.")
	cases := []artifact.RelationCandidate{
		rc("lens", "belongs to", "optics", src),        // spaced compound: not a vocabulary relation
		rc("Light", "Reveals", "shape", src),           // relation names are identifiers, not prose
		rc("lens", "refracts", "light", src),           // not in the vocabulary
		rc("", "is", "empty head", src),                // empty part
		rc("light", "is", "", src),                     // empty part
		rc("the lens", "is", "glass", src),             // edge article
		rc("lens", "is", "a glass", src),               // edge article
		rc("convex  lens", "is", "converging", src),    // doubled space
		rc("light", "is", "fast.", src),                // trailing punctuation
		rc("actually light", "is", "fast", src),        // leading discourse marker
		rc("light", "has", "energy is conserved", src), // the parser picks 'is' first
		rc(" lens", "is", "glass", src),                // untrimmed
	}
	res := validate(t, f.cfg, artifact.SmeltedBundle{Relations: cases})
	if len(res.VTS.Relations) != 0 || len(res.VTS.Quarantined) != len(cases) {
		t.Fatalf("want all %d quarantined, got %d validated, %d quarantined", len(cases), len(res.VTS.Relations), len(res.VTS.Quarantined))
	}
	for _, q := range res.VTS.Quarantined {
		if q.RejectionReason != ReasonMalformed || q.State != artifact.StateQuarantined {
			t.Errorf("%+v: want malformed", q)
		}
		// A malformed candidate keeps its text as written: there is no
		// normal form to show.
		if _, ok := findingFor(res, KindRelation, relKey(q.Head, q.Relation, q.Tail), ReasonMalformed); !ok {
			t.Errorf("no finding for %q", q.Triple())
		}
	}
}

func TestR1CaseNormalisedOnce(t *testing.T) {
	f := newFixture(t)
	res := validate(t, f.cfg, artifact.SmeltedBundle{Relations: []artifact.RelationCandidate{
		rc("Lens", "produces", "Image", f.cite(secondary1, "Lens produces Image.")),
		rc("lens", "produces", "image", f.cite(secondary2, "A lens produces an image.")),
		rc("ΦΩΣ", "is", "Light", f.cite(primarySHA, "ΦΩΣ is Light.")),
		rc("İstanbul", "has", "Bridges", f.cite(primarySHA, "İstanbul has Bridges.")),
	}})
	for _, tr := range [][3]string{{"lens", "produces", "image"}, {"φως", "is", "light"}, {"i\u0307stanbul", "has", "bridges"}} {
		if !hasRelation(res.VTS, tr[0], tr[1], tr[2]) {
			t.Errorf("missing validated %q in %+v", tr, res.VTS.Relations)
		}
	}
	// The two spellings of one claim are one claim: merged, and their two
	// secondary sources together corroborate it.
	if len(res.VTS.Relations) != 3 {
		t.Errorf("want 3 relations, got %+v", res.VTS.Relations)
	}
	if _, ok := findingFor(res, KindRelation, relKey("lens", "produces", "image"), ReasonDuplicateMerged); !ok {
		t.Errorf("merge not recorded: %+v", res.Findings)
	}
}

func TestR2IdentityScreenWholeTerms(t *testing.T) {
	f := newFixture(t)
	f.cfg.IdentityTerms = []string{"no_fabricated_source", "reverence"}
	src := f.cite(primarySHA, "A sentence that says it.")
	screened := []struct {
		term string
		c    artifact.RelationCandidate
	}{
		{"self", rc("self", "is", "reflection", src)},
		{"Self", rc("Self", "is", "mirror", src)},
		{"truth", rc("light", "reveals", "truth", src)},
		{"No_Fabricated_Source", rc("No_Fabricated_Source", "is", "boundary", src)},
		{"no-fabricated-source", rc("no-fabricated-source", "has", "reasons", src)},
		{"no_fabricated_source", rc("x", "grounds", "no_fabricated_source", src)},
		{"reverence", rc("reverence", "means", "care", src)},
	}
	legal := []artifact.RelationCandidate{
		rc("self-focus", "is", "autofocus", src),
		rc("self_focus", "is", "autofocus", src),
		rc("light source", "produces", "light", src),
		rc("self image", "has", "parts", src),
		rc("fabricated source", "is", "forbidden", src),
		rc("truthful lens", "is", "sharp", src),
		rc("light", "is", "identity_matrix", src),
	}
	var all []artifact.RelationCandidate
	for _, s := range screened {
		all = append(all, s.c)
	}
	all = append(all, legal...)
	res := validate(t, f.cfg, artifact.SmeltedBundle{Relations: all})
	for _, s := range screened {
		n := normalTriple(s.c.Triple())
		if got := quarantineReason(res.VTS, n.Head, n.Relation, n.Tail); got != ReasonIdentityCollision {
			t.Errorf("%q (%q): reason %q, want identity_axis_collision", s.term, n, got)
		}
	}
	for _, c := range legal {
		if !hasRelation(res.VTS, c.Head, c.Relation, c.Tail) {
			t.Errorf("%q screened or rejected: %q", c.Triple(), quarantineReason(res.VTS, c.Head, c.Relation, c.Tail))
		}
	}
}

func TestR2DefaultsStayAndExemptionsLift(t *testing.T) {
	f := newFixture(t)
	f.cfg.IdentityTerms = []string{"forbidden"}
	f.cfg.ExemptTerms = []string{"truthfulness", "No-Identity-Override"}
	f.cfg.IdentityTerms = append(f.cfg.IdentityTerms, "no_identity_override")
	src := f.cite(primarySHA, "Axes and boundaries.")
	res := validate(t, f.cfg, artifact.SmeltedBundle{
		Concepts: []artifact.ConceptCandidate{
			cc("truth", "what is the case", src),                      // default term: still screened
			cc("forbidden", "configured term", src),                   // configured term
			cc("truthfulness", "an axis of the pack", src),            // exempt for this course
			cc("no_identity_override", "a boundary of the pack", src), // exempt (any spelling)
			cc("coherence", "a default term not exempted", src),
		},
	})
	kept := map[string]bool{}
	for _, c := range res.VTS.Concepts {
		kept[c.CanonicalTerm] = true
	}
	if !kept["truthfulness"] || !kept["no_identity_override"] || len(kept) != 2 {
		t.Errorf("kept %v, want truthfulness and no_identity_override", kept)
	}
	for _, term := range []string{"truth", "forbidden", "coherence"} {
		found := false
		for _, fd := range res.Findings {
			found = found || (fd.Kind == KindConcept && strings.HasPrefix(fd.Key, `["`+term+`",`) && fd.ReasonCode == ReasonIdentityCollision)
		}
		if !found {
			t.Errorf("concept %q not screened: %+v", term, res.Findings)
		}
	}
}

func TestR3Sources(t *testing.T) {
	f := newFixture(t)
	long := strings.Repeat("x", 200)
	res := validate(t, f.cfg, artifact.SmeltedBundle{Relations: []artifact.RelationCandidate{
		rc("prism", "produces", "spectrum"),
		rc("prism", "causes", "dispersion", plain("../escape", "x")),
		rc("prism", "grounds", "colour", plain(strings.ToUpper(primarySHA), "x")),
		rc("prism", "means", "wedge", f.cite(unlistedSHA, "Prism means wedge.")),
		rc("prism", "has", "facets", f.cite(primarySHA, "Prism has facets."), plain("../x", "x")),
		rc("prism", "recalls", "glass", plain(long, "x")),
		rc("prism", "reveals", "light", plain("bell\a", "x")),
	}})
	want := map[string]string{
		"produces": ReasonNoSources,
		"causes":   `invalid_source:malformed_sha:"../escape"`,
		"grounds":  `invalid_source:malformed_sha:"` + strings.ToUpper(primarySHA) + `"`,
		"means":    "invalid_source:not_in_allowlist:" + unlistedSHA,
		"has":      `invalid_source:malformed_sha:"../x"`,
		"recalls":  `invalid_source:malformed_sha:"` + long[:maxEscaped] + `"+104B`,
		"reveals":  `invalid_source:malformed_sha:"bell\a"`,
	}
	for _, q := range res.VTS.Quarantined {
		if q.RejectionReason != want[q.Relation] {
			t.Errorf("%s: %q, want %q", q.Relation, q.RejectionReason, want[q.Relation])
		}
		delete(want, q.Relation)
	}
	if len(want) != 0 {
		t.Errorf("not quarantined: %v", want)
	}
}

func TestR4ExistingDroppedWithFinding(t *testing.T) {
	f := newFixture(t)
	f.cfg.Existing = []artifact.Triple{{Head: "light", Relation: "is", Tail: "wave"}, {Head: "Prism", Relation: "produces", Tail: "Spectrum"}}
	res := validate(t, f.cfg, artifact.SmeltedBundle{
		Relations: []artifact.RelationCandidate{
			rc("Light", "is", "wave", f.cite(primarySHA, "Light is wave.")),
			rc("prism", "produces", "spectrum", f.cite(primarySHA, "A prism produces a spectrum.")),
			rc("lens", "is", "glass", f.cite(primarySHA, "Lens is glass.")),
		},
		Counters: []artifact.CounterCandidate{rc("light", "is", "wave", f.cite(primarySHA, "Not light is wave."))},
	})
	if len(res.VTS.Relations) != 1 || !hasRelation(res.VTS, "lens", "is", "glass") || len(res.VTS.Quarantined) != 0 {
		t.Fatalf("relations %+v quarantined %+v", res.VTS.Relations, res.VTS.Quarantined)
	}
	for _, k := range []string{relKey("light", "is", "wave"), relKey("prism", "produces", "spectrum")} {
		fd, ok := findingFor(res, KindRelation, k, ReasonDuplicateExisting)
		if !ok || !fd.SpanChecked {
			t.Errorf("%s: finding %+v (%v); the spans were checked before R4", k, fd, ok)
		}
	}
	if len(res.VTS.Counters) != 1 {
		t.Errorf("R4 does not apply to counter-claims: %+v", res.VTS.Counters)
	}
}

func TestR5Corroboration(t *testing.T) {
	f := newFixture(t)
	llmAdapter := f.cite(primarySHA, "An idea from a model.")
	llmAdapter.Adapter = artifact.AdapterLLMPrefix + "model-x"
	cases := []struct {
		tail string
		refs []artifact.SourceRef
		ok   bool
	}{
		{"one-primary", []artifact.SourceRef{f.cite(primarySHA, "w is one-primary.")}, true},
		{"one-secondary", []artifact.SourceRef{f.cite(secondary1, "w is one-secondary.")}, false},
		{"two-secondary", []artifact.SourceRef{f.cite(secondary1, "w is two-secondary."), f.cite(secondary2, "w is two-secondary!")}, true},
		{"same-secondary-twice", []artifact.SourceRef{f.cite(secondary1, "w is same-secondary-twice."), f.cite(secondary1, "W is same-secondary-twice.")}, false},
		{"llm", []artifact.SourceRef{f.cite(llmSHA, "w is llm.")}, false},
		{"llm-and-secondary", []artifact.SourceRef{f.cite(llmSHA, "w is llm-and-secondary."), f.cite(secondary1, "w is llm-and-secondary!")}, false},
		{"llm-and-two-secondary", []artifact.SourceRef{f.cite(llmSHA, "a."), f.cite(secondary1, "b."), f.cite(secondary3, "c.")}, true},
		{"primary-digest-llm-adapter", []artifact.SourceRef{llmAdapter}, false},
	}
	var cs []artifact.RelationCandidate
	for _, c := range cases {
		cs = append(cs, rc("w", "is", c.tail, c.refs...))
	}
	res := validate(t, f.cfg, artifact.SmeltedBundle{Relations: cs})
	for _, c := range cases {
		got := hasRelation(res.VTS, "w", "is", c.tail)
		if got != c.ok {
			t.Errorf("%s: validated=%v, want %v", c.tail, got, c.ok)
		}
		if !c.ok {
			if r := quarantineReason(res.VTS, "w", "is", c.tail); r != ReasonInsufficient {
				t.Errorf("%s: reason %q", c.tail, r)
			}
			if fd, ok := findingFor(res, KindRelation, relKey("w", "is", c.tail), ReasonInsufficient); !ok || !fd.SpanChecked {
				t.Errorf("%s: finding %+v %v", c.tail, fd, ok)
			}
		}
	}
}

func TestNoTripleCacheAcrossCalls(t *testing.T) {
	f := newFixture(t)
	first := validate(t, f.cfg, artifact.SmeltedBundle{Relations: []artifact.RelationCandidate{
		rc("lens", "is", "glass", f.cite(primarySHA, "Lens is glass.")),
	}})
	second := validate(t, f.cfg, artifact.SmeltedBundle{Relations: []artifact.RelationCandidate{
		rc("lens", "is", "glass", f.cite(llmSHA, "Lens is glass, says a model.")),
	}})
	if !hasRelation(first.VTS, "lens", "is", "glass") {
		t.Fatal("first call did not validate")
	}
	if quarantineReason(second.VTS, "lens", "is", "glass") != ReasonInsufficient {
		t.Errorf("an earlier validation lent corroboration to a weaker citation: %+v", second.VTS)
	}
}

func TestDuplicatesMergedWithSources(t *testing.T) {
	f := newFixture(t)
	a, b := f.cite(secondary1, "Sun produces light."), f.cite(secondary2, "The sun produces light.")
	res := validate(t, f.cfg, artifact.SmeltedBundle{Relations: []artifact.RelationCandidate{
		rc("sun", "produces", "light", a),
		rc("Sun", "produces", "Light", b, a),
		rc("sun", "produces", "light", a),
	}})
	if len(res.VTS.Relations) != 1 {
		t.Fatalf("want one merged relation: %+v", res.VTS.Relations)
	}
	got := res.VTS.Relations[0].Sources
	if len(got) != 2 || compareSource(got[0], got[1]) >= 0 {
		t.Errorf("sources not unioned and sorted: %+v", got)
	}
	n := 0
	for _, fd := range res.Findings {
		if fd.ReasonCode == ReasonDuplicateMerged {
			n++
		}
	}
	if n != 2 {
		t.Errorf("want 2 merge findings for 3 copies, got %d: %+v", n, res.Findings)
	}
}

func TestConcepts(t *testing.T) {
	f := newFixture(t)
	res := validate(t, f.cfg, artifact.SmeltedBundle{Concepts: []artifact.ConceptCandidate{
		cc("Lens", "a refracting element", f.cite(primarySHA, "A lens is a refracting element.")),
		cc("lens", "a curved glass", f.cite(primarySHA, "A lens is a curved glass.")),
		cc("lens", "a curved glass", f.cite(secondary1, "Lens: a curved glass.")),
		cc("prism", "a wedge", f.cite(llmSHA, "A prism is a wedge.")),
		cc("the cat", "a mammal", f.cite(primarySHA, "The cat is a mammal.")),
		cc("mirror", "  ", f.cite(primarySHA, "Mirror means.")),
		cc("aperture", "an opening"),
	}})
	if len(res.VTS.Concepts) != 1 {
		t.Fatalf("want one concept, got %+v", res.VTS.Concepts)
	}
	got := res.VTS.Concepts[0]
	// Both definitions of "lens" validate; the first in code-point order
	// ("a curved glass" < "a refracting element") is kept with the
	// citations of that definition only.
	if got.CanonicalTerm != "lens" || got.Definition != "a curved glass" || len(got.Sources) != 2 || got.State != artifact.StateValidated {
		t.Errorf("concept %+v", got)
	}
	for _, want := range []struct{ key, code string }{
		{keyJSON("lens", "a refracting element"), ReasonDuplicateTerm},
		{keyJSON("lens", "a curved glass"), ReasonDuplicateMerged},
		{keyJSON("prism", "a wedge"), ReasonInsufficient},
		{keyJSON("the cat", "a mammal"), ReasonMalformed},
		{keyJSON("mirror", "  "), ReasonMalformed},
		{keyJSON("aperture", "an opening"), ReasonNoSources},
	} {
		if _, ok := findingFor(res, KindConcept, want.key, want.code); !ok {
			t.Errorf("no %s finding for %s: %+v", want.code, want.key, res.Findings)
		}
	}
}

func TestCounters(t *testing.T) {
	f := newFixture(t)
	res := validate(t, f.cfg, artifact.SmeltedBundle{Counters: []artifact.CounterCandidate{
		rc("Earth", "is", "flat", f.cite(primarySHA, "It is a misconception that the earth is flat.")),
		rc("lens", "belongs_to", "chemistry", f.cite(primarySHA, "Not lens belongs_to chemistry.")),
		rc("the lens", "is", "a mirror", f.cite(primarySHA, "Not the lens is a mirror.")),
		rc("lens", "is", "flat", f.cite(llmSHA, "Not lens is flat.")),
		rc("honesty", "is", "optional", f.cite(primarySHA, "Not honesty is optional.")),
	}})
	if len(res.VTS.Counters) != 2 || res.VTS.Counters[0].Head != "earth" || res.VTS.Counters[1].Relation != "belongs_to" {
		t.Fatalf("counters %+v", res.VTS.Counters)
	}
	if len(res.VTS.Quarantined) != 0 {
		t.Errorf("counter-claims are reported by findings, not in the relation quarantine: %+v", res.VTS.Quarantined)
	}
	for _, want := range []struct{ key, code string }{
		{relKey("the lens", "is", "a mirror"), ReasonMalformed},
		{relKey("lens", "is", "flat"), ReasonInsufficient},
		{relKey("honesty", "is", "optional"), ReasonIdentityCollision},
	} {
		if _, ok := findingFor(res, KindCounter, want.key, want.code); !ok {
			t.Errorf("no %s finding for %s", want.code, want.key)
		}
	}
}

func TestOrderingHints(t *testing.T) {
	f := newFixture(t)
	f.cfg.Existing = []artifact.Triple{{Head: "Optics", Relation: "has", Tail: "history"}}
	src := f.cite(primarySHA, "First focus, then blur.")
	var rels []artifact.RelationCandidate
	for _, tr := range [][2]string{{"wave", "ray"}, {"lens", "image"}, {"focus", "blur"}} {
		rels = append(rels, rc(tr[0], "precedes", tr[1], f.cite(primarySHA, tr[0]+" precedes "+tr[1]+".")))
	}
	res := validate(t, f.cfg, artifact.SmeltedBundle{
		Relations: rels,
		OrderingHints: []artifact.OrderingHint{
			oh("wave", "ray"), oh("ray", "lens"), oh("lens", "wave"), // a cycle: all three dropped
			oh("image", "wave"),                          // into the cycle, not on it: kept
			oh("focus", "blur", src),                     // kept, with its citation
			oh("Focus", "Blur", src),                     // the same hint: merged
			oh("optics", "focus"),                        // a known (existing) term
			oh("blur", "blur"),                           // a term before itself
			oh("blur", "unknown"),                        // not a known term
			oh("self", "wave"),                           // identity term
			oh("wave", "focus", plain(unlistedSHA, "x")), // unlisted citation
			oh("the wave", "focus"),                      // not a well-formed term
		},
	})
	var got []string
	for _, h := range res.VTS.OrderingHints {
		got = append(got, h.Before+">"+h.After)
	}
	if strings.Join(got, " ") != "focus>blur image>wave optics>focus" {
		t.Errorf("hints %v, want focus>blur image>wave optics>focus", got)
	}
	if fb := res.VTS.OrderingHints[0]; len(fb.Sources) != 1 || fb.Sources[0].SourceSHA != primarySHA {
		t.Errorf("merged hint sources %+v", fb.Sources)
	}
	for _, want := range []struct{ before, after, code string }{
		{"wave", "ray", ReasonOrderingCycle}, {"ray", "lens", ReasonOrderingCycle}, {"lens", "wave", ReasonOrderingCycle},
		{"blur", "blur", ReasonOrderingCycle}, {"blur", "unknown", ReasonOrderingUnknown}, {"self", "wave", ReasonIdentityCollision},
		{"wave", "focus", ReasonNotInAllowlist}, {"the wave", "focus", ReasonMalformed}, {"focus", "blur", ReasonDuplicateMerged},
	} {
		if _, ok := findingFor(res, KindOrderingHint, keyJSON(want.before, want.after), want.code); !ok {
			t.Errorf("no %s finding for %s>%s", want.code, want.before, want.after)
		}
	}
	if _, ok := findingFor(res, KindOrderingHint, keyJSON("focus", "blur"), ReasonSpanNotByteChecked); ok {
		t.Errorf("a byte-checked hint citation reported as unchecked")
	}
}

func TestSubjectAndEncodingChecks(t *testing.T) {
	f := newFixture(t)
	for _, id := range []string{"", ".hidden", "a/../b", "a..b", "sub ject", "x/y"} {
		if _, err := Validate(t.Context(), f.cfg, id, artifact.SmeltedBundle{}); err == nil {
			t.Errorf("subject id %q accepted", id)
		}
	}
	bad := artifact.SmeltedBundle{Relations: []artifact.RelationCandidate{rc("x\xff", "is", "y")}}
	if _, err := Validate(t.Context(), f.cfg, "ok", bad); err == nil {
		t.Error("invalid UTF-8 accepted")
	}
	res := validate(t, f.cfg, artifact.SmeltedBundle{})
	if res.VTS.SubjectID != "subject.test" || res.VTS.SchemaVersion != artifact.SchemaVersion || len(res.Findings) != 0 {
		t.Errorf("empty bundle: %+v", res)
	}
}

func TestEscapeUntrusted(t *testing.T) {
	if got := escapeUntrusted("a\"b\n"); got != `"a\"b\n"` {
		t.Errorf("got %s", got)
	}
	s := strings.Repeat("é", 100) // 200 bytes; the cut must not split a rune
	got := escapeUntrusted(s)
	if !strings.HasSuffix(got, `"+104B`) || !strings.HasPrefix(got, `"`+strings.Repeat("é", 48)+`"`) {
		t.Errorf("got %s", got)
	}
}
