package archtest

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"formation/internal/testutil"
)

const module = "formation/"

// layers, from the top. An import must point to a lower layer, or stay in
// its own layer where sideways imports are allowed.
var layers = []string{"entry", "command", "orchestration", "stages", "views", "frame", "domain", "foundation"}

var sideways = map[string]bool{"views": true, "domain": true, "foundation": true}

// rank orders layers; views sit beside stages (neither imports the other),
// above the frame.
func rank(layer string) int {
	switch layer {
	case "views":
		return slices.Index(layers, "stages")
	case "test support":
		return -1
	}
	return slices.Index(layers, layer)
}

// codeMap reads the package table of ARCHITECTURE.md: package → layer.
func codeMap(t *testing.T) map[string]string {
	t.Helper()
	root, err := testutil.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(filepath.Join(root, "ARCHITECTURE.md"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string]string{}
	inTable := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "| package | layer |"):
			inTable = true
			continue
		case inTable && !strings.HasPrefix(line, "|"):
			inTable = false
		}
		if !inTable || strings.HasPrefix(line, "|---") {
			continue
		}
		cells := strings.Split(line, "|")
		if len(cells) < 4 {
			t.Fatalf("malformed row %q", line)
		}
		pkg, layer := strings.Trim(strings.TrimSpace(cells[1]), "`"), strings.TrimSpace(cells[2])
		if rank(layer) < 0 && layer != "test support" {
			t.Fatalf("row %q: unknown layer %q", line, layer)
		}
		out[pkg] = layer
	}
	if len(out) < 40 {
		t.Fatalf("read only %d packages from ARCHITECTURE.md", len(out))
	}
	return out
}

// imports lists every package of the module with its direct imports inside
// the module (non-test files), from `go list`.
func imports(t *testing.T, pattern string, deps bool) map[string][]string {
	t.Helper()
	root, _ := testutil.ModuleRoot()
	field := "{{.Imports}}"
	if deps {
		field = "{{.Deps}}"
	}
	cmd := exec.Command("go", "list", "-f", "{{.ImportPath}} "+field, pattern)
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	graph := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(strings.NewReplacer("[", " ", "]", " ").Replace(line))
		pkg := strings.TrimPrefix(fields[0], module)
		graph[pkg] = []string{}
		for _, imp := range fields[1:] {
			if strings.HasPrefix(imp, module) {
				graph[pkg] = append(graph[pkg], strings.TrimPrefix(imp, module))
			}
		}
	}
	return graph
}

// TestCodeMapMatchesImports: every package is on the map, and every import
// points down (or sideways where allowed); stages never import one another;
// nothing in production imports a test-support package.
func TestCodeMapMatchesImports(t *testing.T) {
	layerOf := codeMap(t)
	graph := imports(t, "./...", false)
	for pkg := range graph {
		if _, ok := layerOf[pkg]; !ok {
			t.Errorf("package %s is not in ARCHITECTURE.md's table", pkg)
		}
	}
	for pkg := range layerOf {
		if _, ok := graph[pkg]; !ok {
			t.Errorf("ARCHITECTURE.md names %s, which is not a package of the module", pkg)
		}
	}
	for pkg, imps := range graph {
		for _, imp := range imps {
			if why := edgeProblem(layerOf[pkg], layerOf[imp]); why != "" {
				t.Errorf("%s (%s) imports %s (%s): %s", pkg, layerOf[pkg], imp, layerOf[imp], why)
			}
		}
	}
}

// edgeProblem says what is wrong with an import from a package of one layer
// to a package of another, or "".
func edgeProblem(from, to string) string {
	switch {
	case from == "test support":
		return ""
	case to == "test support":
		return "production code imports a test-support package"
	case from == "stages" && to == "stages":
		return "a stage never imports another stage"
	case rank(to) > rank(from):
		return ""
	case from == to && sideways[from]:
		return ""
	case rank(to) == rank(from):
		return "stages and views never import one another; this layer has no sideways imports"
	}
	return "imports point down"
}

func TestEdgeRules(t *testing.T) {
	for _, c := range []struct {
		from, to string
		ok       bool
	}{
		{"command", "foundation", true}, {"stages", "domain", true}, {"views", "domain", true}, {"views", "views", true},
		{"domain", "domain", true}, {"stages", "stages", false}, {"stages", "views", false}, {"views", "stages", false},
		{"views", "orchestration", false}, {"domain", "stages", false}, {"foundation", "domain", false},
		{"frame", "frame", false}, {"stages", "test support", false}, {"test support", "stages", true},
	} {
		if got := edgeProblem(c.from, c.to) == ""; got != c.ok {
			t.Errorf("%s → %s allowed = %v, want %v", c.from, c.to, got, c.ok)
		}
	}
}

// TestViewsImportNoStage: eval, ledger, reviewers and storecheck reach no
// stage package and not pipeline, through anything.
func TestViewsImportNoStage(t *testing.T) {
	layerOf := codeMap(t)
	for pkg, deps := range imports(t, "./...", true) {
		if layerOf[pkg] != "views" {
			continue
		}
		for _, d := range deps {
			if l := layerOf[d]; l == "stages" || l == "orchestration" {
				t.Errorf("view %s depends on %s (%s)", pkg, d, l)
			}
		}
	}
}
