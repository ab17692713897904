package compose_test

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"formation/compose"
	"formation/compose/fixtures"
)

func composeInput(t *testing.T, in fixtures.Input) (string, string, []byte) {
	t.Helper()
	course, y, err := compose.Compose(in.VTS, in.Spec, in.SourceBundleSHA, in.TemplateID, in.TemplateVersion)
	if err != nil {
		t.Fatal(err)
	}
	return course.CourseSHA256, course.ValidatedSetSHA, y
}

// The original's definition-template worked example: its published digests
// and size, and its independence from input order.
func TestLiteralGeometry(t *testing.T) {
	in := fixtures.Geometry()
	courseSHA, setSHA, y := composeInput(t, in)
	if courseSHA != "787ba3499155d40ee3654fd313f79faa825a67b62490f891f3448fdd03681993" {
		t.Errorf("course_sha256 %s", courseSHA)
	}
	if setSHA != "1ef0d170ecee668a4195bd6ebd27e178631d72854900a0253bde205aecc256b3" {
		t.Errorf("validated_set_sha %s", setSHA)
	}
	if len(y) != 3959 || !bytes.Contains(y, []byte("max_versor_condition: \"1.0e-6\"\n")) {
		t.Errorf("%d bytes, want 3959 with the quoted versor bound", len(y))
	}
	slices.Reverse(in.VTS.Relations)
	slices.Reverse(in.VTS.Concepts)
	if again, _, _ := composeInput(t, in); again != courseSHA {
		t.Errorf("reversed input gives %s", again)
	}
	in.SourceBundleSHA = strings.Repeat("0", 64)
	if other, _, _ := composeInput(t, in); other == courseSHA {
		t.Error("bundle digest does not reach the course")
	}
}

// The original's cross-template example through four templates, and each
// template's own worked example, at the digests the original published.
func TestLiteralTemplates(t *testing.T) {
	cases := []struct {
		name string
		in   fixtures.Input
		sha  string
	}{
		{"cross/definition", fixtures.CrossTemplate(compose.TemplateDefinition), "8ae0c5b3ffbbca68e53ca1c5d7e79b6391d26fc9a9a03421e80588a4d499f2a2"},
		{"cross/composed_relation", fixtures.CrossTemplate(compose.TemplateComposedRelation), "5e745ce82c7b055a5d167a03e81330eb81b3d7242bea501224ad208e5ba148e3"},
		{"cross/falsification", fixtures.CrossTemplate(compose.TemplateFalsification), "4a2764ce10ed80e92023aa1a750b737ceae46d711304f28d9260a2144279b371"},
		{"cross/identity_anchor", fixtures.CrossTemplate(compose.TemplateIdentityAnchor), "15ba41123b8f7e90f94899efc914f28d53ed8563f472de3c1024118cc976bdf5"},
		{"composed_relation", fixtures.ComposedPrimer(), "c08cec5783409b059c41cb2ec13d776adf1eafc59a13b63e0af746d54c026d4b"},
		{"procedural", fixtures.Procedure(), "0b137563d84aee2278b728a845947ea25ef3d7ca9505a035367e5bbd976abe36"},
		{"falsification", fixtures.Falsification(), "a0796f16b7de5e2df96f768abacab7d68d45b590c0a4e3c86ee3674e42aafffa"},
		{"identity_anchor", fixtures.IdentityAnchor(), "2ff2104015950a2e13e6b4ca440a03bc83384f4f1ca2601d2f73facce73f9a26"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got, _, _ := composeInput(t, c.in); got != c.sha {
				t.Fatalf("course_sha256 %s, want %s", got, c.sha)
			}
		})
	}
}

// The course-compiler example's YAML is the original's golden course: 2930
// bytes, no blank line, no trailing space, one final newline.
func TestLiteralGoldenYAML(t *testing.T) {
	courseSHA, _, y := composeInput(t, fixtures.CompilerFixture())
	if courseSHA != "5b380ad34875dbb838b5b9a1ab0d2844fa574b7caeb4c266fd0cf8bb979b329d" || len(y) != 2930 {
		t.Fatalf("course_sha256 %s, %d bytes", courseSHA, len(y))
	}
	if bytes.Contains(y, []byte("\n\n")) || bytes.Contains(y, []byte(" \n")) || !bytes.HasSuffix(y, []byte("\n")) {
		t.Fatal("golden layout rules broken")
	}
}

// The original's end-to-end micro-course after the Forge, at its published
// digests.
func TestLiteralMicroCourse(t *testing.T) {
	courseSHA, setSHA, _ := composeInput(t, fixtures.MicroCourse())
	if courseSHA != "b211126b26aa0c2790985ee26846745edb43c0da0d95a9b9d0703b00c47f004c" {
		t.Errorf("course_sha256 %s", courseSHA)
	}
	if setSHA != "a116b859cdf105476bcb9e54589ffd98d7715e84a5922971014d72e48f383eb4" {
		t.Errorf("validated_set_sha %s", setSHA)
	}
}
