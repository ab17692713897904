package archtest

import (
	"bufio"
	"bytes"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"formation/internal/testutil"
)

// citationMarks betray a pointer into a document the repository does not
// hold: a section sign, or the name of the architecture document, the
// original system's write-ups and contract files, or the folders they live
// in beside the checkout. A comment or a doc that needs what such a document
// says has to say it itself, since a reader of the repository cannot follow
// the pointer.
var citationMarks = []string{
	"§",
	"DESIGN.md",
	"original-runtime.md",
	"original-formation-pipeline.md",
	"original-ledger-and-front-half.md",
	"original-performance.md",
	"safety_packs.md",
	"runtime_contracts.md",
	"shared/reference",
	"shared/seeds",
}

// numberedReference catches the same pointer written without the section
// sign: the word reference followed by a section number, or by an appendix
// letter and number.
var numberedReference = regexp.MustCompile(`(?i)\breference ([A-Z]\.?)?[0-9]+(\.[0-9]+)*\b`)

// citations returns every citation mark in text, in the order of
// citationMarks, then any numbered reference.
func citations(text string) []string {
	var found []string
	for _, m := range citationMarks {
		if strings.Contains(text, m) {
			found = append(found, m)
		}
	}
	return append(found, numberedReference.FindAllString(text, -1)...)
}

// goCommentCitations reports every comment of a Go source that cites
// outside the repository, by position. String literals are not looked at:
// code may name a file, a comment may not point at one.
func goCommentCitations(fset *token.FileSet, name string, src []byte, report func(token.Position, []string)) error {
	f, err := parser.ParseFile(fset, name, src, parser.ParseComments|parser.SkipObjectResolution)
	if err != nil {
		return err
	}
	for _, group := range f.Comments {
		for _, c := range group.List {
			if found := citations(c.Text); len(found) > 0 {
				report(fset.Position(c.Pos()), found)
			}
		}
	}
	return nil
}

// markdownCitations reports every line of a Markdown text that cites outside
// the repository, by line number (1-based).
func markdownCitations(src []byte, report func(int, []string)) error {
	sc := bufio.NewScanner(bytes.NewReader(src))
	sc.Buffer(make([]byte, 0, 64*1024), 1<<20)
	for line := 1; sc.Scan(); line++ {
		if found := citations(sc.Text()); len(found) > 0 {
			report(line, found)
		}
	}
	return sc.Err()
}

// TestNoOutsideCitations reads every Go file's comments (tests included) and
// every Markdown file of the repository, outside testdata and hidden
// folders, and fails on each one that points at a document the repository
// does not hold.
func TestNoOutsideCitations(t *testing.T) {
	root, err := testutil.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	goFiles, mdFiles := 0, 0
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if n := d.Name(); path != root && (strings.HasPrefix(n, ".") || n == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		isGo, isMD := strings.HasSuffix(path, ".go"), strings.HasSuffix(path, ".md")
		if !isGo && !isMD {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		if isGo {
			goFiles++
			return goCommentCitations(fset, path, src, func(pos token.Position, found []string) {
				t.Errorf("%s:%d: comment cites outside the repository: %q", rel, pos.Line, found)
			})
		}
		mdFiles++
		return markdownCitations(src, func(line int, found []string) {
			t.Errorf("%s:%d: cites outside the repository: %q", rel, line, found)
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	if goFiles < 300 || mdFiles < 10 {
		t.Fatalf("read only %d Go and %d Markdown files", goFiles, mdFiles)
	}
}

// TestCitationDetectorFires: the detector finds a citation in a synthetic
// comment and Markdown line, so the check above can fail, and stays quiet on
// plain words and on code that merely holds the characters in a string.
func TestCitationDetectorFires(t *testing.T) {
	cited := []string{
		"// Exit codes follow DESIGN.md §8.",
		"// The identity terms (reference §7.2).",
		"/* the original's smelter rules (reference B.3) */",
		"// See ../shared/seeds/safety_packs.md for the loader bounds.",
		"// The mapping of original-runtime.md, item 10.",
	}
	for _, c := range cited {
		src := "package x\n\n" + c + "\nvar a = 1\n"
		found := 0
		if err := goCommentCitations(token.NewFileSet(), "x.go", []byte(src), func(token.Position, []string) { found++ }); err != nil {
			t.Fatal(err)
		}
		if found != 1 {
			t.Errorf("%d reports for %q, want 1", found, c)
		}
		lines := 0
		if err := markdownCitations([]byte("# Title\n\n"+strings.TrimPrefix(c, "// ")+"\n"), func(line int, _ []string) {
			if line != 3 {
				t.Errorf("reported line %d, want 3", line)
			}
			lines++
		}); err != nil {
			t.Fatal(err)
		}
		if lines != 1 {
			t.Errorf("%d Markdown reports for %q, want 1", lines, c)
		}
	}

	quiet := "package x\n\n// The original system's identity terms; a reference to the\n// store is kept (see README.md).\nvar s = \"§8 DESIGN.md\"\n"
	if err := goCommentCitations(token.NewFileSet(), "x.go", []byte(quiet), func(p token.Position, found []string) {
		t.Errorf("fired on plain words at line %d: %q", p.Line, found)
	}); err != nil {
		t.Fatal(err)
	}
	if err := markdownCitations([]byte("Tests look in `../shared/conformance` beside the checkout.\n"), func(line int, found []string) {
		t.Errorf("fired on the conformance folder at line %d: %q", line, found)
	}); err != nil {
		t.Fatal(err)
	}
}
