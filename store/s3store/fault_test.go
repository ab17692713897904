package s3store_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/minio/minio-go/v7"

	"formation/internal/testutil"
	"formation/internal/testutil/faultproxy"
	"formation/store"
	"formation/store/s3store"
	"formation/store/storetest"
)

// faultWorld is the real S3 server with a fault proxy in front of it, a
// store that goes through the proxy and one that reaches the server
// directly (the truth, and a second writer that never sees a fault).
type faultWorld struct {
	srv    testutil.S3Server
	proxy  *faultproxy.Proxy
	via    *s3store.Store
	direct *s3store.Store
}

func newFaultWorld(t *testing.T, timeout, budget time.Duration) faultWorld {
	t.Helper()
	srv := testutil.StartS3(t)
	p := faultproxy.Start(t, srv.Endpoint, 1)
	prefix := fmt.Sprintf("f%d", prefixes.Add(1))
	cfg := s3store.Config{AccessKey: srv.AccessKey, SecretKey: srv.SecretKey, Region: srv.Region,
		Bucket: srv.Bucket, Prefix: prefix, Timeout: timeout, RetryBudget: budget, SpoolDir: t.TempDir()}
	via, direct := cfg, cfg
	via.Endpoint, direct.Endpoint = p.Endpoint(), srv.Endpoint
	w := faultWorld{srv: srv, proxy: p}
	var err error
	if w.via, err = s3store.New(via); err != nil {
		t.Fatal(err)
	}
	if w.direct, err = s3store.New(direct); err != nil {
		t.Fatal(err)
	}
	return w
}

