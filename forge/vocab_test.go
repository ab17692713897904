package forge

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"slices"
	"strings"
	"testing"

	"formation/artifact"
)

// R1 accepts exactly the 17 and the declared relations; the set records
// the declaration, and a set without one has no declared_relations at all.
func TestDeclaredRelationsWidenR1(t *testing.T) {
	f := newFixture(t)
	bundle := artifact.SmeltedBundle{Relations: []artifact.RelationCandidate{
		rc("package strings", "defines", "builder type", f.cite(primarySHA, "Package strings defines the Builder type.")),
		rc("lens", "is_part_of", "camera", f.cite(primarySHA, "A lens is part of a camera.")),
		rc("module", "contains", "code", f.cite(primarySHA, "The module contains code.")),
	}}
	plain := validate(t, f.cfg, bundle)
	if len(plain.VTS.Relations) != 0 || len(plain.VTS.Quarantined) != 3 || plain.VTS.DeclaredRelations != nil {
		t.Fatalf("without a declaration: %+v", plain.VTS)
	}
	cfg := f.cfg
	cfg.Relations = []string{"is_part_of", "defines"}
	res := validate(t, cfg, bundle)
	if !hasRelation(res.VTS, "package strings", "defines", "builder type") || !hasRelation(res.VTS, "lens", "is_part_of", "camera") {
		t.Fatalf("declared relations did not validate: %+v", res.VTS.Relations)
	}
	if quarantineReason(res.VTS, "module", "contains", "code") != ReasonMalformed {
		t.Fatalf("an undeclared relation validated: %+v", res.VTS)
	}
	if !slices.Equal(res.VTS.DeclaredRelations, []string{"defines", "is_part_of"}) {
		t.Fatalf("declared_relations %v", res.VTS.DeclaredRelations)
	}
	cfg.Relations = []string{"Contains"}
	if _, err := Validate(context.Background(), cfg, "subject.test", bundle); !errors.Is(err, ErrInvalidInput) {
		t.Fatalf("a bad declaration: %v", err)
	}
}

// After R1, heads, tails and terms are written the way a user types them
// (text.NormalTerm); a candidate R1 refuses as written stays refused.
func TestTermsInTheUsersNormalForm(t *testing.T) {
	f := newFixture(t)
	src := f.cite(primarySHA, "Some sentence.")
	res := validate(t, f.cfg, artifact.SmeltedBundle{
		Relations: []artifact.RelationCandidate{
			rc("go's scheduler", "has", "run queue", src),
			rc("a[x]", "is", "element x", src),
			rc("when the buffer", "is", "full", src),
			rc("light", "is", "what", src),            // nothing a user could type is left of the tail
			rc("_", "means", "blank identifier", src), // kept by the normal form, but no knowledge key
			rc("the lens", "is", "glass", src),        // refused as written, as before
			rc("(optional) value", "is", "nil", src),
		},
		Concepts: []artifact.ConceptCandidate{
			cc("go's runtime", "the runtime of Go", src),
			cc("which lens", "a lens", src),
			cc("_", "the blank identifier", src),
		},
	})
	for _, want := range [][3]string{{"go scheduler", "has", "run queue"}, {"a[x]", "is", "element x"},
		{"buffer", "is", "full"}, {"optional value", "is", "nil"}} {
		if !hasRelation(res.VTS, want[0], want[1], want[2]) {
			t.Errorf("%v not validated in normal form: %+v", want, res.VTS.Relations)
		}
	}
	if quarantineReason(res.VTS, "light", "is", "what") != ReasonMalformed || quarantineReason(res.VTS, "the lens", "is", "glass") != ReasonMalformed ||
		quarantineReason(res.VTS, "_", "means", "blank identifier") != ReasonMalformed {
		t.Fatalf("quarantined %+v", res.VTS.Quarantined)
	}
	var terms []string
	for _, c := range res.VTS.Concepts {
		terms = append(terms, c.CanonicalTerm)
	}
	if !slices.Equal(terms, []string{"go runtime", "lens"}) {
		t.Fatalf("concept terms %v", terms)
	}
}

