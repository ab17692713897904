package deploytest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	corev1 "k8s.io/api/core/v1"
)

// Cluster runs the manifests' containers as processes of the image's
// binaries: the ConfigMaps and Secrets they read, at most MaxProcs
// processes at once, and a record of every process that ran.
type Cluster struct {
	Image      *Image
	ConfigMaps map[string]map[string]string
	Secrets    map[string]map[string]string
	Templates  map[string]*WorkflowTemplate
	MaxProcs   int
	// BackoffScale multiplies every retry delay (Argo's backoff, a Job's
	// pod backoff), so that a test waits milliseconds where a cluster
	// waits minutes; the delays keep their shape.
	BackoffScale float64
	// Kill, when it returns a positive duration for a node's attempt,
	// ends that process with SIGKILL once it has used so much CPU time
	// (not wall time, which a busy machine stretches): a pod deleted or its
	// node lost midway (Argo: status Error; a Job: condition
	// DisruptionTarget).
	Kill func(node string, attempt int) time.Duration
	// Work is a folder for the pods' volumes.
	Work string

	startOnce sync.Once
	sem       chan struct{}
	mu        sync.Mutex
	runs      []Process
	running   int
	peak      int
	active    map[string]int // node prefix → processes running under it
	peakUnder map[string]int
}

// Process is one container that ran.
type Process struct {
	Node     string
	Attempt  int
	Argv     []string // as the container sees it
	ExitCode int      // -1 when the process was killed
	Phase    string   // Succeeded, Failed or Error
	Message  string
	Stdout   string
	Stderr   string
	Start    time.Time
	End      time.Time
	CPU      time.Duration // user and system time, once it has ended
}

// The phases of a node or pod.
const (
	Succeeded = "Succeeded"
	Failed    = "Failed"
	Errored   = "Error"
	Skipped   = "Skipped"
	Omitted   = "Omitted"
)

// Processes returns every process that ran, in the order they ended.
func (c *Cluster) Processes() []Process {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]Process{}, c.runs...)
}

// Peak is the most processes that ran at once.
func (c *Cluster) Peak() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.peak
}

// PeakUnder is the most processes that ran at once under each node group
// (Track names the groups).
func (c *Cluster) PeakUnder(group string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.peakUnder[group]
}

func (c *Cluster) init() {
	c.startOnce.Do(func() {
		n := c.MaxProcs
		if n <= 0 {
			n = 1
		}
		c.sem = make(chan struct{}, n)
		c.active, c.peakUnder = map[string]int{}, map[string]int{}
	})
}

// podSpec is what one container run needs.
type podSpec struct {
	node      string
	attempt   int
	container corev1.Container
	volumes   []corev1.Volume
	extraEnv  [][2]string // set by the platform (JOB_COMPLETION_INDEX)
	deadline  time.Duration
	groups    []string // node groups the process counts under, for PeakUnder
}

// run starts one container as a process and waits for it.
func (c *Cluster) run(ctx context.Context, pod podSpec) Process {
	c.init()
	p := Process{Node: pod.node, Attempt: pod.attempt, ExitCode: -1}
	select {
	case c.sem <- struct{}{}:
	case <-ctx.Done():
		p.Phase, p.Message = Failed, ctx.Err().Error()
		return c.record(p)
	}
	defer func() { <-c.sem }()
	cmd, argv, err := c.command(ctx, pod)
	p.Argv = argv
	if err != nil {
		p.Phase, p.Message = Errored, err.Error()
		return c.record(p)
	}
	runCtx, cancel := ctx, context.CancelFunc(func() {})
	if pod.deadline > 0 {
		runCtx, cancel = context.WithTimeout(ctx, pod.deadline)
	}
	defer cancel()
	proc := exec.CommandContext(runCtx, cmd.Path, cmd.Args[1:]...)
	proc.Env, proc.Dir = cmd.Env, cmd.Dir
	var stdout, stderr bytes.Buffer
	proc.Stdout, proc.Stderr = &stdout, &stderr
	c.track(pod.groups, +1)
	p.Start = time.Now()
	err = proc.Start()
	var killed bool
	var killMu sync.Mutex
	if err == nil && c.Kill != nil {
		if d := c.Kill(pod.node, pod.attempt); d > 0 {
			exited := make(chan struct{})
			defer close(exited)
			go func() {
				tick := time.NewTicker(10 * time.Millisecond)
				defer tick.Stop()
				for {
					select {
					case <-exited:
						return
					case <-tick.C:
					}
					if cpuTime(proc.Process.Pid) >= d {
						killMu.Lock()
						killed = true
						killMu.Unlock()
						_ = proc.Process.Kill()
						return
					}
				}
			}()
		}
	}
	if err == nil {
		err = proc.Wait()
	}
	p.End = time.Now()
	if proc.ProcessState != nil {
		p.CPU = proc.ProcessState.UserTime() + proc.ProcessState.SystemTime()
	}
	c.track(pod.groups, -1)
	p.Stdout, p.Stderr = stdout.String(), stderr.String()
	killMu.Lock()
	wasKilled := killed
	killMu.Unlock()
	var exit *exec.ExitError
	switch {
	case err == nil:
		p.Phase, p.ExitCode = Succeeded, 0
	case wasKilled:
		p.Phase, p.Message = Errored, "pod deleted"
	case runCtx.Err() != nil:
		p.Phase, p.Message = Failed, "Pod was active on the node longer than the specified deadline"
	case errors.As(err, &exit) && exit.ExitCode() >= 0:
		p.Phase, p.ExitCode = Failed, exit.ExitCode()
	case errors.As(err, &exit):
		p.Phase, p.Message = Errored, "killed: "+exit.ProcessState.Sys().(syscall.WaitStatus).Signal().String()
	default:
		p.Phase, p.Message = Errored, err.Error()
	}
	return c.record(p)
}

