package deploytest

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/expr-lang/expr"
	"github.com/expr-lang/expr/builtin"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// Submit runs a WorkflowTemplate as Argo Workflows runs a workflow
// submitted from it: the entry point called with the spec's arguments
// (params override them by name), DAG tasks in dependency order as their
// `depends` or `dependencies` and `when` decide, each task expanded over
// withItems, withParam or withSequence, container templates run as
// processes (Cluster.run) with their retryStrategy and deadlines, the
// workflow under its activeDeadlineSeconds. It returns the workflow's phase
// and, when it did not succeed, why.
func (c *Cluster) Submit(ctx context.Context, name string, params map[string]string) (string, error) {
	wt, ok := c.Templates[name]
	if !ok {
		return Errored, fmt.Errorf("no WorkflowTemplate %s", name)
	}
	args := map[string]string{}
	declared := map[string]bool{}
	for _, p := range wt.Spec.Arguments.Parameters {
		declared[p.Name] = true
		if p.Value != nil {
			args[p.Name] = string(*p.Value)
		}
	}
	for k, v := range params {
		if !declared[k] {
			return Errored, fmt.Errorf("%s has no parameter %s", name, k)
		}
		args[k] = v
	}
	global := map[string]string{"workflow.name": name}
	for k, v := range args {
		global["workflow.parameters."+k] = v
	}
	if d := wt.Spec.ActiveDeadlineSeconds; d != nil {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, time.Duration(*d)*time.Second)
		defer cancel()
	}
	tmpl, err := wt.template(wt.Spec.Entrypoint)
	if err != nil {
		return Errored, err
	}
	n := &node{c: c, scope: wt, global: global, name: name, groups: []string{name}}
	phase, err := n.call(ctx, tmpl, args)
	if err == nil && ctx.Err() != nil {
		phase, err = Failed, fmt.Errorf("workflow %s: %w", name, ctx.Err())
	}
	return phase, err
}

func (wt *WorkflowTemplate) template(name string) (*Template, error) {
	for i := range wt.Spec.Templates {
		if wt.Spec.Templates[i].Name == name {
			return &wt.Spec.Templates[i], nil
		}
	}
	return nil, fmt.Errorf("WorkflowTemplate %s has no template %s", wt.Metadata.Name, name)
}

// node is one call of a template: where it is resolved (scope) and named.
type node struct {
	c      *Cluster
	scope  *WorkflowTemplate
	global map[string]string
	name   string
	groups []string
}

// call resolves the template's inputs from args and runs it.
func (n *node) call(ctx context.Context, tmpl *Template, args map[string]string) (string, error) {
	vars := map[string]string{}
	for k, v := range n.global {
		vars[k] = v
	}
	for _, in := range tmpl.Inputs.Parameters {
		v, ok := args[in.Name]
		switch {
		case ok:
		case in.Value != nil:
			v = string(*in.Value)
		case in.Default != nil:
			v = string(*in.Default)
		default:
			return Errored, fmt.Errorf("%s: input parameter %s has no value", n.name, in.Name)
		}
		if len(in.Enum) > 0 && !containsAny(in.Enum, v) {
			return Errored, fmt.Errorf("%s: %s=%q is not one of %v", n.name, in.Name, v, in.Enum)
		}
		vars["inputs.parameters."+in.Name] = v
	}
	switch {
	case tmpl.DAG != nil:
		return n.dag(ctx, tmpl, vars)
	case tmpl.Container != nil:
		return n.container(ctx, tmpl, vars)
	}
	return Errored, fmt.Errorf("%s: template %s is neither a DAG nor a container", n.name, tmpl.Name)
}

func containsAny(enum []AnyString, v string) bool {
	for _, e := range enum {
		if string(e) == v {
			return true
		}
	}
	return false
}

// taskResult is what a depends expression sees of a finished task.
type taskResult struct {
	Succeeded, Failed, Errored, Skipped, Omitted, Daemoned, AnySucceeded, AllFailed bool
}

var (
	taskName  = regexp.MustCompile(`([a-zA-Z0-9][-a-zA-Z0-9]*?\.[A-Z][a-zA-Z]+)|([a-zA-Z0-9][-a-zA-Z0-9]*)`)
	resultRef = regexp.MustCompile(`^[a-zA-Z0-9][-a-zA-Z0-9]*?\.[A-Z][a-zA-Z]+$`)
)

