package reviewed

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"formation/internal/testutil"
)

// exemptDirs may name knowledge/ refs: this package, which owns them, and
// the store's own tests and conformance suite, which exercise every ref
// namespace on throwaway stores and never open a real one.
var exemptDirs = []string{"reviewed", "store"}

// refWriters are the store calls that move a ref; their name argument is
// the second one (after the context), or the third for the package-level
// helpers that take the store first.
var refWriters = map[string]int{"SetRef": 1, "UpdateRef": 2, "SetRefValue": 2, "CreateRef": 2}

// knowledgeWriters lists the places in one file that could write the
// reviewed state without this package: a string naming a knowledge/ ref, a
// "knowledge" + "/…" concatenation, or StateRef handed to a call that moves
// a ref. Dynamic names built some other way are out of its reach; review
// catches those.
func knowledgeWriters(fset *token.FileSet, f *ast.File) []string {
	var found []string
	report := func(n ast.Node, what string) {
		found = append(found, fset.Position(n.Pos()).String()+": "+what)
	}
	ast.Inspect(f, func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.CallExpr:
			sel, ok := x.Fun.(*ast.SelectorExpr)
			if at, writes := refWriters[selName(sel, ok)]; writes && at < len(x.Args) {
				if name, ok := x.Args[at].(*ast.SelectorExpr); ok && name.Sel.Name == "StateRef" {
					report(x, "moves reviewed.StateRef")
				}
			}
		case *ast.BasicLit:
			if v, err := strconv.Unquote(x.Value); err == nil && x.Kind == token.STRING && refLike.MatchString(v) {
				report(x, "names ref "+strconv.Quote(v))
			}
		case *ast.BinaryExpr:
			if x.Op == token.ADD && (isLit(x.X, "knowledge") || isLit(x.X, "knowledge/")) {
				report(x, "builds a knowledge/ ref name")
			}
		}
		return true
	})
	return found
}

func selName(sel *ast.SelectorExpr, ok bool) string {
	if !ok {
		return ""
	}
	return sel.Sel.Name
}

// refLike matches a knowledge/ ref name or prefix (prose that merely starts
// with the words, such as an error message, has spaces and does not match).
var refLike = regexp.MustCompile(`^knowledge/[A-Za-z0-9._/-]*$`)

func isLit(e ast.Expr, want string) bool {
	lit, ok := e.(*ast.BasicLit)
	if !ok || lit.Kind != token.STRING {
		return false
	}
	v, err := strconv.Unquote(lit.Value)
	return err == nil && v == want
}

// TestOnlyThisPackageWritesTheState scans every Go file of the module
// (tests included) outside this package and the store.
func TestOnlyThisPackageWritesTheState(t *testing.T) {
	root, err := testutil.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	scanned := 0
	var violations []string
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		if d.IsDir() {
			name := d.Name()
			if path != root && (strings.HasPrefix(name, ".") || name == "testdata" || name == "vendor" || isExempt(rel)) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return nil // a file another engineer is halfway through writing; the build catches it
		}
		scanned++
		violations = append(violations, knowledgeWriters(fset, f)...)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if scanned < 20 {
		t.Fatalf("scanned only %d files from %s", scanned, root)
	}
	for _, v := range violations {
		t.Errorf("only package reviewed may write the reviewed state: %s", v)
	}
}

func isExempt(rel string) bool {
	first, _, _ := strings.Cut(filepath.ToSlash(rel), "/")
	for _, d := range exemptDirs {
		if first == d {
			return true
		}
	}
	return false
}

// The scanner itself must catch each way of naming the ref.
func TestKnowledgeWriterScanner(t *testing.T) {
	src := `package x
func f() {
	s.SetRef(ctx, "knowledge/reviewed", "", b)
	name := "knowledge" + "/state"
	store.UpdateRef(ctx, s, reviewed.StateRef, f)
	s.GetRef(ctx, reviewed.StateRef)
	audit.Record{Key: reviewed.StateRef}
	s.SetRef(ctx, "subjects/x/forge", "", b)
	err := errors.New("knowledge/state and the index disagree")
}`
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "x.go", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	got := knowledgeWriters(fset, f)
	if len(got) != 3 || !strings.Contains(got[0], "x.go:3") || !strings.Contains(got[1], "x.go:4") || !strings.Contains(got[2], "x.go:5") {
		t.Fatalf("scanner found %q", got)
	}
}
