package courses

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"formation/artifact"
	"formation/relparse"
)

// DomainsFile is the domain table's name inside the courses folder.
const DomainsFile = "domains.yaml"

// OperatorFamilies returns the operator families a domain may claim (the
// capability ledger's vocabulary).
func OperatorFamilies() []string {
	return []string{"causal", "contradiction", "modal", "proof_chain", "transitive"}
}

// Domains is courses/domains.yaml.
type Domains struct {
	SchemaVersion string   `yaml:"schema_version"`
	Domains       []Domain `yaml:"domains"`
}

// Domain groups subjects and says what they claim and how they are measured.
type Domain struct {
	ID               string           `yaml:"id"`
	Title            string           `yaml:"title"`
	Subjects         []string         `yaml:"subjects"`
	OperatorFamilies []OperatorFamily `yaml:"operator_families"`
	EvalLanes        []EvalLane       `yaml:"eval_lanes"`
}

// OperatorFamily is a claimed family and the relation predicates that make
// it up.
type OperatorFamily struct {
	Family    string   `yaml:"family"`
	Relations []string `yaml:"relations"`
}

// EvalLane is one evaluation lane; it reads the questions of the domain's
// subjects, one file per split.
type EvalLane struct {
	Lane    string   `yaml:"lane"`
	Version string   `yaml:"version"`
	Splits  []string `yaml:"splits"`
}

// LoadDomains reads and validates <coursesDir>/domains.yaml and checks that
// every subject it names has a folder with a subject.yaml.
func LoadDomains(ctx context.Context, coursesDir string) (*Domains, error) {
	data, err := readLimited(ctx, filepath.Join(coursesDir, DomainsFile), DomainsFile, MaxSubjectFileBytes)
	if err != nil {
		return nil, err
	}
	d, err := ParseDomains(data)
	if err != nil {
		return nil, err
	}
	var ps problems
	for i, dom := range d.Domains {
		for j, subj := range dom.Subjects {
			info, err := os.Lstat(filepath.Join(coursesDir, subj, SubjectFile))
			if err != nil || !info.Mode().IsRegular() {
				ps.add(fmt.Sprintf("domains[%d].subjects[%d]", i, j), "", CodeUnknownSubject, "no %s/%s", subj, SubjectFile)
			}
		}
	}
	if err := ps.err(DomainsFile); err != nil {
		return nil, err
	}
	return d, nil
}

// ParseDomains decodes and validates the bytes of a domains.yaml.
func ParseDomains(data []byte) (*Domains, error) {
	var d Domains
	if ps := decodeStrictYAML(data, &d); len(ps) > 0 {
		return nil, ps.err(DomainsFile)
	}
	var ps problems
	if d.SchemaVersion != artifact.SchemaVersion {
		ps.add("schema_version", "", CodeBadSchemaVersion, "want %q, got %q", artifact.SchemaVersion, d.SchemaVersion)
	}
	if len(d.Domains) == 0 {
		ps.add("domains", "", CodeMissing, "no domains")
	}
	ids := map[string]bool{}
	subjects := map[string]string{}
	for i, dom := range d.Domains {
		at := fmt.Sprintf("domains[%d]", i)
		if err := ValidSubjectID(dom.ID); err != nil {
			ps.add(at+".id", "", CodeBadID, "domain id: %v", err)
		}
		if ids[dom.ID] {
			ps.add(at+".id", "", CodeDuplicateID, "domain %q given twice", dom.ID)
		}
		ids[dom.ID] = true
		checkText(&ps, at+".title", dom.Title, true)
		dom.validateSubjects(&ps, at, subjects)
		dom.validateFamilies(&ps, at)
		dom.validateLanes(&ps, at)
	}
	if err := ps.err(DomainsFile); err != nil {
		return nil, err
	}
	return &d, nil
}

// validateSubjects wants at least one subject and each subject in exactly
// one domain.
func (dom Domain) validateSubjects(ps *problems, at string, owner map[string]string) {
	if len(dom.Subjects) == 0 {
		ps.add(at+".subjects", "", CodeMissing, "a domain needs at least one subject")
	}
	for j, s := range dom.Subjects {
		where := fmt.Sprintf("%s.subjects[%d]", at, j)
		if err := ValidSubjectID(s); err != nil {
			ps.add(where, "", CodeBadSubjectID, "%v", err)
		}
		if prev, dup := owner[s]; dup {
			ps.add(where, "", CodeDuplicateID, "subject %q already listed under domain %q", s, prev)
		}
		owner[s] = dom.ID
	}
}

// validateFamilies wants known families, each claimed once, each with
// relations of the vocabulary.
func (dom Domain) validateFamilies(ps *problems, at string) {
	if len(dom.OperatorFamilies) == 0 {
		ps.add(at+".operator_families", "", CodeMissing, "a domain claims at least one operator family")
	}
	seen := map[string]bool{}
	for j, f := range dom.OperatorFamilies {
		where := fmt.Sprintf("%s.operator_families[%d]", at, j)
		if !slices.Contains(OperatorFamilies(), f.Family) {
			ps.add(where+".family", "", CodeBadID, "%q is not one of %v", f.Family, OperatorFamilies())
		}
		if seen[f.Family] {
			ps.add(where+".family", "", CodeDuplicateID, "family %q claimed twice", f.Family)
		}
		seen[f.Family] = true
		if len(f.Relations) == 0 {
			ps.add(where+".relations", "", CodeMissing, "a family names at least one relation")
		}
		for k, r := range f.Relations {
			if !relparse.IsRelation(r) {
				ps.add(fmt.Sprintf("%s.relations[%d]", where, k), "", CodeBadRelation, "%q is not a relation of the vocabulary", r)
			}
		}
	}
}

// validateLanes wants at least one lane, each covering every split once.
func (dom Domain) validateLanes(ps *problems, at string) {
	if len(dom.EvalLanes) == 0 {
		ps.add(at+".eval_lanes", "", CodeMissing, "a domain needs at least one eval lane")
	}
	seen := map[string]bool{}
	for j, l := range dom.EvalLanes {
		where := fmt.Sprintf("%s.eval_lanes[%d]", at, j)
		if err := ValidSubjectID(l.Lane); err != nil {
			ps.add(where+".lane", "", CodeBadID, "lane id: %v", err)
		}
		if seen[l.Lane] {
			ps.add(where+".lane", "", CodeDuplicateID, "lane %q given twice", l.Lane)
		}
		seen[l.Lane] = true
		if err := ValidSubjectID(l.Version); err != nil {
			ps.add(where+".version", "", CodeBadID, "lane version: %v", err)
		}
		got := slices.Clone(l.Splits)
		slices.Sort(got)
		want := Splits()
		slices.Sort(want)
		if !slices.Equal(got, want) {
			ps.add(where+".splits", "", CodeBadSplit, "splits %v must be exactly public, holdout and dev", l.Splits)
		}
	}
}