// dependsLogic returns a task's dependencies and its depends expression, a
// bare name expanded to (name.Succeeded || name.Skipped || name.Daemoned)
// as Argo expands it.
func dependsLogic(t DAGTask) ([]string, string) {
	logic := t.Depends
	if logic == "" {
		var parts []string
		for _, d := range t.Dependencies {
			parts = append(parts, d)
		}
		logic = strings.Join(parts, " && ")
	}
	deps := map[string]bool{}
	out := taskName.ReplaceAllStringFunc(logic, func(m string) string {
		if resultRef.MatchString(m) {
			deps[m[:strings.LastIndex(m, ".")]] = true
			return m
		}
		deps[m] = true
		return "(" + m + ".Succeeded || " + m + ".Skipped || " + m + ".Daemoned)"
	})
	names := make([]string, 0, len(deps))
	for d := range deps {
		names = append(names, d)
	}
	sort.Strings(names)
	return names, strings.ReplaceAll(out, "-", "_")
}

// dag runs a DAG template's tasks.
func (n *node) dag(ctx context.Context, tmpl *Template, vars map[string]string) (string, error) {
	tasks := tmpl.DAG.Tasks
	failFast := tmpl.DAG.FailFast == nil || *tmpl.DAG.FailFast
	var limit chan struct{}
	if tmpl.Parallelism != nil && *tmpl.Parallelism > 0 {
		limit = make(chan struct{}, *tmpl.Parallelism)
	}
	deps := make([][]string, len(tasks))
	logic := make([]string, len(tasks))
	for i, t := range tasks {
		deps[i], logic[i] = dependsLogic(t)
		for _, d := range deps[i] {
			if !hasTask(tasks, d) {
				return Errored, fmt.Errorf("%s: task %s depends on %s, which is not a task", n.name, t.Name, d)
			}
		}
	}
	results := map[string]string{}
	var errs []string
	started := make([]bool, len(tasks))
	type finished struct {
		i     int
		phase string
		err   error
	}
	done := make(chan finished, len(tasks))
	running, failed := 0, false
	settle := func(f finished) {
		results[tasks[f.i].Name] = f.phase
		if f.err != nil {
			errs = append(errs, f.err.Error())
		}
		if f.phase == Failed || f.phase == Errored {
			failed = true
		}
	}
	for {
		progress := false
		for i, t := range tasks {
			if started[i] || !allDone(deps[i], results) || (failed && failFast) {
				continue
			}
			started[i], progress = true, true
			if phase, err := n.gate(t, logic[i], results, vars); phase != "" {
				settle(finished{i, phase, err})
				continue
			}
			running++
			go func(i int, t DAGTask) {
				phase, err := n.task(ctx, t, vars, limit)
				done <- finished{i, phase, err}
			}(i, t)
		}
		if progress {
			continue
		}
		if running == 0 {
			break
		}
		settle(<-done)
		running--
	}
	if failed {
		return Failed, fmt.Errorf("%s: %s", n.name, strings.Join(errs, "; "))
	}
	for i := range tasks {
		if !started[i] {
			return Failed, fmt.Errorf("%s: task %s never ran (its dependencies did not finish)", n.name, tasks[i].Name)
		}
	}
	return Succeeded, nil
}

func hasTask(tasks []DAGTask, name string) bool {
	for _, t := range tasks {
		if t.Name == name {
			return true
		}
	}
	return false
}

func allDone(deps []string, results map[string]string) bool {
	for _, d := range deps {
		if _, ok := results[d]; !ok {
			return false
		}
	}
	return true
}

// gate decides, from the results so far, whether a task runs: a phase
// (Omitted, Skipped, Error) when it does not, "" when it does.
func (n *node) gate(t DAGTask, logic string, results map[string]string, vars map[string]string) (string, error) {
	if logic != "" {
		scope := map[string]any{}
		for name, phase := range results {
			scope[strings.ReplaceAll(name, "-", "_")] = taskResult{Succeeded: phase == Succeeded, Failed: phase == Failed,
				Errored: phase == Errored, Skipped: phase == Skipped, Omitted: phase == Omitted}
		}
		ok, err := evalBool(logic, scope)
		if err != nil {
			return Errored, fmt.Errorf("task %s: depends %q: %w", t.Name, t.Depends, err)
		}
		if !ok {
			return Omitted, nil
		}
	}
	if t.When != "" {
		when, err := substitute(t.When, vars)
		if err != nil {
			return Errored, fmt.Errorf("task %s: when: %w", t.Name, err)
		}
		ok, err := evalBool(when, map[string]any{})
		if err != nil {
			return Errored, fmt.Errorf("task %s: when %q: %w", t.Name, when, err)
		}
		if !ok {
			return Skipped, nil
		}
	}
	return "", nil
}

