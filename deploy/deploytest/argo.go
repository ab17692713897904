package deploytest

import (
	"encoding/json"
	"fmt"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// The Argo Workflows (argoproj.io/v1alpha1) types the manifests use, with
// Argo's JSON names and shapes (io.argoproj.workflow.v1alpha1.* in Argo's
// schema, testdata/argo-workflows-schema.json); TestArgoMirrorMatchesSchema
// holds every field here to it.

// WorkflowTemplate is a reusable workflow definition.
type WorkflowTemplate struct {
	metav1.TypeMeta `json:",inline"`
	Metadata        metav1.ObjectMeta `json:"metadata"`
	Spec            WorkflowSpec      `json:"spec"`
}

// WorkflowSpec is a workflow's templates, entry point and limits.
type WorkflowSpec struct {
	Templates             []Template `json:"templates,omitempty"`
	Entrypoint            string     `json:"entrypoint,omitempty"`
	Arguments             Arguments  `json:"arguments,omitempty"`
	Parallelism           *int64     `json:"parallelism,omitempty"`
	ActiveDeadlineSeconds *int64     `json:"activeDeadlineSeconds,omitempty"`
	PodGC                 *PodGC     `json:"podGC,omitempty"`
}

// Template is one step's definition: a container or a DAG of tasks.
type Template struct {
	Name                  string              `json:"name,omitempty"`
	Inputs                Inputs              `json:"inputs,omitempty"`
	Container             *corev1.Container   `json:"container,omitempty"`
	DAG                   *DAGTemplate        `json:"dag,omitempty"`
	ActiveDeadlineSeconds *intstr.IntOrString `json:"activeDeadlineSeconds,omitempty"`
	RetryStrategy         *RetryStrategy      `json:"retryStrategy,omitempty"`
	Parallelism           *int64              `json:"parallelism,omitempty"`
}

// Inputs are a template's parameters.
type Inputs struct {
	Parameters []Parameter `json:"parameters,omitempty"`
}

// Arguments are the parameters passed to a template or a workflow.
type Arguments struct {
	Parameters []Parameter `json:"parameters,omitempty"`
}

// Parameter is a named string, with a default for an input.
type Parameter struct {
	Name        string      `json:"name"`
	Default     *AnyString  `json:"default,omitempty"`
	Value       *AnyString  `json:"value,omitempty"`
	Enum        []AnyString `json:"enum,omitempty"`
	Description *AnyString  `json:"description,omitempty"`
}

// DAGTemplate is a graph of tasks.
type DAGTemplate struct {
	Target   string    `json:"target,omitempty"`
	Tasks    []DAGTask `json:"tasks"`
	FailFast *bool     `json:"failFast,omitempty"`
}

// DAGTask is one node of a DAG: a template called with arguments, possibly
// once per item.
type DAGTask struct {
	Name         string       `json:"name"`
	Template     string       `json:"template,omitempty"`
	Arguments    Arguments    `json:"arguments,omitempty"`
	TemplateRef  *TemplateRef `json:"templateRef,omitempty"`
	Dependencies []string     `json:"dependencies,omitempty"`
	WithItems    []Item       `json:"withItems,omitempty"`
	WithParam    string       `json:"withParam,omitempty"`
	WithSequence *Sequence    `json:"withSequence,omitempty"`
	When         string       `json:"when,omitempty"`
	Depends      string       `json:"depends,omitempty"`
}

// TemplateRef names a template of another WorkflowTemplate.
type TemplateRef struct {
	Name         string `json:"name,omitempty"`
	Template     string `json:"template,omitempty"`
	ClusterScope bool   `json:"clusterScope,omitempty"`
}

// RetryStrategy says when and how often a step is retried.
type RetryStrategy struct {
	Limit       *intstr.IntOrString `json:"limit,omitempty"`
	RetryPolicy string              `json:"retryPolicy,omitempty"`
	Backoff     *Backoff            `json:"backoff,omitempty"`
	Expression  string              `json:"expression,omitempty"`
}

// Backoff is the delay between retries.
type Backoff struct {
	Duration    string              `json:"duration,omitempty"`
	Factor      *intstr.IntOrString `json:"factor,omitempty"`
	MaxDuration string              `json:"maxDuration,omitempty"`
	Cap         string              `json:"cap,omitempty"`
}

// Sequence expands a task over a numeric range.
type Sequence struct {
	Count  *intstr.IntOrString `json:"count,omitempty"`
	Start  *intstr.IntOrString `json:"start,omitempty"`
	End    *intstr.IntOrString `json:"end,omitempty"`
	Format string              `json:"format,omitempty"`
}

// PodGC says when the workflow's pods are deleted.
type PodGC struct {
	Strategy string `json:"strategy,omitempty"`
}

// Item is one value of withItems: any JSON value.
type Item = json.RawMessage

// AnyString is Argo's parameter string: a JSON string, number or boolean,
// kept as text.
type AnyString string

// UnmarshalJSON accepts what Argo accepts.
func (s *AnyString) UnmarshalJSON(b []byte) error {
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	switch x := v.(type) {
	case string:
		*s = AnyString(x)
	case float64:
		*s = AnyString(strconv.FormatFloat(x, 'f', -1, 64))
	case bool:
		*s = AnyString(strconv.FormatBool(x))
	default:
		return fmt.Errorf("a parameter string cannot be %s", b)
	}
	return nil
}
