package pipeline_test

import (
	"context"
	"path/filepath"
	"testing"

	"formation/artifact"
	"formation/audit"
	"formation/compose"
	"formation/forge"
	"formation/internal/testutil"
	"formation/packs"
	"formation/run"
	"formation/run/compile"
)

// parse(utterance(step)) == step over forged triples: candidates whose
// heads and tails carry what real documents carry — possessives, brackets,
// punctuation around words, a leading wh-word or article, declared relations
// — are validated by the forge, composed, compiled and driven through the
// runtime, and every seed, introduction and counter-claim probe is reached
// by a user typing its own words.
func TestForgedTermsAreReachedByTheirWords(t *testing.T) {
	ctx := context.Background()
	texts := forge.MemoryTexts{}
	sha := "a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1"
	cite := func(sentence string) []artifact.SourceRef {
		d := texts.Put([]byte(sentence))
		start, end := int64(0), int64(len(sentence))
		return []artifact.SourceRef{{SourceSHA: sha, Span: sentence, Adapter: "file", RetrievedAt: "2026-05-16T00:00:00Z",
			TextSHA: d, Start: &start, End: &end}}
	}
	rel := func(h, r, tl string) artifact.RelationCandidate {
		return artifact.RelationCandidate{Head: h, Relation: r, Tail: tl, Sources: cite(h + " " + r + " " + tl + "."), State: artifact.StateProposed}
	}
	con := func(term, def string) artifact.ConceptCandidate {
		return artifact.ConceptCandidate{CanonicalTerm: term, Definition: def, Sources: cite(term + " is " + def + "."), State: artifact.StateProposed}
	}
	bundle := artifact.SmeltedBundle{
		Relations: []artifact.RelationCandidate{
			rel("go's scheduler", "has", "run queue"), rel("a[x]", "is", "element x"), rel("(optional) value", "is", "nil"),
			rel("when the buffer", "is", "full"), rel("node.js runtime", "produces", "events"), rel("package strings", "defines", "builder type"),
			rel("lens", "is_part_of", "camera"), rel("user's guide", "provides", "examples"), rel("f(x)", "causes", "g(x)"),
			rel("that's it", "means", "agreement"), rel("don't repeat yourself", "is", "principle"),
		},
		Concepts: []artifact.ConceptCandidate{con("go's runtime", "the runtime of Go"), con("a[i][j]", "an element of a matrix"),
			con("which lens", "a lens"), con("node.js", "a JavaScript runtime"), con("c++", "a language")},
		Counters: []artifact.CounterCandidate{rel("go's scheduler", "causes", "deadlock"), rel("a[x]", "produces", "copy")},
	}
	allow, err := forge.NewAllowlist([]artifact.AllowedSource{{SourceSHA: sha, Tier: artifact.TierPrimary}})
	must(t, err)
	res, err := forge.Validate(ctx, forge.Config{Allowlist: allow, SpanChecker: texts, Relations: []string{"defines", "provides", "is_part_of"}}, "forged", bundle)
	must(t, err)
	if len(res.VTS.Relations) != 10 || len(res.VTS.Concepts) != 5 || len(res.VTS.Counters) != 2 {
		t.Fatalf("forged %d relations, %d concepts, %d counters: %+v", len(res.VTS.Relations), len(res.VTS.Concepts), len(res.VTS.Counters), res.Findings)
	}
	// "do not repeat yourself is principle." is read as a yes/no question
	// by a user's parser: the forge refuses the claim rather than teach what
	// no one can ask for.
	if len(res.VTS.Quarantined) != 1 || res.VTS.Quarantined[0].Head != "don't repeat yourself" || res.VTS.Quarantined[0].RejectionReason != forge.ReasonMalformed {
		t.Fatalf("quarantined %+v", res.VTS.Quarantined)
	}
	spec := artifact.SubjectSpec{SubjectID: "forged", Title: "Forged", TargetDepth: "introductory", RequiresCourses: []string{},
		AntiRequisites: []string{}, IdentityAxisConstraints: []string{}, SchemaVersion: artifact.SchemaVersion}
	course, y, err := compose.Compose(res.VTS, spec, sha, "definition", "1.0.0")
	must(t, err)
	plan, err := compile.Compile(course, y)
	must(t, err)
	loaded, err := packs.Load(ctx, packs.Options{Dir: shippedPacksDir(t)})
	must(t, err)
	passes, err := run.DrivePlan(ctx, plan, res.VTS, loaded, run.Options{})
	must(t, err)
	for _, u := range passes[0].Unreached {
		t.Errorf("step %d %q reads as %s", u.Index, u.Utterance, u.Reading)
	}
	for i, r := range passes[0].Output.Results {
		if legit := r.StepType != artifact.StepAdversarialProbe && r.StepType != artifact.StepReplayAssertion; legit && !r.Accepted {
			t.Errorf("step %d %s %v not accepted", i, r.StepType, r.Payload["utterance"])
		}
	}
}

// The example subject's every concept, relation and counter-claim is reached
// by its own words: courses/optics autoruns to ratified, G4 at 1.0, with no
// user_path_unreachable record.
func TestOpticsReachedByItsOwnWords(t *testing.T) {
	ctx := context.Background()
	root, err := testutil.ModuleRoot()
	must(t, err)
	p := tinyPipeline(t, filepath.Join(root, "courses"))
	results, err := p.Autorun(ctx, "optics")
	if err != nil || len(results) != 6 {
		t.Fatalf("autorun optics: %v", err)
	}
	raw, err := p.Env.Store.Get(ctx, results[5].Output)
	must(t, err)
	rep, err := artifact.Decode[artifact.MasteryReport](raw)
	must(t, err)
	if !rep.Ratified || rep.Gates[2].Name != "G4_legitimate_acceptance_rate" || rep.Gates[2].Measurement != "1.0" {
		t.Fatalf("optics: %+v", rep)
	}
	recs, err := audit.List(ctx, p.Env.Store, audit.Filter{Subject: "optics", Stage: "run"})
	must(t, err)
	if len(recs) != 0 {
		t.Fatalf("run audit records: %+v", recs)
	}
}
