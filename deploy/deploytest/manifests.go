package deploytest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"
)

// ManifestDirs are the folders of deploy/ that hold manifests, relative to
// the repository root.
var ManifestDirs = []string{"deploy/kubernetes", "deploy/argo"}

// Manifests are every document of the manifest folders, decoded strictly
// into its API type, by name.
type Manifests struct {
	ConfigMaps        map[string]*corev1.ConfigMap
	CronJobs          map[string]*batchv1.CronJob
	Jobs              map[string]*batchv1.Job
	WorkflowTemplates map[string]*WorkflowTemplate
	// Files lists each manifest file (relative to the root) and the kinds
	// of its documents, in order.
	Files map[string][]string
}

// LoadManifests reads and strictly decodes every *.yaml file of the
// manifest folders under root.
func LoadManifests(root string) (*Manifests, error) {
	m := &Manifests{ConfigMaps: map[string]*corev1.ConfigMap{}, CronJobs: map[string]*batchv1.CronJob{},
		Jobs: map[string]*batchv1.Job{}, WorkflowTemplates: map[string]*WorkflowTemplate{}, Files: map[string][]string{}}
	for _, dir := range ManifestDirs {
		files, err := filepath.Glob(filepath.Join(root, dir, "*.yaml"))
		if err != nil {
			return nil, err
		}
		sort.Strings(files)
		for _, f := range files {
			rel, _ := filepath.Rel(root, f)
			if err := m.loadFile(f, filepath.ToSlash(rel)); err != nil {
				return nil, err
			}
		}
	}
	return m, nil
}

func (m *Manifests) loadFile(path, rel string) error {
	raw, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	docs := splitDocuments(raw)
	if len(docs) == 0 {
		return fmt.Errorf("%s: no document", rel)
	}
	for i, doc := range docs {
		kind, err := m.add(doc)
		if err != nil {
			return fmt.Errorf("%s, document %d: %w", rel, i+1, err)
		}
		m.Files[rel] = append(m.Files[rel], kind)
	}
	return nil
}

// splitDocuments splits a YAML stream at its "---" lines, dropping
// documents that hold only comments.
func splitDocuments(raw []byte) [][]byte {
	var docs [][]byte
	var cur []string
	flush := func() {
		text := strings.Join(cur, "\n")
		for _, line := range cur {
			if t := strings.TrimSpace(line); t != "" && !strings.HasPrefix(t, "#") {
				docs = append(docs, []byte(text))
				break
			}
		}
		cur = nil
	}
	for _, line := range strings.Split(string(raw), "\n") {
		if strings.TrimRight(line, " ") == "---" {
			flush()
			continue
		}
		cur = append(cur, line)
	}
	flush()
	return docs
}

// add decodes one document by its apiVersion and kind.
func (m *Manifests) add(doc []byte) (string, error) {
	var tm metav1.TypeMeta
	if err := yaml.Unmarshal(doc, &tm); err != nil {
		return "", err
	}
	var name string
	var err error
	switch tm.APIVersion + " " + tm.Kind {
	case "v1 ConfigMap":
		var v corev1.ConfigMap
		err = DecodeStrict(doc, &v)
		name = v.Name
		m.ConfigMaps[name] = &v
	case "batch/v1 CronJob":
		var v batchv1.CronJob
		err = DecodeStrict(doc, &v)
		name = v.Name
		m.CronJobs[name] = &v
	case "batch/v1 Job":
		var v batchv1.Job
		err = DecodeStrict(doc, &v)
		name = v.Name
		m.Jobs[name] = &v
	case "argoproj.io/v1alpha1 WorkflowTemplate":
		var v WorkflowTemplate
		err = DecodeStrict(doc, &v)
		name = v.Metadata.Name
		m.WorkflowTemplates[name] = &v
	default:
		return "", fmt.Errorf("unknown apiVersion %q kind %q", tm.APIVersion, tm.Kind)
	}
	if err != nil {
		return "", fmt.Errorf("%s: %w", tm.Kind, err)
	}
	if name == "" {
		return "", fmt.Errorf("%s without metadata.name", tm.Kind)
	}
	return tm.Kind, nil
}

// DecodeStrict decodes one YAML document into v: duplicate keys and any
// field v's type does not have are errors, and so is trailing data.
func DecodeStrict(doc []byte, v any) error {
	j, err := yaml.YAMLToJSONStrict(doc)
	if err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(j))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if _, err := dec.Token(); err != io.EOF {
		return fmt.Errorf("trailing data after the document")
	}
	return nil
}
