package deploytest

import (
	"context"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	"formation/store"
)

// shardedSubject runs a generated subject of n relations as the subject DAG
// with K = 4 run shards, K processes at once, shard 1's first attempt
// killed midway: the killed shard is retried, every stage's output (the
// merged run record included) is the single-process autorun's, and a
// resubmission is all cache hits. Midway is half the CPU time shard 1 took
// in a first submission to a store of its own, so the kill lands inside the
// shard's work however fast this build or machine is.
func shardedSubject(t *testing.T, n int) {
	l := newLab(t)
	writeChain(t, l.courses, "chain", "Node", n)
	start := time.Now()
	l.autorun("chain", "single")
	single := time.Since(start)
	const k = 4
	killAt := shardCPU(t, l, k) / 2
	c := l.cluster(k)
	c.Kill = func(node string, attempt int) time.Duration {
		if strings.Contains(node, ".run-shard(1:1)") && attempt == 0 {
			return killAt
		}
		return 0
	}
	params := map[string]string{"subject": "chain", "store": l.url("dag"), "run-shards": strconv.Itoa(k)}
	took := submit(t, c, "formation-subject", params)
	killed, retried := false, false
	shards := 0
	for _, p := range c.Processes() {
		if strings.Contains(p.Node, ".run-shard(1:1)") {
			switch {
			case p.Attempt == 0 && p.Phase == Errored && p.Message == "pod deleted":
				killed = true
			case p.Attempt == 1 && p.Phase == Succeeded:
				retried = true
			}
		}
		if strings.Contains(p.Node, ".run-shard(") && p.Phase == Succeeded {
			shards++
		}
		if strings.Contains(p.Node, ".run(") {
			t.Errorf("the unsharded run step ran: %s", p.Node)
		}
	}
	if !killed || !retried || shards != k {
		t.Fatalf("shard 1 killed midway %v, retried %v; %d shards succeeded (the kill comes after %v of CPU time: a shard that ends sooner is not killed)", killed, retried, shards, killAt)
	}
	if peak := c.Peak(); peak > k || peak < 2 {
		t.Errorf("%d processes at once, want between 2 and %d", peak, k)
	}
	l.sameDigests("chain", "single", "dag")
	s, err := store.Open(context.Background(), l.url("dag"))
	if err != nil {
		t.Fatal(err)
	}
	refs, err := s.ListRefs(context.Background(), "subjects/chain/run-shards/")
	if err != nil || len(refs) != k {
		t.Fatalf("shard refs %v: %v", refs, err)
	}
	again := l.cluster(k)
	retook := submit(t, again, "formation-subject", params)
	allHits(t, again.Processes())
	t.Logf("%d relations: single-process autorun %v; the DAG with %d run shards, one killed after %v of CPU and retried, %v (peak %d processes); its resubmission %v, all %d steps cache hits",
		n, single.Round(time.Millisecond), k, killAt, took.Round(time.Millisecond), c.Peak(), retook.Round(time.Millisecond), len(again.Processes()))
}

// shardCPU submits the subject DAG with k run shards to a store of its own
// and returns the CPU time run shard 1 used.
func shardCPU(t *testing.T, l *lab, k int) time.Duration {
	t.Helper()
	c := l.cluster(k)
	submit(t, c, "formation-subject", map[string]string{"subject": "chain", "store": l.url("calibrate"), "run-shards": strconv.Itoa(k)})
	for _, p := range c.Processes() {
		if strings.Contains(p.Node, ".run-shard(1:1)") && p.Phase == Succeeded {
			if p.CPU < 20*time.Millisecond {
				t.Fatalf("run shard 1 used %v of CPU: too little to kill it midway", p.CPU)
			}
			return p.CPU
		}
	}
	t.Fatal("run shard 1 did not succeed in the calibrating submission")
	return 0
}

func TestShardedSubjectWorkflow(t *testing.T) { shardedSubject(t, 1000) }

// TestSoakShardedSubject10000 is the figure: a 10,000-relation
// subject (FORMATION_SOAK=1, make soak).
func TestSoakShardedSubject10000(t *testing.T) {
	if os.Getenv("FORMATION_SOAK") != "1" {
		t.Skip("FORMATION_SOAK=1 runs the 10,000-relation subject")
	}
	shardedSubject(t, 10000)
}

// Eight subjects through the fleet WorkflowTemplate, at most its
// parallelism (4) at once, and through the Indexed Job, its parallelism at
// once: every subject's stages are the single-process autorun's.
func TestFleetOfEightSubjects(t *testing.T) {
	l := newLab(t)
	words := []string{"Node", "Item", "Unit", "Part", "Step", "Link", "Cell", "Atom"}
	var ids []string
	for i, w := range words {
		id := "fleet-" + strconv.Itoa(i)
		writeChain(t, l.courses, id, w, 40+10*i)
		ids = append(ids, id)
	}
	start := time.Now()
	for _, id := range ids {
		l.autorun(id, "single")
	}
	single := time.Since(start)

	wf := l.cluster(8)
	list := `["` + strings.Join(ids, `","`) + `"]`
	took := submit(t, wf, "formation-fleet", map[string]string{"subjects": list, "store": l.url("argo")})
	if peak := wf.PeakUnder("formation-fleet"); peak > 4 || peak < 2 {
		t.Errorf("%d subjects' steps at once, want between 2 and the fleet's parallelism 4", peak)
	}
	if n := len(wf.Processes()); n != len(ids)*len(stageOrder) {
		t.Errorf("%d processes for %d subjects", n, len(ids))
	}
	for _, id := range ids {
		l.sameDigests(id, "single", "argo")
	}

	job := l.m.Jobs["formation-fleet"].DeepCopy()
	jc := l.cluster(8)
	jc.ConfigMaps["formation-fleet"]["subjects"] = "# the test's fleet\n" + strings.Join(ids, "\n") + "\n"
	completions := int32(len(ids))
	job.Spec.Completions = &completions
	setStore(t, &job.Spec.Template.Spec.Containers[0], l.url("indexed"))
	jstart := time.Now()
	res, err := jc.RunJob(context.Background(), "formation-fleet", job.Spec)
	if err != nil || res.Failed {
		t.Fatalf("Indexed Job: %v %+v", err, res)
	}
	jtook := time.Since(jstart)
	if peak := jc.PeakUnder("formation-fleet"); peak > int(*job.Spec.Parallelism) || peak < 2 {
		t.Errorf("%d pods at once, parallelism %d", peak, *job.Spec.Parallelism)
	}
	for _, id := range ids {
		l.sameDigests(id, "single", "indexed")
	}
	t.Logf("8 subjects: 8 single-process autoruns %v; the fleet workflow %v (at most %d subjects at once); the Indexed Job %v (at most %d pods at once)",
		single.Round(time.Millisecond), took.Round(time.Millisecond), wf.PeakUnder("formation-fleet"), jtook.Round(time.Millisecond), jc.PeakUnder("formation-fleet"))
}

// setStore points a container's FORMATION_STORE at a test store.
func setStore(t *testing.T, c *corev1.Container, url string) {
	t.Helper()
	for i := range c.Env {
		if c.Env[i].Name == "FORMATION_STORE" {
			c.Env[i].Value = url
			return
		}
	}
	t.Fatalf("container %s sets no FORMATION_STORE", c.Name)
}