// task expands a task over its items and calls its template once per item,
// at most limit at once across the DAG.
func (n *node) task(ctx context.Context, t DAGTask, vars map[string]string, limit chan struct{}) (string, error) {
	scope, tmpl, err := n.resolve(t)
	if err != nil {
		return Errored, err
	}
	items, err := expandItems(t, vars)
	if err != nil {
		return Errored, fmt.Errorf("task %s: %w", t.Name, err)
	}
	type outcome struct {
		phase string
		err   error
	}
	outs := make([]outcome, len(items))
	var wg sync.WaitGroup
	for i, it := range items {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if limit != nil {
				select {
				case limit <- struct{}{}:
					defer func() { <-limit }()
				case <-ctx.Done():
					outs[i] = outcome{Failed, ctx.Err()}
					return
				}
			}
			child := n.name + "." + t.Name
			if it.label != "" {
				child += "(" + it.label + ")"
			}
			local := map[string]string{}
			for k, v := range vars {
				local[k] = v
			}
			for k, v := range it.vars {
				local[k] = v
			}
			args := map[string]string{}
			for _, p := range t.Arguments.Parameters {
				if p.Value == nil {
					outs[i] = outcome{Errored, fmt.Errorf("%s: argument %s has no value", child, p.Name)}
					return
				}
				v, err := substitute(string(*p.Value), local)
				if err != nil {
					outs[i] = outcome{Errored, fmt.Errorf("%s: argument %s: %w", child, p.Name, err)}
					return
				}
				args[p.Name] = v
			}
			sub := &node{c: n.c, scope: scope, global: n.global, name: child, groups: append(append([]string{}, n.groups...), child)}
			phase, err := sub.call(ctx, tmpl, args)
			outs[i] = outcome{phase, err}
		}()
	}
	wg.Wait()
	var errs []string
	phase := Succeeded
	for _, o := range outs {
		if o.err != nil {
			errs = append(errs, o.err.Error())
		}
		if o.phase != Succeeded && o.phase != Skipped && o.phase != Omitted {
			phase = Failed
		}
	}
	if len(errs) > 0 {
		return phase, fmt.Errorf("%s", strings.Join(errs, "; "))
	}
	return phase, nil
}

// resolve finds a task's template: in the same WorkflowTemplate, or, by
// templateRef, in another one, which then resolves the template's own tasks.
func (n *node) resolve(t DAGTask) (*WorkflowTemplate, *Template, error) {
	if t.TemplateRef != nil {
		wt, ok := n.c.Templates[t.TemplateRef.Name]
		if !ok || t.TemplateRef.ClusterScope {
			return nil, nil, fmt.Errorf("task %s: no WorkflowTemplate %s", t.Name, t.TemplateRef.Name)
		}
		tmpl, err := wt.template(t.TemplateRef.Template)
		return wt, tmpl, err
	}
	tmpl, err := n.scope.template(t.Template)
	return n.scope, tmpl, err
}

// item is one expansion of a task: its label in the node name and the
// variables {{item}} (and {{item.key}} for an object).
type item struct {
	label string
	vars  map[string]string
}

// expandItems expands withItems, withParam (a JSON list) or withSequence;
// a task with none runs once.
func expandItems(t DAGTask, vars map[string]string) ([]item, error) {
	var raw []json.RawMessage
	switch {
	case len(t.WithItems) > 0:
		raw = t.WithItems
	case t.WithParam != "":
		text, err := substitute(t.WithParam, vars)
		if err != nil {
			return nil, fmt.Errorf("withParam: %w", err)
		}
		if err := json.Unmarshal([]byte(text), &raw); err != nil {
			return nil, fmt.Errorf("withParam %q is not a JSON list: %w", text, err)
		}
	case t.WithSequence != nil:
		return sequence(t.WithSequence, vars)
	default:
		return []item{{vars: map[string]string{}}}, nil
	}
	out := make([]item, 0, len(raw))
	for i, r := range raw {
		it := item{vars: map[string]string{}}
		var v any
		if err := json.Unmarshal(r, &v); err != nil {
			return nil, err
		}
		switch x := v.(type) {
		case string:
			it.vars["item"] = x
		case map[string]any:
			it.vars["item"] = string(r)
			for k, f := range x {
				b, _ := json.Marshal(f)
				if s, ok := f.(string); ok {
					it.vars["item."+k] = s
				} else {
					it.vars["item."+k] = string(b)
				}
			}
		default:
			it.vars["item"] = string(r)
		}
		it.label = fmt.Sprintf("%d:%s", i, it.vars["item"])
		out = append(out, it)
	}
	return out, nil
}