// A triple asserted and denied within one set is quarantined on both sides:
// never validated twice, each side with a self_contradiction finding.
func TestSelfContradictionQuarantinesBothSides(t *testing.T) {
	f := newFixture(t)
	yes := f.cite(primarySHA, "A mirror produces light.")
	no := f.cite(primarySHA, "It is a misconception that a mirror produces light.")
	res := validate(t, f.cfg, artifact.SmeltedBundle{
		Relations:     []artifact.RelationCandidate{rc("mirror", "produces", "light", yes), rc("mirror", "reflects", "light", yes)},
		Counters:      []artifact.CounterCandidate{rc("mirror", "produces", "light", no), rc("mirror", "absorbs", "light", no)},
		OrderingHints: []artifact.OrderingHint{oh("mirror", "light")},
	})
	if hasRelation(res.VTS, "mirror", "produces", "light") || quarantineReason(res.VTS, "mirror", "produces", "light") != ReasonSelfContradiction {
		t.Fatalf("relation side: %+v / %+v", res.VTS.Relations, res.VTS.Quarantined)
	}
	for _, c := range res.VTS.Counters {
		if c.Triple() == (artifact.Triple{Head: "mirror", Relation: "produces", Tail: "light"}) {
			t.Fatalf("counter side kept: %+v", res.VTS.Counters)
		}
	}
	if len(res.VTS.Counters) != 0 || len(res.VTS.Relations) != 0 {
		// "mirror reflects light" and "mirror absorbs light" use relations
		// outside the vocabulary: they stay out.
		t.Fatalf("relations %+v counters %+v", res.VTS.Relations, res.VTS.Counters)
	}
	key := relKey("mirror", "produces", "light")
	for _, kind := range []string{KindRelation, KindCounter} {
		if fd, ok := findingFor(res, kind, key, ReasonSelfContradiction); !ok || !fd.SpanChecked {
			t.Errorf("no span-checked %s finding: %+v", kind, res.Findings)
		}
	}
	// The hint's terms were known only through the contradicted relation.
	if len(res.VTS.OrderingHints) != 0 {
		t.Fatalf("hints %+v", res.VTS.OrderingHints)
	}
}

// Curator exclusions: a candidate citing only excluded evidence is
// rejected as curator_excluded (a relation quarantined, the others dropped),
// one that also cites other evidence keeps only that and says so.
func TestCuratorExclusions(t *testing.T) {
	f := newFixture(t)
	header := f.cite(primarySHA, "Name is Type.")
	sentence := f.cite(secondary1, "Light is energy.")
	other := f.cite(secondary2, "Light is energy.")
	third := f.cite(secondary3, "Light is energy.")
	sum := sha256.Sum256([]byte("Light is energy."))
	allow, err := f.cfg.Allowlist.Exclude(Exclusion{TextSHA: header.TextSHA, Start: ptr(0), End: ptr(200), Reason: "a table header"})
	if err != nil {
		t.Fatal(err)
	}
	if allow, err = allow.Exclude(Exclusion{SentenceSHA: hex.EncodeToString(sum[:]), Reason: "misread"}); err != nil {
		t.Fatal(err)
	}
	cfg := f.cfg
	cfg.Allowlist = allow
	res := validate(t, cfg, artifact.SmeltedBundle{
		Relations: []artifact.RelationCandidate{rc("name", "is", "type", header), rc("light", "is", "energy", sentence, other),
			rc("heat", "is", "energy", f.cite(primarySHA, "Heat is energy."))},
		Concepts:      []artifact.ConceptCandidate{cc("name", "a header", header)},
		Counters:      []artifact.CounterCandidate{rc("light", "is", "matter", sentence, third)},
		OrderingHints: []artifact.OrderingHint{oh("heat", "energy", header)},
	})
	if quarantineReason(res.VTS, "name", "is", "type") != ReasonCuratorExcluded {
		t.Fatalf("quarantined %+v", res.VTS.Quarantined)
	}
	if _, ok := findingFor(res, KindRelation, relKey("name", "is", "type"), ReasonCuratorExcluded); !ok {
		t.Fatalf("no finding: %+v", res.Findings)
	}
	// Both secondary citations of "light is energy" are the excluded
	// sentence: nothing is left, so it is excluded too.
	if quarantineReason(res.VTS, "light", "is", "energy") != ReasonCuratorExcluded || !hasRelation(res.VTS, "heat", "is", "energy") {
		t.Fatalf("relations %+v quarantined %+v", res.VTS.Relations, res.VTS.Quarantined)
	}
	if len(res.VTS.Concepts) != 0 || len(res.VTS.Counters) != 0 || len(res.VTS.OrderingHints) != 0 {
		t.Fatalf("excluded concept, counter or hint kept: %+v", res.VTS)
	}
	for _, k := range []struct{ kind, key string }{{KindConcept, keyJSON("name", "a header")},
		{KindCounter, relKey("light", "is", "matter")}, {KindOrderingHint, keyJSON("heat", "energy")}} {
		if _, ok := findingFor(res, k.kind, k.key, ReasonCuratorExcluded); !ok {
			t.Errorf("no curator_excluded finding for %s %s: %+v", k.kind, k.key, res.Findings)
		}
	}

	// One citation excluded, one kept: judged on the kept one.
	keep := f.cite(primarySHA, "Sound is a wave.")
	res = validate(t, cfg, artifact.SmeltedBundle{Relations: []artifact.RelationCandidate{
		rc("sound", "is", "wave", keep, f.cite(secondary1, "Light is energy."))}})
	if !hasRelation(res.VTS, "sound", "is", "wave") || len(res.VTS.Relations[0].Sources) != 1 {
		t.Fatalf("relations %+v", res.VTS.Relations)
	}
	if fd, ok := findingFor(res, KindRelation, relKey("sound", "is", "wave"), ReasonCitationExcluded); !ok || !strings.Contains(fd.Detail, "misread") {
		t.Fatalf("findings %+v", res.Findings)
	}
}