func (c *Cluster) record(p Process) Process {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.runs = append(c.runs, p)
	return p
}

func (c *Cluster) track(groups []string, d int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.running += d
	c.peak = max(c.peak, c.running)
	for _, g := range groups {
		c.active[g] += d
		c.peakUnder[g] = max(c.peakUnder[g], c.active[g])
	}
}

// command builds the process of a container: the image's environment,
// envFrom and env (with $(VAR) references), the command (or the image's
// entrypoint) and args, every container path mapped to this machine.
func (c *Cluster) command(ctx context.Context, pod podSpec) (*exec.Cmd, []string, error) {
	ctr := pod.container
	img, err := c.podImage(pod)
	if err != nil {
		return nil, nil, err
	}
	env := newEnv()
	for _, kv := range img.Env {
		env.set(kv[0], kv[1])
	}
	for _, kv := range pod.extraEnv {
		env.set(kv[0], kv[1])
	}
	for _, src := range ctr.EnvFrom {
		data, err := c.envSource(src)
		if err != nil {
			return nil, nil, err
		}
		for _, k := range sortedKeys(data) {
			env.set(src.Prefix+k, data[k])
		}
	}
	for _, e := range ctr.Env {
		v, err := c.envValue(e, env)
		if err != nil {
			return nil, nil, err
		}
		env.set(e.Name, v)
	}
	argv := append([]string{}, ctr.Command...)
	if len(argv) == 0 {
		argv = append(argv, img.Entrypoint...)
	}
	argv = append(argv, ctr.Args...)
	if len(argv) == 0 {
		return nil, nil, fmt.Errorf("container %s: nothing to run", ctr.Name)
	}
	for i := range argv {
		argv[i] = expandVars(argv[i], env)
	}
	local := make([]string, len(argv))
	for i, a := range argv {
		local[i] = img.LocalValue(a)
	}
	if !img.Mounted(argv[0]) {
		return nil, argv, fmt.Errorf("container %s: %s is not in the image", ctr.Name, argv[0])
	}
	if _, err := os.Stat(local[0]); err != nil {
		return nil, argv, fmt.Errorf("container %s: %w", ctr.Name, err)
	}
	cmd := exec.CommandContext(ctx, local[0], local[1:]...)
	cmd.Env = env.list(img)
	cmd.Dir = img.Local(img.WorkDir)
	if ctr.WorkingDir != "" {
		cmd.Dir = img.Local(ctr.WorkingDir)
	}
	return cmd, argv, nil
}

