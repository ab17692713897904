package pipeline_test

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"formation/audit"
	"formation/internal/cli"
	"formation/internal/testutil"
	"formation/packs"
	"formation/pipeline"
	"formation/stage"
	"formation/store"
)

// The whole pipeline on the S3 backend against the real server: autorun from
// a Markdown source to a ratified report, a second autorun all cache hits,
// then promote and ask through the CLI on the same bucket.
func TestAutorunPromoteAskOnS3(t *testing.T) {
	ctx := context.Background()
	srv := testutil.StartS3(t)
	srv.SetEnv(t)
	url := "s3://" + srv.Bucket + "/formation"
	s, err := store.Open(ctx, url)
	must(t, err)
	root, err := testutil.ModuleRoot()
	must(t, err)
	courses := tinySubject(t, tinyDoc)
	w := &audit.Writer{Store: s, Now: func() time.Time { return time.Date(2026, 5, 16, 0, 0, 0, 0, time.UTC) }, CodeVersion: "test"}
	p := &pipeline.Pipeline{Env: stage.NewEnv(s, w), CoursesDir: courses, Packs: packs.Options{Dir: filepath.Join(root, "packs")}}
	results, err := p.Autorun(ctx, "tiny")
	if err != nil {
		t.Fatalf("autorun on S3: %v", err)
	}
	report := results[len(results)-1].Output
	again, err := p.Autorun(ctx, "tiny")
	must(t, err)
	for _, r := range again {
		if !r.CacheHit {
			t.Fatalf("%s ran again on S3 with unchanged inputs", r.Stage)
		}
	}
	cliRun := func(args ...string) (int, string, string) {
		var out, errb bytes.Buffer
		io := cli.IO{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb, Now: time.Now}
		full := append([]string{"formation", "--store", url, "--packs-dir", filepath.Join(root, "packs"), "--courses-dir", courses}, args...)
		return cli.Main(cli.NewApp(io), full), out.String(), errb.String()
	}
	key := filepath.Join(t.TempDir(), "curator.key")
	if code, _, errs := cliRun("keygen", "--out", key); code != 0 {
		t.Fatal(errs)
	}
	if code, out, errs := cliRun("--json", "--trusted-keys", key+".pub", "promote", "--key", key, report); code != 0 {
		t.Fatalf("promote on S3: %d %s %s", code, out, errs)
	}
	code, out, _ := cliRun("--json", "ask", "What does refraction cause?")
	if code != 0 || !strings.Contains(out, "dispersion") || !strings.Contains(out, `"citations":[{`) {
		t.Fatalf("ask on S3: %d %s", code, out)
	}
	code, out, _ = cliRun("--json", "audit", "list", "--subject", "tiny")
	if code != 0 || !strings.Contains(out, `"kind":"promotion"`) {
		t.Fatalf("audit on S3: %d %s", code, out)
	}
}
