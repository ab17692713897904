package deploytest

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
)

// JobResult is how a Job ended: failed or not (and why), each index's
// phase and how many pods each index took.
type JobResult struct {
	Failed   bool
	Reason   string
	Indexes  []string
	Attempts []int
}

// RunJob runs a Job as the Job controller does: completions pods (one per
// index, JOB_COMPLETION_INDEX set, for an Indexed Job), parallelism at
// once, each failed pod judged by the podFailurePolicy (FailJob, FailIndex,
// Ignore, Count) and retried within backoffLimit or backoffLimitPerIndex
// after the controller's pod backoff (10 s, doubling, times BackoffScale),
// the whole Job under activeDeadlineSeconds.
func (c *Cluster) RunJob(ctx context.Context, name string, spec batchv1.JobSpec) (JobResult, error) {
	pod := spec.Template.Spec
	if len(pod.Containers) != 1 || len(pod.InitContainers) > 0 {
		return JobResult{}, fmt.Errorf("job %s: one container, no init containers", name)
	}
	if pod.RestartPolicy != corev1.RestartPolicyNever {
		return JobResult{}, fmt.Errorf("job %s: restartPolicy must be Never (a podFailurePolicy needs it)", name)
	}
	completions, parallelism := int32Or(spec.Completions, 1), int32Or(spec.Parallelism, 1)
	indexed := spec.CompletionMode != nil && *spec.CompletionMode == batchv1.IndexedCompletion
	if !indexed && completions != 1 {
		return JobResult{}, fmt.Errorf("job %s: only Indexed Jobs run more than one completion here", name)
	}
	if d := spec.ActiveDeadlineSeconds; d != nil {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, time.Duration(*d)*time.Second)
		defer cancel()
	}
	ctx, stop := context.WithCancel(ctx)
	defer stop()
	j := &jobRun{c: c, name: name, spec: spec, indexed: indexed, stop: stop,
		res: JobResult{Indexes: make([]string, completions), Attempts: make([]int, completions)}}
	sem := make(chan struct{}, parallelism)
	var wg sync.WaitGroup
	for i := range completions {
		wg.Add(1)
		go func() {
			defer wg.Done()
			select {
			case sem <- struct{}{}:
				defer func() { <-sem }()
			case <-ctx.Done():
				j.setIndex(i, Failed)
				return
			}
			j.index(ctx, i)
		}()
	}
	wg.Wait()
	if ctx.Err() != nil && !j.res.Failed && spec.ActiveDeadlineSeconds != nil {
		j.fail("DeadlineExceeded")
	}
	for _, phase := range j.res.Indexes {
		if phase != Succeeded && !j.res.Failed {
			j.fail("FailedIndexes")
		}
	}
	return j.res, nil
}

func int32Or(p *int32, d int) int {
	if p == nil {
		return d
	}
	return int(*p)
}

type jobRun struct {
	c       *Cluster
	name    string
	spec    batchv1.JobSpec
	indexed bool
	stop    context.CancelFunc

	mu       sync.Mutex
	res      JobResult
	failures int // counted failures of the whole Job
}

func (j *jobRun) fail(reason string) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if !j.res.Failed {
		j.res.Failed, j.res.Reason = true, reason
	}
	j.stop()
}

func (j *jobRun) setIndex(i int, phase string) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.res.Indexes[i] = phase
}

// index runs one index's pods until one succeeds or the index or the Job
// fails.
func (j *jobRun) index(ctx context.Context, i int) {
	pod := j.spec.Template.Spec
	perIndex := 0
	for attempt := 0; ; attempt++ {
		node := j.name
		var extra [][2]string
		if j.indexed {
			node = j.name + "-" + strconv.Itoa(i)
			extra = [][2]string{{"JOB_COMPLETION_INDEX", strconv.Itoa(i)}}
		}
		p := j.c.run(ctx, podSpec{node: node, attempt: attempt, container: pod.Containers[0], volumes: pod.Volumes,
			extraEnv: extra, groups: []string{j.name}})
		j.mu.Lock()
		j.res.Attempts[i]++
		j.mu.Unlock()
		if p.Phase == Succeeded {
			j.setIndex(i, Succeeded)
			return
		}
		if ctx.Err() != nil {
			j.setIndex(i, Failed)
			return
		}
		switch action := j.action(pod.Containers[0].Name, p); action {
		case batchv1.PodFailurePolicyActionFailJob:
			j.setIndex(i, Failed)
			j.fail("PodFailurePolicy")
			return
		case batchv1.PodFailurePolicyActionFailIndex:
			j.setIndex(i, Failed)
			return
		case batchv1.PodFailurePolicyActionIgnore:
		default:
			perIndex++
			if j.spec.BackoffLimitPerIndex != nil {
				if perIndex > int(*j.spec.BackoffLimitPerIndex) {
					j.setIndex(i, Failed)
					return
				}
			} else if j.countFailure() {
				j.setIndex(i, Failed)
				j.fail("BackoffLimitExceeded")
				return
			}
		}
		delay := time.Duration(float64(10*time.Second) * float64(int(1)<<min(perIndex, 6)) / 2 * j.c.BackoffScale)
		select {
		case <-time.After(delay):
		case <-ctx.Done():
			j.setIndex(i, Failed)
			return
		}
	}
}

// countFailure counts a failure against backoffLimit and reports whether
// the limit is passed.
func (j *jobRun) countFailure() bool {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.failures++
	return j.failures > int32Or(j.spec.BackoffLimit, 6)
}

// action is the podFailurePolicy's decision on a failed pod: the action of
// the first rule that matches, else Count. A pod killed from outside (see
// Cluster.Kill) has the condition DisruptionTarget.
func (j *jobRun) action(container string, p Process) batchv1.PodFailurePolicyAction {
	if j.spec.PodFailurePolicy == nil {
		return batchv1.PodFailurePolicyActionCount
	}
	disrupted := p.Phase == Errored && p.Message == "pod deleted"
	for _, r := range j.spec.PodFailurePolicy.Rules {
		if r.OnExitCodes != nil && !disrupted && p.ExitCode > 0 {
			ec := r.OnExitCodes
			if ec.ContainerName != nil && *ec.ContainerName != container {
				continue
			}
			in := false
			for _, v := range ec.Values {
				in = in || int(v) == p.ExitCode
			}
			if in == (ec.Operator == batchv1.PodFailurePolicyOnExitCodesOpIn) {
				return r.Action
			}
		}
		for _, pc := range r.OnPodConditions {
			if disrupted && pc.Type == corev1.DisruptionTarget && (pc.Status == "" || pc.Status == corev1.ConditionTrue) {
				return r.Action
			}
		}
	}
	return batchv1.PodFailurePolicyActionCount
}