// podImage is the image with the pod's volumes mounted: a ConfigMap volume
// is a folder of one file per key.
func (c *Cluster) podImage(pod podSpec) (*Image, error) {
	extra := map[string]string{}
	for _, vm := range pod.container.VolumeMounts {
		var vol *corev1.Volume
		for i := range pod.volumes {
			if pod.volumes[i].Name == vm.Name {
				vol = &pod.volumes[i]
			}
		}
		if vol == nil || vol.ConfigMap == nil {
			return nil, fmt.Errorf("volume %s: only ConfigMap volumes are mounted here", vm.Name)
		}
		data, ok := c.ConfigMaps[vol.ConfigMap.Name]
		if !ok {
			return nil, fmt.Errorf("volume %s: no ConfigMap %s", vm.Name, vol.ConfigMap.Name)
		}
		dir, err := os.MkdirTemp(c.Work, "volume-")
		if err != nil {
			return nil, err
		}
		for k, v := range data {
			if err := os.WriteFile(filepath.Join(dir, k), []byte(v), 0o644); err != nil {
				return nil, err
			}
		}
		extra[vm.MountPath] = dir
	}
	return c.Image.With(extra), nil
}

func (c *Cluster) envSource(src corev1.EnvFromSource) (map[string]string, error) {
	switch {
	case src.ConfigMapRef != nil:
		if d, ok := c.ConfigMaps[src.ConfigMapRef.Name]; ok {
			return d, nil
		}
		return nil, fmt.Errorf("envFrom: no ConfigMap %s", src.ConfigMapRef.Name)
	case src.SecretRef != nil:
		if d, ok := c.Secrets[src.SecretRef.Name]; ok {
			return d, nil
		}
		return nil, fmt.Errorf("envFrom: no Secret %s", src.SecretRef.Name)
	}
	return nil, errors.New("envFrom: neither a ConfigMap nor a Secret")
}

func (c *Cluster) envValue(e corev1.EnvVar, env *envList) (string, error) {
	if e.ValueFrom == nil {
		return expandVars(e.Value, env), nil
	}
	lookup := func(kind, name, key string, from map[string]map[string]string) (string, error) {
		d, ok := from[name]
		if !ok {
			return "", fmt.Errorf("env %s: no %s %s", e.Name, kind, name)
		}
		v, ok := d[key]
		if !ok {
			return "", fmt.Errorf("env %s: %s %s has no key %s", e.Name, kind, name, key)
		}
		return v, nil
	}
	switch vf := e.ValueFrom; {
	case vf.SecretKeyRef != nil:
		return lookup("Secret", vf.SecretKeyRef.Name, vf.SecretKeyRef.Key, c.Secrets)
	case vf.ConfigMapKeyRef != nil:
		return lookup("ConfigMap", vf.ConfigMapKeyRef.Name, vf.ConfigMapKeyRef.Key, c.ConfigMaps)
	}
	return "", fmt.Errorf("env %s: valueFrom other than a Secret or ConfigMap key", e.Name)
}

// envList is a container's environment in definition order.
type envList struct {
	order []string
	vals  map[string]string
}

func newEnv() *envList { return &envList{vals: map[string]string{}} }

func (e *envList) set(k, v string) {
	if _, ok := e.vals[k]; !ok {
		e.order = append(e.order, k)
	}
	e.vals[k] = v
}

// list is the process environment, values naming container paths mapped.
func (e *envList) list(img *Image) []string {
	out := make([]string, 0, len(e.order))
	for _, k := range e.order {
		out = append(out, k+"="+img.LocalValue(e.vals[k]))
	}
	return out
}

var varRef = regexp.MustCompile(`\$\$|\$\(([A-Za-z_][A-Za-z0-9_.-]*)\)`)

// expandVars replaces $(VAR) by the variable's value as Kubernetes does: an
// undefined one stays as written, $$ is a literal $.
func expandVars(s string, env *envList) string {
	return varRef.ReplaceAllStringFunc(s, func(m string) string {
		if m == "$$" {
			return "$"
		}
		if v, ok := env.vals[m[2:len(m)-1]]; ok {
			return v
		}
		return m
	})
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// cpuTime is the user and system time a process has used so far, from
// /proc (in clock ticks of 1/100 s); 0 when it cannot be read.
func cpuTime(pid int) time.Duration {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	// The fields after the command name, which ends at the last ")".
	fields := strings.Fields(string(raw[bytes.LastIndexByte(raw, ')')+1:]))
	if len(fields) < 13 {
		return 0
	}
	utime, err1 := strconv.Atoi(fields[11])
	stime, err2 := strconv.Atoi(fields[12])
	if err1 != nil || err2 != nil {
		return 0
	}
	return time.Duration(utime+stime) * 10 * time.Millisecond
}
