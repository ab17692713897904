package pipeline_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/minio/minio-go/v7"

	"formation/audit"
	"formation/internal/testutil"
	"formation/internal/testutil/faultproxy"
	"formation/packs"
	"formation/pipeline"
	"formation/stage"
	"formation/store/s3store"
)

// TestAutorunLostRepliesS3: autoruns of optics on the real S3 server behind
// a proxy that drops 5 % of the replies to object writes and ref
// compare-and-swaps after the server applied them. Every run ends ratified
// and leaves a store byte-identical to a clean run's: every object and every
// ref envelope (generations included) under its prefix.
func TestAutorunLostRepliesS3(t *testing.T) { lostReplies(t, 3) }

// TestAutorunLostRepliesSoak is the same over 20 runs.
func TestAutorunLostRepliesSoak(t *testing.T) {
	if os.Getenv("FORMATION_SOAK") != "1" {
		t.Skip("soak test: run with FORMATION_SOAK=1 (make soak)")
	}
	lostReplies(t, 20)
}

func lostReplies(t *testing.T, runs int) {
	srv := testutil.StartS3(t)
	proxy := faultproxy.Start(t, srv.Endpoint, 20261130)
	root, err := testutil.ModuleRoot()
	must(t, err)
	autorun := func(endpoint, prefix string) {
		t.Helper()
		s, err := s3store.New(s3store.Config{Endpoint: endpoint, AccessKey: srv.AccessKey, SecretKey: srv.SecretKey,
			Region: srv.Region, Bucket: srv.Bucket, Prefix: prefix, Timeout: 10 * time.Second, RetryBudget: 30 * time.Second})
		must(t, err)
		w := &audit.Writer{Store: s, Now: func() time.Time { return time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC) }, CodeVersion: "test"}
		p := &pipeline.Pipeline{Env: stage.NewEnv(s, w), CoursesDir: filepath.Join(root, "courses"),
			Packs: packs.Options{Dir: filepath.Join(root, "packs")}, Jobs: 2}
		results, err := p.Autorun(context.Background(), "optics")
		if err != nil {
			t.Fatalf("autorun via %s: %v", endpoint, err)
		}
		if len(results) != 6 || results[5].Stage != "ratify" {
			t.Fatalf("autorun results: %+v", results)
		}
	}
	autorun(srv.Endpoint, "clean")
	clean := snapshot(t, srv, "clean")
	proxy.SetRules(faultproxy.Rule{Match: faultproxy.Either(faultproxy.ObjectWrite, faultproxy.RefWrite),
		Fault: faultproxy.LoseReply, Rate: 0.05})
	for i := range runs {
		prefix := fmt.Sprintf("lossy%d", i)
		autorun(proxy.Endpoint(), prefix)
		got := snapshot(t, srv, prefix)
		if diff := diffSnapshots(clean, got); diff != "" {
			t.Fatalf("run %d with lost replies differs from the clean run: %s", i, diff)
		}
	}
	lost := proxy.Counts()[faultproxy.LoseReply]
	if lost == 0 {
		t.Fatal("no reply was lost: the test proved nothing")
	}
	t.Logf("%d runs, %d keys each, %d replies lost; every run byte-identical to the clean one", runs, len(clean), lost)
}

// snapshot reads every key under a prefix, raw, bypassing the store.
func snapshot(t *testing.T, srv testutil.S3Server, prefix string) map[string][]byte {
	t.Helper()
	c := srv.Client(t)
	out := map[string][]byte{}
	for obj := range c.ListObjects(t.Context(), srv.Bucket, minio.ListObjectsOptions{Prefix: prefix + "/", Recursive: true}) {
		must(t, obj.Err)
		r, err := c.GetObject(t.Context(), srv.Bucket, obj.Key, minio.GetObjectOptions{})
		must(t, err)
		var b bytes.Buffer
		_, err = b.ReadFrom(r)
		r.Close()
		must(t, err)
		out[obj.Key[len(prefix)+1:]] = b.Bytes()
	}
	if len(out) == 0 {
		t.Fatalf("nothing under %s/", prefix)
	}
	return out
}

func diffSnapshots(want, got map[string][]byte) string {
	for k, v := range want {
		g, ok := got[k]
		switch {
		case !ok:
			return "missing " + k
		case !bytes.Equal(g, v):
			return fmt.Sprintf("%s holds %q, want %q", k, clip(g), clip(v))
		}
	}
	var extra []string
	for k := range got {
		if _, ok := want[k]; !ok {
			extra = append(extra, k)
		}
	}
	if len(extra) > 0 {
		slices.Sort(extra)
		return fmt.Sprintf("extra keys %v", extra)
	}
	return ""
}

func clip(b []byte) []byte {
	if len(b) > 120 {
		return b[:120]
	}
	return b
}
