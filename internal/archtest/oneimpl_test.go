package archtest

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

// A rule that must have exactly one implementation: its home (a package
// path inside the module, subpackages included) and a detector that names
// every place in one file that implements it again.
type rule struct {
	name   string
	home   string
	detect func(pkg string, f *ast.File, report func(ast.Node, string))
}

var rules = []rule{
	{"digest validation", "ident", detectDigestCheck},
	{"subject-id validation", "ident", detectIDCheck},
	{"closure bound", "runtime/algebra", detectClosureBound},
	{"review gate", "runtime/review", detectReviewGate},
	{"pack ratification check", "packs", detectPackRatification},
	{"compare-and-swap loop", "store", detectCASLoop},
}

// TestOneImplementationEach reads every non-test Go file of the module and
// fails on any rule implemented outside its home.
func TestOneImplementationEach(t *testing.T) {
	root, err := testutil.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	files := 0
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
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		files++
		rel, _ := filepath.Rel(root, filepath.Dir(path))
		pkg := filepath.ToSlash(rel)
		for _, r := range rules {
			if inside(pkg, r.home) {
				continue
			}
			r.detect(pkg, f, func(n ast.Node, what string) {
				t.Errorf("%s: %s outside %s: %s", fset.Position(n.Pos()), r.name, r.home, what)
			})
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 150 {
		t.Fatalf("read only %d files", files)
	}
}

func inside(pkg, home string) bool { return pkg == home || strings.HasPrefix(pkg, home+"/") }

// detectDigestCheck finds a length compared with 64 (or 2*sha256.Size) and
// regular expressions of 64 hex characters.
func detectDigestCheck(_ string, f *ast.File, report func(ast.Node, string)) {
	ast.Inspect(f, func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.BinaryExpr:
			if isComparison(x.Op) && (isLenCall(x.X) && isDigestLength(x.Y) || isLenCall(x.Y) && isDigestLength(x.X)) {
				report(x, "a length compared with the digest length")
			}
		case *ast.BasicLit:
			if v, ok := stringValue(x); ok && strings.Contains(v, "{64}") {
				report(x, "a pattern of 64 characters")
			}
		}
		return true
	})
}

func isComparison(op token.Token) bool {
	return op == token.EQL || op == token.NEQ || op == token.LSS || op == token.GTR || op == token.LEQ || op == token.GEQ
}

func isLenCall(e ast.Expr) bool {
	c, ok := e.(*ast.CallExpr)
	if !ok {
		return false
	}
	id, ok := c.Fun.(*ast.Ident)
	return ok && id.Name == "len"
}

func isDigestLength(e ast.Expr) bool {
	switch x := e.(type) {
	case *ast.BasicLit:
		return x.Kind == token.INT && x.Value == "64"
	case *ast.BinaryExpr:
		return x.Op == token.MUL && (isSel(x.X, "sha256", "Size") || isSel(x.Y, "sha256", "Size"))
	}
	return false
}

func isSel(e ast.Expr, pkg, name string) bool {
	s, ok := e.(*ast.SelectorExpr)
	if !ok {
		return false
	}
	id, ok := s.X.(*ast.Ident)
	return ok && id.Name == pkg && s.Sel.Name == name
}

// detectIDCheck finds the two marks of the safe-name rule: a search for
// ".." in a string, and a character class that admits '.', '_' and '-'.
func detectIDCheck(_ string, f *ast.File, report func(ast.Node, string)) {
	ast.Inspect(f, func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.CallExpr:
			if isSel(x.Fun, "strings", "Contains") && len(x.Args) == 2 {
				if v, ok := stringValue(x.Args[1]); ok && v == ".." {
					report(x, `strings.Contains(…, "..")`)
				}
			}
		case *ast.FuncDecl:
			if x.Body != nil && idCharClass(x.Body) {
				report(x, "a character class of '.', '_' and '-'")
			}
		}
		return true
	})
}

func idCharClass(body *ast.BlockStmt) bool {
	seen := map[string]bool{}
	ast.Inspect(body, func(n ast.Node) bool {
		if b, ok := n.(*ast.BinaryExpr); ok && b.Op == token.EQL {
			for _, side := range []ast.Expr{b.X, b.Y} {
				if lit, ok := side.(*ast.BasicLit); ok && lit.Kind == token.CHAR {
					seen[lit.Value] = true
				}
			}
		}
		return true
	})
	return seen["'.'"] && seen["'_'"] && seen["'-'"]
}

// closureText matches the closure bound written as text.
var closureText = regexp.MustCompile(`^1(\.0*)?e-0*6$`)

// closureNames may spell the bound in its wire form: a constant whose name
// says what it is and whose test ties it to algebra.ClosureBound.
var closureNames = map[string]bool{"maxVersorCondition": true}

// detectClosureBound finds 1e-6 as a number, or as the whole of a string,
// outside the named constants allowed to spell it.
func detectClosureBound(_ string, f *ast.File, report func(ast.Node, string)) {
	allowed := map[ast.Node]bool{}
	ast.Inspect(f, func(n ast.Node) bool {
		if vs, ok := n.(*ast.ValueSpec); ok {
			for i, name := range vs.Names {
				if closureNames[name.Name] && i < len(vs.Values) {
					allowed[vs.Values[i]] = true
				}
			}
		}
		return true
	})
	ast.Inspect(f, func(n ast.Node) bool {
		lit, ok := n.(*ast.BasicLit)
		if !ok || allowed[lit] {
			return true
		}
		switch lit.Kind {
		case token.FLOAT:
			if v, err := strconv.ParseFloat(lit.Value, 64); err == nil && v == 1e-6 {
				report(lit, "the number "+lit.Value)
			}
		case token.STRING:
			if v, ok := stringValue(lit); ok && closureText.MatchString(v) {
				report(lit, "the string "+lit.Value)
			}
		}
		return true
	})
}

