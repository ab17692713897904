package deploytest

import (
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
)

// The image runs as a numeric, non-root user (so that runAsNonRoot can
// verify it), its default store is a folder that user owns, every path it
// copies from the context exists and is in the context, and its build
// stage's Go is the module's.
func TestDockerfile(t *testing.T) {
	root := repoRoot(t)
	df := dockerfile(t)
	final := df.Final()
	user, ok := final.Last("USER")
	if !ok {
		t.Fatal("the image runs as root: no USER")
	}
	uid, _, _ := strings.Cut(user.Args[0], ":")
	if n, err := strconv.Atoi(uid); err != nil || n == 0 {
		t.Fatalf("USER %s: want a numeric user other than 0", user.Args[0])
	}
	ignore := dockerignore(t)
	for _, st := range df.Stages {
		for _, cp := range st.All("COPY") {
			if _, from := cp.Flags["from"]; from {
				continue
			}
			for _, src := range cp.Args[:len(cp.Args)-1] {
				if _, err := os.Stat(filepath.Join(root, src)); err != nil && src != "." {
					t.Errorf("line %d: COPY %s: %v", cp.Line, src, err)
				}
				if src != "." && ignore.Excluded(path.Clean(src)) {
					t.Errorf("line %d: COPY %s, which .dockerignore leaves out of the context", cp.Line, src)
				}
			}
		}
	}
	env := map[string]string{}
	for _, kv := range final.Env() {
		env[kv[0]] = kv[1]
	}
	copied := func(p string) bool {
		for _, cp := range final.All("COPY") {
			dst := path.Clean(cp.Args[len(cp.Args)-1])
			if p == dst || strings.HasPrefix(p, dst+"/") {
				return true
			}
		}
		return false
	}
	for _, k := range []string{"FORMATION_PACKS_DIR", "FORMATION_COURSES_DIR"} {
		if !copied(env[k]) {
			t.Errorf("%s=%q is not a folder the image copies in", k, env[k])
		}
	}
	storeDir := strings.TrimPrefix(env["FORMATION_STORE"], "file://")
	if wd, ok := final.Last("WORKDIR"); ok && env["FORMATION_STORE"] == "" {
		storeDir = path.Join(wd.Args[0], ".formation")
	}
	if !ownedBy(df, storeDir, uid) {
		t.Errorf("the default store %s is not a folder the image's user %s owns (COPY --chown of a folder the build stage makes)", storeDir, uid)
	}
	gomod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	goVersion := regexp.MustCompile(`(?m)^go (\d+\.\d+)`).FindSubmatch(gomod)
	if goVersion == nil || !strings.HasPrefix(df.Stages[0].Image, "golang:"+string(goVersion[1])) {
		t.Errorf("build stage %s, module go %s", df.Stages[0].Image, goVersion[1])
	}
	if ep, ok := final.Last("ENTRYPOINT"); !ok || !slices.Contains(imageBinaries(t), ep.Args[0]) {
		t.Errorf("ENTRYPOINT %v is not a binary the image holds", ep.Args)
	}
}

// ownedBy reports whether dir is made in the build stage (mkdir -p) and
// copied into the image with --chown=uid.
func ownedBy(df *Dockerfile, dir, uid string) bool {
	for _, cp := range df.Final().All("COPY") {
		owner, _, _ := strings.Cut(cp.Flags["chown"], ":")
		stage := df.StageNamed(cp.Flags["from"])
		if owner != uid || stage == nil || len(cp.Args) != 2 {
			continue
		}
		src, dst := cp.Args[0], cp.Args[1]
		rel, ok := strings.CutPrefix(dir, strings.TrimSuffix(dst, "/")+"/")
		if !ok || !strings.HasSuffix(src, "/") {
			continue
		}
		for _, run := range stage.All("RUN") {
			if strings.Contains(" "+run.Raw+" ", " mkdir -p "+path.Join(src, rel)+" ") {
				return true
			}
		}
	}
	return false
}

