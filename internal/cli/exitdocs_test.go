package cli_test

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"formation/internal/exitcode"
	"formation/internal/testutil"
)

// The exit-code table is written four times for its readers: the README,
// formation --help, deploy/README.md and the CronJob's comment. Each lists
// exactly the rows of exitcode.Table, in order, in the same words.
func TestExitCodeTableIsTheSameEverywhere(t *testing.T) {
	root, err := testutil.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, r := range exitcode.Table() {
		want = append(want, fmt.Sprintf("%d %s", r.Code, r.Meaning))
	}
	markdownRow := regexp.MustCompile(`^\| (\d+) \| (.+) \|$`)
	commentRow := regexp.MustCompile(`^#\s+(\d+)\s+(.+)$`)
	helpRow := regexp.MustCompile(`^\s+(\d+)  (.+)$`)
	_, help, _ := runIn(t, "", "--help")
	_, helpSection, _ := strings.Cut(help, "Exit codes:")
	helpSection, _, _ = strings.Cut(helpSection, "ENVIRONMENT")
	sources := map[string]struct {
		text string
		row  *regexp.Regexp
	}{
		"README.md":                              {read(t, root, "README.md"), markdownRow},
		"deploy/README.md":                       {read(t, root, "deploy/README.md"), markdownRow},
		"deploy/kubernetes/autorun-cronjob.yaml": {read(t, root, "deploy/kubernetes/autorun-cronjob.yaml"), commentRow},
		"formation --help":                       {helpSection, helpRow},
	}
	for name, src := range sources {
		var got []string
		for _, l := range strings.Split(src.text, "\n") {
			if m := src.row.FindStringSubmatch(strings.TrimRight(l, " ")); m != nil {
				got = append(got, m[1]+" "+strings.TrimSpace(m[2]))
			}
		}
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("%s lists\n  %s\nwant\n  %s", name, strings.Join(got, "\n  "), strings.Join(want, "\n  "))
		}
	}
}

func read(t *testing.T, root, rel string) string {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(root, rel))
	if err != nil {
		t.Fatal(err)
	}
	return string(raw)
}
