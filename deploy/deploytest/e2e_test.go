package deploytest

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"formation/internal/testutil"
	"formation/store"
)

// lab is one end-to-end test's world: the real S3 server, the image laid
// out from the Dockerfile (its courses folder holding the repository's
// example subject and the subjects the test writes) and the manifests.
type lab struct {
	t       *testing.T
	srv     testutil.S3Server
	courses string
	img     *Image
	m       *Manifests
}

var stageOrder = []string{"mine", "smelt", "forge", "compose", "run", "ratify"}

func newLab(t *testing.T) *lab {
	t.Helper()
	root := repoRoot(t)
	srv := testutil.StartS3(t)
	srv.SetEnv(t) // for this process's own store reads; the processes get only what the manifests give them
	courses := t.TempDir()
	for _, f := range []string{"optics", "domains.yaml"} {
		if out, err := exec.Command("cp", "-r", filepath.Join(root, "courses", f), courses).CombinedOutput(); err != nil {
			t.Fatalf("copy courses/%s: %v %s", f, err, out)
		}
	}
	img := builtImage(t).With(map[string]string{"/opt/formation/courses": courses})
	return &lab{t: t, srv: srv, courses: courses, img: img, m: manifests(t)}
}

// cluster is a fresh cluster over the lab: the manifests' ConfigMaps with
// the S3 endpoint and region of the test server in place of the
// production ones, the credentials Secret the manifests name, and K
// processes at most.
func (l *lab) cluster(k int) *Cluster {
	l.t.Helper()
	cms := map[string]map[string]string{}
	for name, cm := range l.m.ConfigMaps {
		cms[name] = map[string]string{}
		for key, v := range cm.Data {
			cms[name][key] = v
		}
	}
	for key, v := range map[string]string{"FORMATION_S3_ENDPOINT": "http://" + l.srv.Endpoint, "AWS_REGION": l.srv.Region} {
		if _, ok := cms["formation-store"][key]; !ok {
			l.t.Fatalf("ConfigMap formation-store has no %s", key)
		}
		cms["formation-store"][key] = v
	}
	return &Cluster{Image: l.img, ConfigMaps: cms, Templates: l.m.WorkflowTemplates, MaxProcs: k, BackoffScale: 0.001,
		Secrets: map[string]map[string]string{"formation-s3": {"access-key-id": l.srv.AccessKey, "secret-access-key": l.srv.SecretKey}},
		Work:    l.t.TempDir()}
}

func (l *lab) url(prefix string) string { return "s3://" + l.srv.Bucket + "/" + prefix }

// autorun runs `formation autorun` in one process, the single-process
// reference every workflow is compared with.
func (l *lab) autorun(subject, prefix string) {
	l.t.Helper()
	cmd := exec.Command(l.img.Local("/usr/local/bin/formation"), "--json", "autorun", subject)
	cmd.Env = append(l.srv.Env(), "FORMATION_STORE="+l.url(prefix))
	for _, kv := range l.img.Env {
		if kv[0] != "FORMATION_STORE" {
			cmd.Env = append(cmd.Env, kv[0]+"="+l.img.LocalValue(kv[1]))
		}
	}
	cmd.Dir = l.img.Local(l.img.WorkDir)
	if out, err := cmd.CombinedOutput(); err != nil {
		l.t.Fatalf("autorun %s: %v\n%s", subject, err, out)
	}
}

// digests are the outputs of a subject's stages in a store.
func (l *lab) digests(prefix, subject string) map[string]string {
	l.t.Helper()
	s, err := store.Open(context.Background(), l.url(prefix))
	if err != nil {
		l.t.Fatal(err)
	}
	out := map[string]string{}
	for _, st := range stageOrder {
		v, _, err := s.GetRef(context.Background(), "subjects/"+subject+"/"+st)
		if err != nil {
			l.t.Fatalf("%s %s in %s: %v", subject, st, prefix, err)
		}
		out[st] = strings.TrimSpace(string(v))
	}
	return out
}

// sameDigests wants every stage of the subject to have the same output
// in both stores.
func (l *lab) sameDigests(subject, want, got string) {
	l.t.Helper()
	a, b := l.digests(want, subject), l.digests(got, subject)
	for _, st := range stageOrder {
		if a[st] != b[st] {
			l.t.Errorf("%s %s: %s has %s, %s has %s", subject, st, want, a[st], got, b[st])
		}
	}
}