// rawRef reads a ref's stored envelope, bypassing the store.
func (w faultWorld) rawRef(t *testing.T, name string) string {
	t.Helper()
	obj, err := w.srv.Client(t).GetObject(t.Context(), w.srv.Bucket, w.direct.Key("refs/"+name), minio.GetObjectOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer obj.Close()
	var b bytes.Buffer
	if _, err := b.ReadFrom(obj); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func TestFaultThrottlingAndResets(t *testing.T) {
	w := newFaultWorld(t, 5*time.Second, 20*time.Second)
	w.proxy.SetRules(
		faultproxy.Rule{Match: faultproxy.ObjectWrite, Fault: faultproxy.SlowDown, Count: 3},
		faultproxy.Rule{Match: faultproxy.RefWrite, Fault: faultproxy.Reset, Count: 2},
		faultproxy.Rule{Match: isGet, Fault: faultproxy.SlowDown, Count: 2},
	)
	ctx := t.Context()
	d, err := w.via.Put(ctx, []byte("throttled object"))
	if err != nil {
		t.Fatalf("Put under SlowDown: %v", err)
	}
	if got, err := w.via.Get(ctx, d); err != nil || string(got) != "throttled object" {
		t.Fatalf("Get under SlowDown = %q, %v", got, err)
	}
	if _, err := w.via.SetRef(ctx, "subjects/x/mine", "", []byte(d)); err != nil {
		t.Fatalf("SetRef under resets: %v", err)
	}
	if got := w.rawRef(t, "subjects/x/mine"); got != "formation-ref/1 gen=1\n"+d {
		t.Fatalf("ref after resets = %q", got)
	}
	if c := w.proxy.Counts(); c[faultproxy.SlowDown] != 5 || c[faultproxy.Reset] != 2 {
		t.Fatalf("faults injected: %v", c)
	}
}

func isGet(r *http.Request) bool {
	return r.Method == http.MethodGet && strings.Contains(r.URL.Path, "/objects/")
}

// TestFaultLostReplies: object writes and ref compare-and-swaps whose reply
// is lost after the server applied them. Each retried write recognises its
// own applied write and succeeds, nothing is written twice, and the version
// it returns is the ref's real one.
func TestFaultLostReplies(t *testing.T) {
	w := newFaultWorld(t, 5*time.Second, 20*time.Second)
	ctx := t.Context()
	w.proxy.SetRules(faultproxy.Rule{Match: faultproxy.Either(faultproxy.ObjectWrite, faultproxy.RefWrite),
		Fault: faultproxy.LoseReply, FirstTry: true})

	d, err := w.via.Put(ctx, []byte("applied once"))
	if err != nil {
		t.Fatalf("Put with a lost reply: %v", err)
	}
	if list, err := w.direct.ListObjects(ctx); err != nil || len(list) != 1 || list[0] != d {
		t.Fatalf("objects after a lost reply = %v, %v", list, err)
	}
	v1, err := w.via.SetRef(ctx, "subjects/x/mine", "", []byte("one"))
	if err != nil {
		t.Fatalf("create with a lost reply: %v", err)
	}
	v2, err := w.via.SetRef(ctx, "subjects/x/mine", v1, []byte("two"))
	if err != nil {
		t.Fatalf("compare-and-swap with a lost reply: %v", err)
	}
	if got := w.rawRef(t, "subjects/x/mine"); got != "formation-ref/1 gen=2\ntwo" {
		t.Fatalf("ref = %q, want generation 2 holding two", got)
	}
	if _, cur, err := w.direct.GetRef(ctx, "subjects/x/mine"); err != nil || cur != v2 {
		t.Fatalf("SetRef returned version %s, the ref's is %s (%v)", v2, cur, err)
	}
	created, err := store.CreateRef(ctx, w.via, "cache/forge/k1", []byte("record"))
	if err != nil || !created {
		t.Fatalf("CreateRef with a lost reply = %v, %v; want created", created, err)
	}
	value, changed, err := store.UpdateRef(ctx, w.via, "subjects/x/mine", func(old []byte, _ bool) ([]byte, error) {
		return append(old, '+'), nil
	})
	if err != nil || !changed || string(value) != "two+" {
		t.Fatalf("UpdateRef with a lost reply = %q, %v, %v", value, changed, err)
	}
	if got := w.rawRef(t, "subjects/x/mine"); got != "formation-ref/1 gen=3\ntwo+" {
		t.Fatalf("ref after UpdateRef = %q, want generation 3: written exactly once", got)
	}
	if n := w.proxy.Counts()[faultproxy.LoseReply]; n != 5 {
		t.Fatalf("lost replies injected: %d, want 5", n)
	}
}

// TestFaultLostReplyThenOtherWriter: the reply is lost and another writer
// moves the ref before the retry. The write that was applied is no longer
// the ref's state, so the compare-and-swap fails as lost (and UpdateRef
// derives again from the other writer's value).
func TestFaultLostReplyThenOtherWriter(t *testing.T) {
	w := newFaultWorld(t, 5*time.Second, 20*time.Second)
	ctx := t.Context()
	v1, err := w.direct.SetRef(ctx, "subjects/x/run", "", []byte("base"))
	if err != nil {
		t.Fatal(err)
	}
	w.proxy.SetRules(faultproxy.Rule{Match: faultproxy.RefWrite, Fault: faultproxy.LoseReply, Count: 1,
		Applied: func(*http.Request) {
			_, cur, err := w.direct.GetRef(context.Background(), "subjects/x/run")
			if err == nil {
				_, err = w.direct.SetRef(context.Background(), "subjects/x/run", cur, []byte("other"))
			}
			if err != nil {
				t.Errorf("the other writer: %v", err)
			}
		}})
	_, err = w.via.SetRef(ctx, "subjects/x/run", v1, []byte("mine"))
	if !errors.Is(err, store.ErrPrecondition) {
		t.Fatalf("SetRef overtaken after a lost reply: %v, want ErrPrecondition", err)
	}
	if got := w.rawRef(t, "subjects/x/run"); got != "formation-ref/1 gen=3\nother" {
		t.Fatalf("ref = %q", got)
	}
}

// TestFaultFrozenServer: a server that accepts connections and never
// answers fails every operation with ErrUnavailable within Timeout +
// RetryBudget; once one operation has given up, the next fails at once.
func TestFaultFrozenServer(t *testing.T) {
	const timeout, budget = 700 * time.Millisecond, 1500 * time.Millisecond
	w := newFaultWorld(t, timeout, budget)
	w.proxy.Freeze()
	start := time.Now()
	_, err := w.via.Get(t.Context(), strings.Repeat("a", 64))
	took := time.Since(start)
	if !errors.Is(err, store.ErrUnavailable) || store.ExitCode(err) != 75 {
		t.Fatalf("Get from a frozen server: %v (exit %d), want ErrUnavailable", err, store.ExitCode(err))
	}
	if took > timeout+budget+time.Second || took < budget {
		t.Fatalf("gave up after %v; want between the budget %v and %v", took, budget, timeout+budget+time.Second)
	}
	start = time.Now()
	_, err = w.via.SetRef(t.Context(), "audit/x/y/z", "", []byte("note"))
	if !errors.Is(err, store.ErrUnavailable) || time.Since(start) > 100*time.Millisecond {
		t.Fatalf("the next operation: %v after %v; want ErrUnavailable at once", err, time.Since(start))
	}
	t.Logf("frozen server: gave up after %v (timeout %v, budget %v)", took.Round(time.Millisecond), timeout, budget)
}

// TestFaultOutage: an outage shorter than the retry budget is absorbed.
func TestFaultOutage(t *testing.T) {
	outage(t, 3*time.Second, 2*time.Second, 10*time.Second)
}

// TestFaultOutageSoak: a 30-second outage under the default timeout and
// retry budget.
func TestFaultOutageSoak(t *testing.T) {
	if os.Getenv("FORMATION_SOAK") != "1" {
		t.Skip("soak test: run with FORMATION_SOAK=1 (make soak)")
	}
	outage(t, 30*time.Second, 0, 0)
}

func outage(t *testing.T, d, timeout, budget time.Duration) {
	w := newFaultWorld(t, timeout, budget)
	ctx := t.Context()
	d0, err := w.via.Put(ctx, []byte("before"))
	if err != nil {
		t.Fatal(err)
	}
	w.proxy.Outage(d)
	start := time.Now()
	d1, err := w.via.Put(ctx, []byte("during the outage"))
	if err != nil {
		t.Fatalf("Put across a %v outage: %v", d, err)
	}
	v, err := w.via.SetRef(ctx, "subjects/x/mine", "", []byte(d1))
	if err != nil || v == "" {
		t.Fatalf("SetRef after the outage: %v", err)
	}
	took := time.Since(start)
	if took < d {
		t.Fatalf("the writes finished after %v, before the %v outage ended", took, d)
	}
	for _, dg := range []string{d0, d1} {
		if _, err := w.direct.Get(ctx, dg); err != nil {
			t.Fatalf("object %s: %v", dg, err)
		}
	}
	t.Logf("a %v outage absorbed; the writes finished after %v", d, took.Round(time.Millisecond))
}

// TestFaultLostMultipartCompletion: the completion of a multipart upload is
// applied and its reply lost; the retry finds the upload gone, and the put
// succeeds once the stored object verifies.
func TestFaultLostMultipartCompletion(t *testing.T) {
	srv := testutil.StartS3(t)
	p := faultproxy.Start(t, srv.Endpoint, 2)
	s, err := s3store.New(s3store.Config{Endpoint: p.Endpoint(), AccessKey: srv.AccessKey, SecretKey: srv.SecretKey,
		Region: srv.Region, Bucket: srv.Bucket, Prefix: "lostcomplete", MaxSinglePut: 5 << 20, PartSize: 5 << 20,
		Timeout: 5 * time.Second, RetryBudget: 20 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	complete := func(r *http.Request) bool { return r.Method == http.MethodPost && r.URL.Query().Has("uploadId") }
	p.SetRules(faultproxy.Rule{Match: complete, Fault: faultproxy.LoseReply, FirstTry: true},
		faultproxy.Rule{Match: faultproxy.ObjectWrite, Fault: faultproxy.Reset, FirstTry: true})
	data := storetest.Pattern("lost completion", 11<<20) // incompressible: still a multipart upload
	d, err := s.Put(t.Context(), data)
	if err != nil {
		t.Fatalf("multipart put with a lost completion: %v", err)
	}
	if got, err := s.Get(t.Context(), d); err != nil || !bytes.Equal(got, data) {
		t.Fatalf("Get: %d bytes, %v", len(got), err)
	}
	if c := p.Counts(); c[faultproxy.LoseReply] != 1 || c[faultproxy.Reset] < 3 {
		t.Fatalf("faults injected: %v", c)
	}
}
