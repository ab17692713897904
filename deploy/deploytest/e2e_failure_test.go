package deploytest

import (
	"context"
	"strings"
	"testing"
	"time"
)

// Retries follow the exit codes. Argo: a store that cannot be reached
// (exit 75) is retried up to the limit; a subject that does not exist
// (exit 66) fails at once. The CronJob: 75 until backoffLimit; the Indexed
// Job: a bad subject fails its index alone, and a disrupted pod is retried
// without counting.
func TestRetriesFollowExitCodes(t *testing.T) {
	l := newLab(t)
	ctx := context.Background()

	down := l.cluster(4)
	down.ConfigMaps["formation-store"]["FORMATION_S3_ENDPOINT"] = "http://127.0.0.1:1"
	// A refused connection is retried for the whole retry budget before the
	// pod exits 75; a short budget keeps each attempt to a second.
	down.ConfigMaps["formation-store"]["FORMATION_S3_RETRY_BUDGET"] = "1s"
	phase, _ := down.Submit(ctx, "formation-subject", map[string]string{"subject": "optics", "store": l.url("down")})
	procs := down.Processes()
	limit := l.m.WorkflowTemplates["formation-subject"].Spec.Templates[1].RetryStrategy.Limit.IntValue()
	if phase != Failed || len(procs) != limit+1 {
		t.Fatalf("store down: %s after %d attempts, want Failed after %d", phase, len(procs), limit+1)
	}
	for _, p := range procs {
		if p.ExitCode != 75 || !strings.Contains(p.Node, ".mine(") {
			t.Errorf("store down: %s exit %d", p.Node, p.ExitCode)
		}
	}

	missing := l.cluster(4)
	phase, _ = missing.Submit(ctx, "formation-subject", map[string]string{"subject": "no-such-subject", "store": l.url("missing")})
	if procs := missing.Processes(); phase != Failed || len(procs) != 1 || procs[0].ExitCode != 66 {
		t.Fatalf("a missing subject: %s, %+v", phase, procs)
	}

	t.Logf("Argo, store down: %d attempts, all exit 75; a missing subject: 1 attempt, exit 66", limit+1)
	cron := *l.m.CronJobs["formation-autorun-optics"].Spec.JobTemplate.Spec.DeepCopy()
	setStore(t, &cron.Template.Spec.Containers[0], l.url("down"))
	res, err := down.RunJob(ctx, "formation-autorun-optics", cron)
	if err != nil || !res.Failed || res.Reason != "BackoffLimitExceeded" || res.Attempts[0] != int(*cron.BackoffLimit)+1 {
		t.Fatalf("CronJob with the store down: %v %+v", err, res)
	}
	t.Logf("CronJob, store down: %d pods, all exit 75, then BackoffLimitExceeded", res.Attempts[0])

	job := l.m.Jobs["formation-fleet"].DeepCopy()
	jc := l.cluster(4)
	jc.ConfigMaps["formation-fleet"]["subjects"] = "optics\nno-such-subject\noptics\n"
	three := int32(3)
	job.Spec.Completions = &three
	setStore(t, &job.Spec.Template.Spec.Containers[0], l.url("indexed"))
	jc.Kill = func(node string, attempt int) time.Duration {
		if node == "formation-fleet-2" && attempt == 0 {
			return 50 * time.Millisecond
		}
		return 0
	}
	res, err = jc.RunJob(ctx, "formation-fleet", job.Spec)
	if err != nil || !res.Failed || res.Reason != "FailedIndexes" ||
		strings.Join(res.Indexes, ",") != "Succeeded,Failed,Succeeded" || res.Attempts[1] != 1 || res.Attempts[2] != 2 {
		t.Fatalf("Indexed Job with a missing subject and a disruption: %v %+v", err, res)
	}
	t.Logf("Indexed Job: indexes %v after %v pods", res.Indexes, res.Attempts)
}