// sequence expands withSequence: count items from start, or start to end.
func sequence(s *Sequence, vars map[string]string) ([]item, error) {
	num := func(v *intstr.IntOrString, name string) (int, bool, error) {
		if v == nil {
			return 0, false, nil
		}
		text, err := substitute(v.String(), vars)
		if err != nil {
			return 0, true, err
		}
		n, err := strconv.Atoi(text)
		if err != nil {
			return 0, true, fmt.Errorf("withSequence %s %q: %w", name, text, err)
		}
		return n, true, nil
	}
	start, _, err := num(s.Start, "start")
	if err != nil {
		return nil, err
	}
	count, hasCount, err := num(s.Count, "count")
	if err != nil {
		return nil, err
	}
	end, hasEnd, err := num(s.End, "end")
	if err != nil {
		return nil, err
	}
	var values []int
	switch {
	case hasCount && hasEnd:
		return nil, fmt.Errorf("withSequence: count and end together")
	case hasCount:
		for i := range count {
			values = append(values, start+i)
		}
	case hasEnd && end >= start:
		for i := start; i <= end; i++ {
			values = append(values, i)
		}
	case hasEnd:
		for i := start; i >= end; i-- {
			values = append(values, i)
		}
	}
	out := make([]item, 0, len(values))
	for i, v := range values {
		text := strconv.Itoa(v)
		if s.Format != "" {
			text = fmt.Sprintf(s.Format, v)
		}
		out = append(out, item{label: fmt.Sprintf("%d:%s", i, text), vars: map[string]string{"item": text}})
	}
	return out, nil
}

var variable = regexp.MustCompile(`{{\s*([^{}]*?)\s*}}`)

// substitute replaces every {{name}} by its value; an unknown name is an
// error, as a workflow with an unresolved variable is.
func substitute(s string, vars map[string]string) (string, error) {
	var missing []string
	out := variable.ReplaceAllStringFunc(s, func(m string) string {
		name := variable.FindStringSubmatch(m)[1]
		if v, ok := vars[name]; ok {
			return v
		}
		missing = append(missing, name)
		return m
	})
	if len(missing) > 0 {
		return "", fmt.Errorf("unresolved variable(s) %s in %q", strings.Join(missing, ", "), s)
	}
	return out, nil
}

// evalBool evaluates an expression with expr, the language Argo evaluates
// depends logic and retry expressions in (a `when` is evaluated by govaluate
// in Argo; the manifests keep theirs to numeric comparisons, where the two
// agree).
func evalBool(text string, env map[string]any) (bool, error) {
	prog, err := expr.Compile(text, expr.Env(env), expr.AsBool())
	if err != nil {
		return false, err
	}
	v, err := expr.Run(prog, env)
	if err != nil {
		return false, err
	}
	return v.(bool), nil
}