// imageBinaries are the paths of the binaries the image holds: each folder
// of cmd/ built into the folder the final stage copies to /usr/local/bin.
func imageBinaries(t *testing.T) []string {
	t.Helper()
	dirs, err := os.ReadDir(filepath.Join(repoRoot(t), "cmd"))
	if err != nil {
		t.Fatal(err)
	}
	df := dockerfile(t)
	var binDir string
	for _, cp := range df.Final().All("COPY") {
		if cp.Flags["from"] != "" && cp.Args[0] == "/out/" {
			binDir = cp.Args[1]
		}
	}
	if binDir == "" || !strings.Contains(df.Stages[0].All("RUN")[len(df.Stages[0].All("RUN"))-1].Raw, "-o /out/ ./cmd/...") {
		t.Fatal("the build stage does not build ./cmd/... into /out/ for the final stage")
	}
	var out []string
	for _, d := range dirs {
		if d.IsDir() {
			out = append(out, path.Join(binDir, d.Name()))
		}
	}
	return out
}

func dockerignore(t *testing.T) IgnoreRules {
	t.Helper()
	rules, err := ParseDockerignore(filepath.Join(repoRoot(t), ".dockerignore"))
	if err != nil {
		t.Fatal(err)
	}
	return rules
}

// The build context (the repository root) leaves out the binaries, the
// tools, local stores and the version control folder, and what remains is
// small.
func TestDockerignore(t *testing.T) {
	rules := dockerignore(t)
	for _, p := range []string{"bin", "bin/formation", ".tools/bin/versitygw", ".formation/objects/sha256/ab/x",
		".formation-demo/refs/x", ".git", "deploy/deploytest/go.mod", "formation.test"} {
		if !rules.Excluded(p) {
			t.Errorf("%s is in the build context", p)
		}
	}
	for _, p := range []string{"go.mod", "go.sum", "cmd/formation/main.go", "packs/safety/core_safety_axes_v1.json",
		"courses/optics/subject.yaml", "deploy/Dockerfile"} {
		if rules.Excluded(p) {
			t.Errorf("%s is left out of the build context", p)
		}
	}
	root := repoRoot(t)
	var size int64
	files := 0
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		if rel != "." && rules.Excluded(rel) {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.IsDir() {
			info, err := d.Info()
			if err != nil {
				return err
			}
			size += info.Size()
			files++
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	const limit = 32 << 20
	if size > limit {
		t.Errorf("the build context is %d MB, more than %d MB", size>>20, limit>>20)
	}
	t.Logf("build context: %d files, %.1f MB", files, float64(size)/(1<<20))
}

// Every manifest decodes strictly (unknown fields are errors) into the
// Kubernetes and Argo Workflows types, and each file holds what it should.
func TestManifestsDecodeStrictly(t *testing.T) {
	m := manifests(t)
	want := map[string][]string{
		"deploy/kubernetes/store-config.yaml":       {"ConfigMap"},
		"deploy/kubernetes/autorun-cronjob.yaml":    {"CronJob"},
		"deploy/kubernetes/fleet-indexed-job.yaml":  {"ConfigMap", "Job"},
		"deploy/argo/subject-workflowtemplate.yaml": {"WorkflowTemplate"},
		"deploy/argo/fleet-workflowtemplate.yaml":   {"WorkflowTemplate"},
	}
	for f, kinds := range want {
		if !slices.Equal(m.Files[f], kinds) {
			t.Errorf("%s holds %v, want %v", f, m.Files[f], kinds)
		}
	}
	if len(m.Files) != len(want) {
		t.Errorf("manifest files %v", m.Files)
	}
	for _, bad := range []string{
		"apiVersion: batch/v1\nkind: Job\nmetadata: {name: x}\nspec:\n  activeDeadline: 5\n  template: {spec: {containers: []}}\n",
		"apiVersion: batch/v1\nkind: Job\nmetadata: {name: x}\nmetadata: {name: y}\n",
		"apiVersion: argoproj.io/v1alpha1\nkind: WorkflowTemplate\nmetadata: {name: x}\nspec:\n  templates:\n    - name: a\n      retryStrategy: {limit: 1, retryPolicy: Always, backof: {}}\n",
		"apiVersion: argoproj.io/v1alpha1\nkind: WorkflowTemplate\nmetadata: {name: x}\nspec:\n  templates:\n    - name: a\n      container: {image: x, imagePullPolicy: IfNotPresent, comand: [x]}\n",
	} {
		if _, err := (&Manifests{ConfigMaps: map[string]*corev1.ConfigMap{}, CronJobs: map[string]*batchv1.CronJob{},
			Jobs: map[string]*batchv1.Job{}, WorkflowTemplates: map[string]*WorkflowTemplate{}}).add([]byte(bad)); err == nil {
			t.Errorf("decoded a misspelt or duplicated field:\n%s", bad)
		}
	}
}

// container is one container of a manifest, with where it is.
type container struct {
	where   string
	c       corev1.Container
	podSec  *corev1.PodSecurityContext
	volumes []corev1.Volume
}

func (m *Manifests) containers() []container {
	var out []container
	for name, cj := range m.CronJobs {
		ps := cj.Spec.JobTemplate.Spec.Template.Spec
		for _, c := range ps.Containers {
			out = append(out, container{"CronJob " + name, c, ps.SecurityContext, ps.Volumes})
		}
	}
	for name, j := range m.Jobs {
		ps := j.Spec.Template.Spec
		for _, c := range ps.Containers {
			out = append(out, container{"Job " + name, c, ps.SecurityContext, ps.Volumes})
		}
	}
	for name, wt := range m.WorkflowTemplates {
		for _, tmpl := range wt.Spec.Templates {
			if tmpl.Container != nil {
				out = append(out, container{"WorkflowTemplate " + name + " template " + tmpl.Name, *tmpl.Container, nil, nil})
			}
		}
	}
	slices.SortFunc(out, func(a, b container) int { return strings.Compare(a.where, b.where) })
	return out
}

// Every container runs the one image at a pinned tag with a pull policy,
// as a non-root user, a binary the image holds, with its ConfigMaps and
// Secret keys named consistently, and never promote.
func TestContainers(t *testing.T) {
	m := manifests(t)
	bins := imageBinaries(t)
	images := map[string]bool{}
	cs := m.containers()
	if len(cs) != 5 {
		t.Fatalf("%d containers", len(cs))
	}
	for _, c := range cs {
		images[c.c.Image] = true
		name, tag, ok := strings.Cut(c.c.Image, ":")
		if !ok || tag == "latest" || name == "" {
			t.Errorf("%s: image %q: want a pinned tag", c.where, c.c.Image)
		}
		if c.c.ImagePullPolicy != corev1.PullIfNotPresent {
			t.Errorf("%s: imagePullPolicy %q, want IfNotPresent (with a pinned tag)", c.where, c.c.ImagePullPolicy)
		}
		nonRoot := func(s *bool) bool { return s != nil && *s }
		if !(c.podSec != nil && nonRoot(c.podSec.RunAsNonRoot)) && !(c.c.SecurityContext != nil && nonRoot(c.c.SecurityContext.RunAsNonRoot)) {
			t.Errorf("%s: no runAsNonRoot", c.where)
		}
		if sc := c.c.SecurityContext; sc == nil || sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation {
			t.Errorf("%s: allowPrivilegeEscalation not false", c.where)
		}
		if len(c.c.Command) > 0 && !slices.Contains(bins, strings.ReplaceAll(c.c.Command[0], "{{inputs.parameters.stage}}", "run")) {
			t.Errorf("%s: command %v is not a binary of the image", c.where, c.c.Command)
		}
		if c.c.Resources.Requests.Memory().IsZero() || c.c.Resources.Limits.Memory().IsZero() {
			t.Errorf("%s: no memory request or limit", c.where)
		}
		for _, a := range append(append([]string{}, c.c.Command...), c.c.Args...) {
			if strings.Contains(a, "promote") {
				t.Errorf("%s: %q: promotion stays outside the cluster", c.where, a)
			}
		}
		for _, ef := range c.c.EnvFrom {
			if ef.ConfigMapRef == nil || m.ConfigMaps[ef.ConfigMapRef.Name] == nil {
				t.Errorf("%s: envFrom %+v: not a ConfigMap of the manifests", c.where, ef)
			}
		}
		for _, e := range c.c.Env {
			if ref := e.ValueFrom; ref != nil {
				if ref.SecretKeyRef == nil || ref.SecretKeyRef.Name != "formation-s3" ||
					!slices.Contains([]string{"access-key-id", "secret-access-key"}, ref.SecretKeyRef.Key) {
					t.Errorf("%s: env %s: want a key of the Secret formation-s3", c.where, e.Name)
				}
			}
		}
	}
	if len(images) != 1 {
		t.Errorf("the manifests run %d images: %v", len(images), images)
	}
}

// The CronJob's Job fails at once on every exit but 75, ignores
// disruptions, and ends before the next night.
func TestCronJobFollowsExitCodes(t *testing.T) {
	m := manifests(t)
	cj := m.CronJobs["formation-autorun-optics"]
	if cj == nil {
		t.Fatal("no CronJob formation-autorun-optics")
	}
	if cj.Spec.ConcurrencyPolicy != batchv1.ForbidConcurrent || cj.Spec.Schedule != "0 2 * * *" {
		t.Errorf("concurrency %s, schedule %q", cj.Spec.ConcurrencyPolicy, cj.Spec.Schedule)
	}
	js := cj.Spec.JobTemplate.Spec
	if js.ActiveDeadlineSeconds == nil || *js.ActiveDeadlineSeconds <= 0 || *js.ActiveDeadlineSeconds >= 20*3600 {
		t.Errorf("activeDeadlineSeconds %v: want one that ends a hung run before the next night", js.ActiveDeadlineSeconds)
	}
	checkFailurePolicy(t, "CronJob", js, batchv1.PodFailurePolicyActionFailJob)
}

// The Indexed Job runs one subject of the ConfigMap's list per index, each
// index failing alone on every exit but 75.
func TestIndexedJobPicksSubjects(t *testing.T) {
	m := manifests(t)
	j := m.Jobs["formation-fleet"]
	if j == nil {
		t.Fatal("no Job formation-fleet")
	}
	s := j.Spec
	if s.CompletionMode == nil || *s.CompletionMode != batchv1.IndexedCompletion || s.BackoffLimitPerIndex == nil ||
		s.Parallelism == nil || s.ActiveDeadlineSeconds == nil {
		t.Fatalf("want an Indexed Job with backoffLimitPerIndex, parallelism and activeDeadlineSeconds: %+v", s)
	}
	checkFailurePolicy(t, "Job", s, batchv1.PodFailurePolicyActionFailIndex)
	ps := s.Template.Spec
	c := ps.Containers[0]
	i := slices.Index(c.Args, "--subjects")
	if i < 0 || i+1 >= len(c.Args) || !slices.Contains(c.Args, "$(JOB_COMPLETION_INDEX)") {
		t.Fatalf("args %v: want --subjects FILE --index $(JOB_COMPLETION_INDEX)", c.Args)
	}
	file := c.Args[i+1]
	var cm *corev1.ConfigMap
	for _, vm := range c.VolumeMounts {
		if rel, ok := strings.CutPrefix(file, vm.MountPath+"/"); ok {
			for _, v := range ps.Volumes {
				if v.Name == vm.Name && v.ConfigMap != nil {
					cm = m.ConfigMaps[v.ConfigMap.Name]
					if cm != nil && cm.Data[rel] == "" {
						t.Errorf("ConfigMap %s has no key %s", cm.Name, rel)
					}
					file = rel
				}
			}
		}
	}
	if cm == nil {
		t.Fatalf("--subjects %s is not a file of a mounted ConfigMap of the manifests", c.Args[i+1])
	}
	subjects := 0
	for _, line := range strings.Split(cm.Data[file], "\n") {
		if l := strings.TrimSpace(line); l != "" && !strings.HasPrefix(l, "#") {
			subjects++
		}
	}
	if s.Completions == nil || int(*s.Completions) != subjects {
		t.Errorf("completions %v for %d subjects", s.Completions, subjects)
	}
}

// checkFailurePolicy wants: restartPolicy Never, a disruption ignored, and
// every exit code but 75 ending the Job (or the index) at once.
func checkFailurePolicy(t *testing.T, what string, js batchv1.JobSpec, final batchv1.PodFailurePolicyAction) {
	t.Helper()
	if js.Template.Spec.RestartPolicy != corev1.RestartPolicyNever {
		t.Errorf("%s: restartPolicy %s", what, js.Template.Spec.RestartPolicy)
	}
	pfp := js.PodFailurePolicy
	if pfp == nil || len(pfp.Rules) != 2 {
		t.Fatalf("%s: want a podFailurePolicy of two rules: %+v", what, pfp)
	}
	ign, fail := pfp.Rules[0], pfp.Rules[1]
	if ign.Action != batchv1.PodFailurePolicyActionIgnore || len(ign.OnPodConditions) != 1 || ign.OnPodConditions[0].Type != corev1.DisruptionTarget {
		t.Errorf("%s: first rule %+v: want DisruptionTarget ignored", what, ign)
	}
	ec := fail.OnExitCodes
	if fail.Action != final || ec == nil || ec.Operator != batchv1.PodFailurePolicyOnExitCodesOpNotIn || !slices.Equal(ec.Values, []int32{75}) ||
		ec.ContainerName == nil || *ec.ContainerName != js.Template.Spec.Containers[0].Name {
		t.Errorf("%s: second rule %+v: want %s on exit codes NotIn [75] of the container", what, fail, final)
	}
}

// The subject WorkflowTemplate is the stage DAG, each container step
// retried on 75 only, with backoff and a deadline; the fleet fans out over
// a list with a parallelism limit and calls the subject's template.
func TestWorkflowTemplatesShape(t *testing.T) {
	m := manifests(t)
	sub, fleet := m.WorkflowTemplates["formation-subject"], m.WorkflowTemplates["formation-fleet"]
	if sub == nil || fleet == nil {
		t.Fatal("want WorkflowTemplates formation-subject and formation-fleet")
	}
	for _, wt := range []*WorkflowTemplate{sub, fleet} {
		if wt.Spec.ActiveDeadlineSeconds == nil || *wt.Spec.ActiveDeadlineSeconds <= 0 {
			t.Errorf("%s: no activeDeadlineSeconds", wt.Metadata.Name)
		}
		for _, tmpl := range wt.Spec.Templates {
			if tmpl.Container == nil {
				continue
			}
			rs := tmpl.RetryStrategy
			if tmpl.ActiveDeadlineSeconds == nil || rs == nil || rs.Limit == nil || rs.Backoff == nil ||
				!strings.Contains(rs.Expression, "asInt(lastRetry.exitCode) == 75") {
				t.Errorf("%s/%s: want a deadline and a retryStrategy on exit 75 with backoff", wt.Metadata.Name, tmpl.Name)
			}
		}
	}
	dag, err := sub.template(sub.Spec.Entrypoint)
	if err != nil || dag.DAG == nil {
		t.Fatalf("formation-subject's entry point is not a DAG: %v", err)
	}
	order := map[string]string{"smelt": "mine", "forge": "smelt", "compose": "forge", "run": "compose",
		"run-shard": "compose", "run-merge": "run-shard", "ratify": "run && run-merge"}
	if len(dag.DAG.Tasks) != len(order)+1 {
		t.Errorf("%d tasks", len(dag.DAG.Tasks))
	}
	for _, task := range dag.DAG.Tasks {
		if task.Depends != order[task.Name] {
			t.Errorf("task %s depends on %q, want %q", task.Name, task.Depends, order[task.Name])
		}
	}
	ft, err := fleet.template(fleet.Spec.Entrypoint)
	if err != nil || ft.DAG == nil || ft.Parallelism == nil || len(ft.DAG.Tasks) != 1 {
		t.Fatalf("formation-fleet: want a DAG of one task with parallelism: %v", err)
	}
	task := ft.DAG.Tasks[0]
	if task.WithParam == "" || task.TemplateRef == nil || task.TemplateRef.Name != "formation-subject" || task.TemplateRef.Template != sub.Spec.Entrypoint {
		t.Errorf("the fleet's task %+v: want withParam over formation-subject's %s", task, sub.Spec.Entrypoint)
	}
}
