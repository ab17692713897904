package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"formation/internal/testutil"
	"formation/internal/testutil/faultproxy"
)

// TestMain lets the tests run this very binary as `formation`: with
// FORMATION_TEST_AS_MAIN=1 it is the command, not the test runner.
func TestMain(m *testing.M) {
	if os.Getenv("FORMATION_TEST_AS_MAIN") == "1" {
		main()
	}
	os.Exit(m.Run())
}

// formation runs the command in a child process and returns its exit code,
// how long it took and its stderr.
func formation(t *testing.T, env []string, args ...string) (int, time.Duration, string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(append(os.Environ(), "FORMATION_TEST_AS_MAIN=1"), env...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	start := time.Now()
	err := cmd.Run()
	took := time.Since(start)
	var exit *exec.ExitError
	switch {
	case err == nil:
		return 0, took, stderr.String()
	case errors.As(err, &exit):
		return exit.ExitCode(), took, stderr.String()
	}
	t.Fatalf("run formation: %v", err)
	return 0, 0, ""
}

// s3World is the real S3 server behind a fault proxy, and the command line
// of an optics autorun through the proxy.
type s3World struct {
	proxy *faultproxy.Proxy
	env   []string
	args  []string
}

func newS3World(t *testing.T) s3World {
	t.Helper()
	srv := testutil.StartS3(t)
	p := faultproxy.Start(t, srv.Endpoint, 7)
	root, err := testutil.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	via := srv
	via.Endpoint = p.Endpoint()
	return s3World{proxy: p, env: via.Env(), args: []string{
		"--store", "s3://" + srv.Bucket + "/cli", "--courses-dir", filepath.Join(root, "courses"),
		"--packs-dir", filepath.Join(root, "packs"), "-q", "autorun", "optics"}}
}

// TestFrozenServerExits75: with a server that accepts connections and never
// answers, autorun exits 75 within TIMEOUT + RETRY_BUDGET + 5 s.
func TestFrozenServerExits75(t *testing.T) {
	frozen(t, 2*time.Second, 3*time.Second)
}

// TestFrozenServerSoak: the same under the defaults (30 s + 60 s).
func TestFrozenServerSoak(t *testing.T) {
	if os.Getenv("FORMATION_SOAK") != "1" {
		t.Skip("soak test: run with FORMATION_SOAK=1 (make soak)")
	}
	frozen(t, 0, 0)
}

func frozen(t *testing.T, timeout, budget time.Duration) {
	w := newS3World(t)
	env := w.env
	deadline := 30*time.Second + 60*time.Second + 5*time.Second
	if timeout > 0 {
		env = append(env, "FORMATION_S3_TIMEOUT="+timeout.String(), "FORMATION_S3_RETRY_BUDGET="+budget.String())
		deadline = timeout + budget + 5*time.Second
	}
	w.proxy.Freeze()
	code, took, stderr := formation(t, env, w.args...)
	if code != 75 || took > deadline {
		t.Fatalf("autorun against a frozen server: exit %d after %v (deadline %v); stderr:\n%s", code, took, deadline, stderr)
	}
	t.Logf("frozen server: exit %d after %v (deadline %v): %s", code, took.Round(time.Millisecond), deadline, firstLine(stderr))
}

// TestOutageAbsorbed: autorun started during an outage of the endpoint
// (connections refused) finishes once it ends, within the retry budget.
func TestOutageAbsorbed(t *testing.T) { outage(t, 3*time.Second) }

// TestOutageSoak: a 30-second outage under the default retry budget.
func TestOutageSoak(t *testing.T) {
	if os.Getenv("FORMATION_SOAK") != "1" {
		t.Skip("soak test: run with FORMATION_SOAK=1 (make soak)")
	}
	outage(t, 30*time.Second)
}

func outage(t *testing.T, d time.Duration) {
	w := newS3World(t)
	w.proxy.Outage(d)
	code, took, stderr := formation(t, w.env, w.args...)
	if code != 0 || took < d {
		t.Fatalf("autorun across a %v outage: exit %d after %v; stderr:\n%s", d, code, took, stderr)
	}
	t.Logf("a %v outage absorbed: exit 0 after %v", d, took.Round(time.Millisecond))
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}