// container runs a container template with its retry strategy.
func (n *node) container(ctx context.Context, tmpl *Template, vars map[string]string) (string, error) {
	raw, err := json.Marshal(tmpl.Container)
	if err != nil {
		return Errored, err
	}
	text, err := substituteJSON(string(raw), vars)
	if err != nil {
		return Errored, fmt.Errorf("%s: %w", n.name, err)
	}
	var ctr corev1.Container
	if err := json.Unmarshal([]byte(text), &ctr); err != nil {
		return Errored, fmt.Errorf("%s: %w", n.name, err)
	}
	deadline, err := seconds(tmpl.ActiveDeadlineSeconds)
	if err != nil {
		return Errored, fmt.Errorf("%s: activeDeadlineSeconds: %w", n.name, err)
	}
	rs := tmpl.RetryStrategy
	first := time.Now()
	for attempt := 0; ; attempt++ {
		name := n.name
		if rs != nil {
			name = fmt.Sprintf("%s(%d)", n.name, attempt)
		}
		p := n.c.run(ctx, podSpec{node: name, attempt: attempt, container: ctr, deadline: deadline, groups: n.groups})
		if p.Phase == Succeeded {
			return Succeeded, nil
		}
		retry, delay, err := n.c.retry(rs, attempt, p, time.Since(first))
		if err != nil {
			return Errored, fmt.Errorf("%s: retryStrategy: %w", n.name, err)
		}
		if !retry {
			return p.Phase, fmt.Errorf("%s: %s (exit %d) %s", name, p.Phase, p.ExitCode, p.Message)
		}
		select {
		case <-time.After(delay):
		case <-ctx.Done():
			return Failed, fmt.Errorf("%s: %w", name, ctx.Err())
		}
	}
}

// substituteJSON substitutes variables inside a JSON document's strings,
// each value escaped as a JSON string's content.
func substituteJSON(doc string, vars map[string]string) (string, error) {
	esc := make(map[string]string, len(vars))
	for k, v := range vars {
		b, _ := json.Marshal(v)
		esc[k] = string(b[1 : len(b)-1])
	}
	return substitute(doc, esc)
}

func seconds(v *intstr.IntOrString) (time.Duration, error) {
	if v == nil {
		return 0, nil
	}
	n, err := strconv.Atoi(v.String())
	return time.Duration(n) * time.Second, err
}

// retry decides whether a failed attempt is retried and after how long:
// within the limit, the policy (Always, OnFailure, OnError; with an
// expression and no policy, Always) and the expression over lastRetry,
// within backoff.maxDuration since the first attempt; the delay is
// duration × factor^attempt, at most cap, times BackoffScale.
func (c *Cluster) retry(rs *RetryStrategy, attempt int, p Process, elapsed time.Duration) (bool, time.Duration, error) {
	if rs == nil || rs.Limit == nil {
		return false, 0, nil
	}
	limit, err := strconv.Atoi(rs.Limit.String())
	if err != nil {
		return false, 0, fmt.Errorf("limit %q: %w", rs.Limit.String(), err)
	}
	if attempt >= limit {
		return false, 0, nil
	}
	policy := rs.RetryPolicy
	if policy == "" && rs.Expression != "" {
		policy = "Always"
	}
	switch policy {
	case "Always":
	case "", "OnFailure":
		if p.Phase != Failed {
			return false, 0, nil
		}
	case "OnError":
		if p.Phase != Errored {
			return false, 0, nil
		}
	default:
		return false, 0, fmt.Errorf("retryPolicy %q", policy)
	}
	if rs.Expression != "" {
		env := map[string]any{
			"lastRetry": map[string]any{"exitCode": strconv.Itoa(p.ExitCode), "status": p.Phase,
				"duration": strconv.FormatFloat(p.End.Sub(p.Start).Seconds(), 'f', -1, 64), "message": p.Message},
			"asInt": builtin.Int,
		}
		ok, err := evalBool(rs.Expression, env)
		if err != nil || !ok {
			return false, 0, err
		}
	}
	var delay time.Duration
	if b := rs.Backoff; b != nil {
		base, err := argoDuration(b.Duration)
		if err != nil {
			return false, 0, err
		}
		factor := 1
		if b.Factor != nil {
			factor = b.Factor.IntValue()
		}
		delay = time.Duration(float64(base) * math.Pow(float64(factor), float64(attempt)))
		if b.Cap != "" {
			cp, err := argoDuration(b.Cap)
			if err != nil {
				return false, 0, err
			}
			delay = min(delay, cp)
		}
		if b.MaxDuration != "" {
			maxd, err := argoDuration(b.MaxDuration)
			if err != nil {
				return false, 0, err
			}
			if elapsed+delay > maxd {
				return false, 0, nil
			}
		}
	}
	return true, time.Duration(float64(delay) * c.BackoffScale), nil
}

// argoDuration reads a backoff duration: a number of seconds or a Go
// duration ("30s", "2m").
func argoDuration(s string) (time.Duration, error) {
	if n, err := strconv.Atoi(s); err == nil {
		return time.Duration(n) * time.Second, nil
	}
	return time.ParseDuration(s)
}
