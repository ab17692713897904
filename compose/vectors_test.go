package compose_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	yaml "go.yaml.in/yaml/v3"

	"formation/artifact"
	"formation/canon"
	"formation/compose"
	"formation/internal/testutil"
)

// composeCase is one vector's input.
type composeCase struct {
	VTS             artifact.ValidatedTripleSet `json:"vts"`
	Spec            artifact.SubjectSpec        `json:"spec"`
	SourceBundleSHA string                      `json:"source_bundle_sha"`
	TemplateID      string                      `json:"template_id"`
	TemplateVersion string                      `json:"template_version"`
}

type expected struct {
	CourseID        string   `json:"course_id"`
	CourseSHA256    string   `json:"course_sha256"`
	ValidatedSetSHA string   `json:"validated_set_sha"`
	TemplateID      string   `json:"template_id"`
	TemplateVersion string   `json:"template_version"`
	Defects         []string `json:"defects,omitempty"`
}

type expectedError struct {
	ErrorSubstring  string `json:"error_substring"`
	ErrorMessage    string `json:"error_message"`
	PythonException string `json:"python_exception"`
}

func vectorDir(t *testing.T) string { return testutil.Vector(t, "compose") }

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := canon.Unmarshal(data, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

func loadCase(t *testing.T, name string) composeCase {
	t.Helper()
	var c composeCase
	readJSON(t, filepath.Join(vectorDir(t), name+".input.json"), &c)
	return c
}

func (c composeCase) compose() (artifact.Course, []byte, error) {
	return compose.Compose(c.VTS, c.Spec, c.SourceBundleSHA, c.TemplateID, c.TemplateVersion)
}

func vectorNames(t *testing.T, suffix string) []string {
	t.Helper()
	matches, err := filepath.Glob(filepath.Join(vectorDir(t), "*"+suffix))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, m := range matches {
		names = append(names, strings.TrimSuffix(filepath.Base(m), suffix))
	}
	return names
}

func sha(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// Every successful vector without recorded defects is reproduced byte for
// byte, and its YAML loads back to exactly the rendered body.
func TestComposeVectors(t *testing.T) {
	names := vectorNames(t, ".expected.json")
	checked := 0
	for _, name := range names {
		if strings.Contains(name, "_quirk_") {
			continue
		}
		checked++
		t.Run(name, func(t *testing.T) {
			c := loadCase(t, name)
			var want expected
			readJSON(t, filepath.Join(vectorDir(t), name+".expected.json"), &want)
			wantYAML, err := os.ReadFile(filepath.Join(vectorDir(t), name+".course.yaml"))
			if err != nil {
				t.Fatal(err)
			}
			course, got, err := c.compose()
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, wantYAML) {
				t.Fatalf("YAML differs at byte %d:\n%s", firstDiff(got, wantYAML), diffContext(got, wantYAML))
			}
			if course.CourseSHA256 != want.CourseSHA256 || sha(got) != want.CourseSHA256 {
				t.Errorf("course_sha256 %s, want %s", course.CourseSHA256, want.CourseSHA256)
			}
			if course.ValidatedSetSHA != want.ValidatedSetSHA {
				t.Errorf("validated_set_sha %s, want %s", course.ValidatedSetSHA, want.ValidatedSetSHA)
			}
			if course.CourseID != want.CourseID || course.TemplateID != want.TemplateID || course.TemplateVersion != want.TemplateVersion {
				t.Errorf("course header %+v, want %+v", course, want)
			}
			if course.SourceBundleSHA != c.SourceBundleSHA || course.SchemaVersion != artifact.SchemaVersion {
				t.Errorf("course echo fields %+v", course)
			}
			assertLoadsBack(t, c, got)
		})
	}
	if checked < 10 {
		t.Fatalf("only %d non-quirk vectors found", checked)
	}
}

// Every error vector fails with its message, as a typed *compose.Error.
func TestComposeErrorVectors(t *testing.T) {
	names := vectorNames(t, ".expected_error.json")
	if len(names) < 14 {
		t.Fatalf("only %d error vectors found", len(names))
	}
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			c := loadCase(t, name)
			var want expectedError
			readJSON(t, filepath.Join(vectorDir(t), name+".expected_error.json"), &want)
			_, out, err := c.compose()
			if err == nil {
				t.Fatalf("composed %d bytes, want error %q", len(out), want.ErrorSubstring)
			}
			if !strings.Contains(err.Error(), want.ErrorSubstring) {
				t.Fatalf("error %q lacks %q", err, want.ErrorSubstring)
			}
			var ce *compose.Error
			if !errors.As(err, &ce) {
				t.Fatalf("error %T is not a *compose.Error", err)
			}
			wantKind := compose.KindPrecondition
			switch want.PythonException {
			case "KeyError":
				wantKind = compose.KindUnknownTemplate
			case "ValueError":
				if strings.Contains(want.ErrorSubstring, "template_version") {
					wantKind = compose.KindVersionMismatch
				}
			}
			if ce.Kind != wantKind {
				t.Fatalf("kind %s, want %s", ce.Kind, wantKind)
			}
		})
	}
}

// assertLoadsBack reads yamlBytes with yaml.v3 and compares with the body
// Render returns for the same input.
func assertLoadsBack(t *testing.T, c composeCase, yamlBytes []byte) {
	t.Helper()
	body, err := compose.Render(c.VTS, c.Spec, c.SourceBundleSHA, c.TemplateID, c.TemplateVersion)
	if err != nil {
		t.Fatal(err)
	}
	var loaded any
	if err := yaml.Unmarshal(yamlBytes, &loaded); err != nil {
		t.Fatalf("emitted YAML does not load: %v", err)
	}
	if !reflect.DeepEqual(loaded, any(body)) {
		t.Fatalf("YAML loads back to a different body")
	}
}

func firstDiff(a, b []byte) int {
	n := min(len(a), len(b))
	for i := 0; i < n; i++ {
		if a[i] != b[i] {
			return i
		}
	}
	return n
}

func diffContext(got, want []byte) string {
	i := firstDiff(got, want)
	lo := max(0, i-120)
	return "got:  " + string(got[lo:min(len(got), i+120)]) + "\nwant: " + string(want[lo:min(len(want), i+120)])
}
