package compose_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	yaml "go.yaml.in/yaml/v3"

	"formation/compose"
)

// The *_quirk_* vectors record defects of the original. Each test below
// states how this port's output differs from the vector, byte for byte, and
// why.

// quirkBytes reads a quirk vector's YAML and applies the intended
// replacements, each of which must match exactly once.
func quirkBytes(t *testing.T, name string, replacements [][2]string) []byte {
	t.Helper()
	orig, err := os.ReadFile(filepath.Join(vectorDir(t), name+".course.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	s := string(orig)
	for _, r := range replacements {
		if n := strings.Count(s, r[0]); n != 1 {
			t.Fatalf("%q occurs %d times in the vector, want 1", r[0], n)
		}
		s = strings.Replace(s, r[0], r[1], 1)
	}
	return []byte(s)
}

// definition_quirk_1: the original wrote upper-case YAML 1.1 booleans plain
// (they load as booleans), wrote "lens\n" plain (the newline becomes a blank
// line and the key loses it) and put raw BEL and NEL inside double quotes
// (a YAML reader refuses BEL and folds NEL). Intended difference: exactly
// these seven scalars are quoted or escaped; every other byte is the
// vector's, and the result loads back to the rendered body.
func TestQuirkDefinitionEmitter(t *testing.T) {
	const name = "definition_quirk_1"
	want := quirkBytes(t, name, [][2]string{
		{"- canonical_term: OFF\n", "- canonical_term: \"OFF\"\n"},
		{"span: ON\n", "span: \"ON\"\n"},
		{"- canonical_term: TRUE\n", "- canonical_term: \"TRUE\"\n"},
		{"definition: YES\n", "definition: \"YES\"\n"},
		{"span: NO\n", "span: \"NO\"\n"},
		{"\"ring\x07 the \u0085 bell\"", `"ring\x07 the \u0085 bell"`},
		{"- canonical_term: lens\n\n", "- canonical_term: \"lens\\n\"\n"},
	})
	c := loadCase(t, name)
	course, got, err := c.compose()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("YAML differs at byte %d:\n%s", firstDiff(got, want), diffContext(got, want))
	}
	var exp expected
	readJSON(t, filepath.Join(vectorDir(t), name+".expected.json"), &exp)
	if course.CourseSHA256 == exp.CourseSHA256 || course.CourseSHA256 != sha(want) {
		t.Fatalf("course_sha256 %s must be the digest of the fixed bytes, not the vector's %s", course.CourseSHA256, exp.CourseSHA256)
	}
	if course.ValidatedSetSHA != exp.ValidatedSetSHA || course.CourseID != exp.CourseID {
		t.Fatalf("validated_set_sha/course_id changed: %+v", course)
	}
	assertLoadsBack(t, c, got)

	// The vector's own bytes do not survive a load: the defect is real.
	orig, _ := os.ReadFile(filepath.Join(vectorDir(t), name+".course.yaml"))
	var loaded any
	if err := yaml.Unmarshal(orig, &loaded); err == nil {
		t.Fatal("the original's quirk YAML loaded without error; expected the raw BEL to be refused")
	}
}

// composed_relation_quirk_1: two copies of one triple passed the original's
// "at least two relations" check and rendered a course with no chain.
// Intended difference: the minimum counts distinct triples, so the same
// input is refused with the template's message.
func TestQuirkComposedRelationMinimumAfterDedup(t *testing.T) {
	c := loadCase(t, "composed_relation_quirk_1")
	if len(c.VTS.Relations) != 2 || c.VTS.Relations[0].Triple() != c.VTS.Relations[1].Triple() {
		t.Fatalf("fixture changed: %+v", c.VTS.Relations)
	}
	_, _, err := c.compose()
	if !errors.Is(err, &compose.Error{Kind: compose.KindPrecondition}) ||
		!strings.Contains(err.Error(), "at least two relations required to form a chain") {
		t.Fatalf("got %v, want the two-relation precondition", err)
	}
	// Two distinct triples still compose.
	c.VTS.Relations[1].Tail = "stress"
	if _, _, err := c.compose(); err != nil {
		t.Fatalf("two distinct relations: %v", err)
	}
}

// identity_anchor_quirk_1: the original kept the last concept of a
// duplicated term ("LAST definition (kept)", span "last"). Intended
// difference: the duplicates merge; the axis takes the first definition in
// sorted order ("FIRST definition (discarded)") and cites both sources, in
// span order; nothing else changes, and the input order no longer matters.
func TestQuirkIdentityAnchorMergesDuplicates(t *testing.T) {
	const name = "identity_anchor_quirk_1"
	src := "      - adapter: identity_pack_authoring\n" +
		"        retrieved_at: \"2026-05-16T00:00:00Z\"\n" +
		"        source_sha: \"5fcae0d5d7519159f03abe2f93433e36d9a12171acedca635dea66cd8aaef3cb\"\n"
	want := quirkBytes(t, name, [][2]string{
		{`commitment: "LAST definition (kept)"`, `commitment: "FIRST definition (discarded)"`},
		{"    sources:\n" + src + "        span: last\n", "    sources:\n" + src + "        span: first\n" + src + "        span: last\n"},
	})
	c := loadCase(t, name)
	_, got, err := c.compose()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("YAML differs at byte %d:\n%s", firstDiff(got, want), diffContext(got, want))
	}
	assertLoadsBack(t, c, got)

	slices.Reverse(c.VTS.Concepts)
	_, reversed, err := c.compose()
	if err != nil || !bytes.Equal(reversed, got) {
		t.Fatalf("merge depends on input order (err %v)", err)
	}
}
