package deploytest

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

type schemaProp struct {
	Type  string      `json:"type"`
	Ref   string      `json:"$ref"`
	Const string      `json:"const"`
	Items *schemaProp `json:"items"`
}

type schemaDef struct {
	Properties map[string]schemaProp `json:"properties"`
	Required   []string              `json:"required"`
}

const argoDefs = "io.argoproj.workflow.v1alpha1."

// mirrored names the Argo definition of each mirror type, and of the
// Kubernetes types the mirror embeds.
var mirrored = map[reflect.Type]string{
	reflect.TypeFor[WorkflowTemplate]():   argoDefs + "WorkflowTemplate",
	reflect.TypeFor[WorkflowSpec]():       argoDefs + "WorkflowSpec",
	reflect.TypeFor[Template]():           argoDefs + "Template",
	reflect.TypeFor[Inputs]():             argoDefs + "Inputs",
	reflect.TypeFor[Arguments]():          argoDefs + "Arguments",
	reflect.TypeFor[Parameter]():          argoDefs + "Parameter",
	reflect.TypeFor[DAGTemplate]():        argoDefs + "DAGTemplate",
	reflect.TypeFor[DAGTask]():            argoDefs + "DAGTask",
	reflect.TypeFor[TemplateRef]():        argoDefs + "TemplateRef",
	reflect.TypeFor[RetryStrategy]():      argoDefs + "RetryStrategy",
	reflect.TypeFor[Backoff]():            argoDefs + "Backoff",
	reflect.TypeFor[Sequence]():           argoDefs + "Sequence",
	reflect.TypeFor[PodGC]():              argoDefs + "PodGC",
	reflect.TypeFor[corev1.Container]():   "io.k8s.api.core.v1.Container",
	reflect.TypeFor[metav1.ObjectMeta]():  "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta",
	reflect.TypeFor[intstr.IntOrString](): "io.k8s.apimachinery.pkg.util.intstr.IntOrString",
	reflect.TypeFor[Item]():               argoDefs + "Item",
}

// Every field of the Argo mirror is a property of Argo's schema for that
// type, of the same shape, and every property the schema requires is a
// field the mirror always writes.
func TestArgoMirrorMatchesSchema(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("testdata", "argo-workflows-schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	var schema struct {
		Definitions map[string]schemaDef `json:"definitions"`
	}
	if err := json.Unmarshal(raw, &schema); err != nil {
		t.Fatal(err)
	}
	checked := 0
	for typ, name := range mirrored {
		if !strings.HasPrefix(name, argoDefs) || typ == reflect.TypeFor[Item]() {
			continue
		}
		def, ok := schema.Definitions[name]
		if !ok {
			t.Errorf("%s: no definition %s", typ.Name(), name)
			continue
		}
		fields := map[string]bool{}
		for i := range typ.NumField() {
			f := typ.Field(i)
			tag := f.Tag.Get("json")
			jname, opts, _ := strings.Cut(tag, ",")
			if opts == "inline" {
				for _, p := range []string{"apiVersion", "kind"} {
					if _, ok := def.Properties[p]; !ok {
						t.Errorf("%s: the schema has no %s", name, p)
					}
					fields[p] = true
				}
				continue
			}
			fields[jname] = !strings.Contains(opts, "omitempty")
			prop, ok := def.Properties[jname]
			if !ok {
				t.Errorf("%s.%s: %s has no property %q", typ.Name(), f.Name, name, jname)
				continue
			}
			if why := sameShape(f.Type, prop); why != "" {
				t.Errorf("%s.%s (%s): %s", typ.Name(), f.Name, jname, why)
			}
			checked++
		}
		for _, r := range def.Required {
			if always, ok := fields[r]; !ok || !always {
				t.Errorf("%s: %s requires %q, which the mirror does not always write", typ.Name(), name, r)
			}
		}
	}
	if checked < 40 {
		t.Fatalf("checked only %d fields", checked)
	}
}

// sameShape compares a Go field type with a schema property; "" when they
// agree.
func sameShape(typ reflect.Type, p schemaProp) string {
	if typ.Kind() == reflect.Pointer {
		typ = typ.Elem()
	}
	if name, ok := mirrored[typ]; ok {
		if p.Ref != "#/definitions/"+name {
			return "a " + name + ", the schema says " + p.Ref + p.Type
		}
		return ""
	}
	want := map[reflect.Kind]string{reflect.String: "string", reflect.Bool: "boolean", reflect.Int64: "integer", reflect.Int32: "integer", reflect.Int: "integer"}
	switch typ.Kind() {
	case reflect.Slice:
		if p.Type != "array" || p.Items == nil {
			return "a list, the schema says " + p.Type
		}
		return sameShape(typ.Elem(), *p.Items)
	case reflect.String, reflect.Bool, reflect.Int64, reflect.Int32, reflect.Int:
		if p.Type != want[typ.Kind()] {
			return "a " + want[typ.Kind()] + ", the schema says " + p.Type + p.Ref
		}
		return ""
	}
	return "a " + typ.String() + ", which the test cannot compare"
}