func TestAllowlistExclusionsFile(t *testing.T) {
	legacy := []byte("- source_sha: " + shaA + "\n  tier: primary\n  label: a\n")
	a, err := LoadAllowlist(legacy)
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := a.Bytes(); string(b) != string(legacy) {
		t.Fatalf("a file without exclusions changed form:\n%s", b)
	}
	out, err := AllowExclude(legacy, Exclusion{TextSHA: shaB, Start: ptr(0), End: ptr(12), Reason: "table header"})
	if err != nil {
		t.Fatal(err)
	}
	if out, err = AllowExclude(out, Exclusion{SentenceSHA: shaC, Reason: "misread"}); err != nil {
		t.Fatal(err)
	}
	want := "sources:\n  - source_sha: " + shaA + "\n    tier: primary\n    label: a\nexclude:\n" +
		"  - sentence_sha: " + shaC + "\n    reason: misread\n" +
		"  - text_sha: " + shaB + "\n    start: 0\n    end: 12\n    reason: table header\n"
	if string(out) != want {
		t.Fatalf("got\n%s\nwant\n%s", out, want)
	}
	back, err := LoadAllowlist(out)
	if err != nil || len(back.Exclusions()) != 2 || back.Len() != 1 {
		t.Fatalf("reload: %+v %v", back, err)
	}
	// Re-excluding the same evidence replaces its reason; removing leaves
	// the legacy form once no exclusion is left.
	out, _ = AllowExclude(out, Exclusion{SentenceSHA: shaC, Reason: "a heading"})
	if !strings.Contains(string(out), "a heading") || strings.Contains(string(out), "misread") {
		t.Fatalf("replace:\n%s", out)
	}
	out, err = AllowUnexclude(out, Exclusion{SentenceSHA: shaC})
	if err != nil {
		t.Fatal(err)
	}
	if out, err = AllowUnexclude(out, Exclusion{TextSHA: shaB, Start: ptr(0), End: ptr(12)}); err != nil {
		t.Fatal(err)
	}
	if string(out) != string(legacy) {
		t.Fatalf("after removing every exclusion:\n%s", out)
	}
	if _, err := AllowUnexclude(out, Exclusion{SentenceSHA: shaC}); !errors.Is(err, ErrNotListed) {
		t.Fatalf("removing an absent exclusion: %v", err)
	}
	if out, _ := AllowExclude(nil, Exclusion{SentenceSHA: shaC, Reason: "r"}); !strings.HasPrefix(string(out), "sources: []\nexclude:\n") {
		t.Fatalf("exclusions without sources:\n%s", out)
	}
}

func TestAllowlistExclusionsRefused(t *testing.T) {
	src := "sources:\n  - source_sha: " + shaA + "\n    tier: primary\n"
	for name, body := range map[string]string{
		"both kinds":       "exclude:\n  - {text_sha: " + shaB + ", start: 0, end: 3, sentence_sha: " + shaC + ", reason: r}\n",
		"neither":          "exclude:\n  - {reason: r}\n",
		"no reason":        "exclude:\n  - {sentence_sha: " + shaC + "}\n",
		"blank reason":     "exclude:\n  - {sentence_sha: " + shaC + ", reason: \"  \"}\n",
		"partial range":    "exclude:\n  - {text_sha: " + shaB + ", start: 0, reason: r}\n",
		"empty range":      "exclude:\n  - {text_sha: " + shaB + ", start: 4, end: 4, reason: r}\n",
		"negative":         "exclude:\n  - {text_sha: " + shaB + ", start: -1, end: 4, reason: r}\n",
		"offset as string": "exclude:\n  - {text_sha: " + shaB + ", start: \"0\", end: 4, reason: r}\n",
		"bad digest":       "exclude:\n  - {sentence_sha: ABC, reason: r}\n",
		"unknown key":      "exclude:\n  - {sentence_sha: " + shaC + ", reason: r, note: x}\n",
		"listed twice":     "exclude:\n  - {sentence_sha: " + shaC + ", reason: r}\n  - {sentence_sha: " + shaC + ", reason: s}\n",
		"not a list":       "exclude: {sentence_sha: " + shaC + "}\n",
		"top-level key":    "excludes: []\n",
		"repeated key":     "exclude: []\nexclude: []\n",
		"anchor":           "exclude: &x []\n",
	} {
		if _, err := LoadAllowlist([]byte(src + body)); !errors.Is(err, ErrInvalidAllowlist) {
			t.Errorf("%s: %v", name, err)
		}
	}
	if _, err := AllowExclude(nil, Exclusion{SentenceSHA: shaC}); !errors.Is(err, ErrInvalidAllowlist) {
		t.Errorf("an exclusion without a reason was added: %v", err)
	}
}