// gateWords are words only an identity-override detector has reason to
// spell out.
var gateWords = map[string]bool{"jailbreak": true, "pretend": true, "guardrails": true, "disregard": true}

// identityCheck is the one other package that reads the language of
// identity overrides: the identity check weighs the same words for a
// different judgment (how far a turn's trajectory carries the manifold's
// axes out of their span), which must never be the gate's verdict. It
// refuses nothing unless the hard-block policy is on.
const identityCheck = "runtime/identity"

func detectReviewGate(pkg string, f *ast.File, report func(ast.Node, string)) {
	if pkg == identityCheck {
		return
	}
	ast.Inspect(f, func(n ast.Node) bool {
		if lit, ok := n.(*ast.BasicLit); ok {
			if v, ok := stringValue(lit); ok && gateWords[v] {
				report(lit, "the detector word "+lit.Value)
			}
		}
		return true
	})
}

// detectPackRatification finds a pack's companion report located by hand
// or a report's "ratified" field read as a generic document.
func detectPackRatification(_ string, f *ast.File, report func(ast.Node, string)) {
	ast.Inspect(f, func(n ast.Node) bool {
		lit, ok := n.(*ast.BasicLit)
		if !ok {
			return true
		}
		if v, ok := stringValue(lit); ok && (v == ".mastery_report.json" || v == "ratified") {
			report(lit, "the literal "+lit.Value)
		}
		return true
	})
}

// detectCASLoop finds SetRef called in a loop (a retry loop of its own) and
// SetRef with a version to replace (an update that bypasses the helper);
// writing a ref that must not exist yet (old == "") is a create, not a loop.
func detectCASLoop(_ string, f *ast.File, report func(ast.Node, string)) {
	ast.Inspect(f, func(n ast.Node) bool {
		var body *ast.BlockStmt
		switch x := n.(type) {
		case *ast.ForStmt:
			body = x.Body
		case *ast.RangeStmt:
			body = x.Body
		case *ast.CallExpr:
			if isMethod(x, "SetRef") && len(x.Args) == 4 {
				if v, ok := stringValue(x.Args[2]); !ok || v != "" {
					report(x, "SetRef replacing a version")
				}
			}
		}
		if body != nil {
			ast.Inspect(body, func(m ast.Node) bool {
				if c, ok := m.(*ast.CallExpr); ok && isMethod(c, "SetRef") {
					report(c, "SetRef inside a loop")
				}
				return true
			})
		}
		return true
	})
}

func isMethod(c *ast.CallExpr, name string) bool {
	s, ok := c.Fun.(*ast.SelectorExpr)
	return ok && s.Sel.Name == name
}

func stringValue(e ast.Expr) (string, bool) {
	lit, ok := e.(*ast.BasicLit)
	if !ok || lit.Kind != token.STRING {
		return "", false
	}
	v, err := strconv.Unquote(lit.Value)
	return v, err == nil
}

// TestDetectorsFire: each detector finds the thing it looks for, so the
// check above can fail.
func TestDetectorsFire(t *testing.T) {
	cases := map[string]string{
		"digest validation":       `func f(s string) bool { return len(s) == 64 }`,
		"subject-id validation":   `func f(s string) bool { return !strings.Contains(s, "..") }`,
		"closure bound":           `const bound = 1e-06`,
		"review gate":             `var words = []string{"jailbreak"}`,
		"pack ratification check": `func f(o *canon.Object) bool { v, _ := o.Get("ratified"); return v == true }`,
		"compare-and-swap loop":   `func f() { for { s.SetRef(ctx, name, old, v) } }`,
	}
	more := map[string]string{
		"digest validation":       "func f(s string) bool { return len(s) != 2*sha256.Size }",
		"subject-id validation":   `func f(c byte) bool { return c == '.' || c == '_' || c == '-' }`,
		"closure bound":           `var s = "1.0e-6"`,
		"pack ratification check": `var p = base + ".mastery_report.json"`,
		"compare-and-swap loop":   `func f() { s.SetRef(ctx, name, version, v) }`,
	}
	for _, r := range rules {
		for _, src := range []string{cases[r.name], more[r.name]} {
			if src == "" {
				continue
			}
			f, err := parser.ParseFile(token.NewFileSet(), "x.go", "package x\n"+src, 0)
			if err != nil {
				t.Fatal(err)
			}
			found := 0
			r.detect("x", f, func(ast.Node, string) { found++ })
			if found == 0 {
				t.Errorf("%s: the detector misses %s", r.name, src)
			}
		}
	}
	// And stays quiet on the home's legitimate neighbours.
	f, _ := parser.ParseFile(token.NewFileSet(), "x.go", `package x
const a = 2e-6
func g(s string) bool { return len(s) == 32 && s != ".." }
func h() { s.SetRef(ctx, name, "", v) }`, 0)
	for _, r := range rules {
		r.detect("x", f, func(n ast.Node, what string) { t.Errorf("%s fired on legitimate code: %s", r.name, what) })
	}
}