// allHits wants every process since the first skipped ones to have
// reported a cache hit (the last JSON line of its output).
func allHits(t *testing.T, procs []Process) {
	t.Helper()
	if len(procs) == 0 {
		t.Fatal("no process ran")
	}
	for _, p := range procs {
		lines := strings.Split(strings.TrimSpace(p.Stdout), "\n")
		var res struct {
			CacheHit *bool `json:"cache_hit"`
			Stages   []struct {
				CacheHit bool `json:"cache_hit"`
			} `json:"stages"`
		}
		if err := json.Unmarshal([]byte(lines[len(lines)-1]), &res); err != nil {
			t.Fatalf("%s: %v: %q", p.Node, err, lines[len(lines)-1])
		}
		hit := res.CacheHit != nil && *res.CacheHit
		if res.CacheHit == nil && len(res.Stages) == len(stageOrder) {
			hit = true
			for _, s := range res.Stages {
				hit = hit && s.CacheHit
			}
		}
		if !hit {
			t.Errorf("%s ran again on a resubmission: %s", p.Node, lines[len(lines)-1])
		}
	}
}

// writeChain writes a generated subject of n relations in one Markdown
// source, as scripts/autorun-scale.sh does; word names the nodes, so that
// subjects written with different words share nothing.
func writeChain(t *testing.T, courses, id, word string, n int) {
	t.Helper()
	dir := filepath.Join(courses, id)
	if err := os.MkdirAll(filepath.Join(dir, "sources"), 0o755); err != nil {
		t.Fatal(err)
	}
	rels := []string{"causes", "produces", "precedes", "grounds"}
	var doc bytes.Buffer
	for i := range n {
		fmt.Fprintf(&doc, "%s%d %s %s%d.\n", word, i, rels[i%4], strings.ToLower(word), i+1)
	}
	for i := 0; i < n; i += 10 {
		fmt.Fprintf(&doc, "%s%d is defined as the %dth %s of the chain.\n", word, i, i, strings.ToLower(word))
	}
	sum := sha256.Sum256(doc.Bytes())
	files := map[string]string{
		"sources/chain.md": doc.String(),
		"subject.yaml": fmt.Sprintf(`subject_id: %s
title: Generated chain %s
target_depth: introductory
requires_courses: []
anti_requisites: []
identity_axis_constraints: []
template: definition
retrieved_at: "2026-05-16T00:00:00Z"
issued_at: "2026-05-16T00:00:00Z"
limits:
  max_file_bytes: 67108864
sources:
  - id: chain
    adapter: file
    path: sources/chain.md
`, id, id),
		"allowlist.yaml": fmt.Sprintf("- source_sha: %q\n  tier: primary\n  label: generated chain\n", hex.EncodeToString(sum[:])),
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func submit(t *testing.T, c *Cluster, name string, params map[string]string) time.Duration {
	t.Helper()
	start := time.Now()
	phase, err := c.Submit(context.Background(), name, params)
	if phase != Succeeded || err != nil {
		for _, p := range c.Processes() {
			if p.Phase != Succeeded {
				t.Logf("%s: %s exit %d %s\n%s", p.Node, p.Phase, p.ExitCode, p.Message, p.Stderr)
			}
		}
		t.Fatalf("%s: %s: %v", name, phase, err)
	}
	return time.Since(start)
}

// The example subject as the subject DAG on S3: every stage's output is
// the single-process autorun's, and a resubmission is all cache hits.
func TestSubjectWorkflowOptics(t *testing.T) {
	l := newLab(t)
	l.autorun("optics", "single")
	c := l.cluster(4)
	took := submit(t, c, "formation-subject", map[string]string{"subject": "optics", "store": l.url("dag")})
	if n := len(c.Processes()); n != len(stageOrder) {
		t.Fatalf("%d processes for %d stages", n, len(stageOrder))
	}
	l.sameDigests("optics", "single", "dag")
	again := l.cluster(4)
	retook := submit(t, again, "formation-subject", map[string]string{"subject": "optics", "store": l.url("dag")})
	allHits(t, again.Processes())
	t.Logf("optics: the DAG took %v, its resubmission %v (all %d steps cache hits)", took.Round(time.Millisecond), retook.Round(time.Millisecond), len(again.Processes()))
}
