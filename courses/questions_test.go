package courses

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestParseQuestions(t *testing.T) {
	good := strings.Join([]string{
		`{"id":"q1","question":"What is refraction?","kind":"definition","expect":{"term":"refraction","definition":"the bending of light"}}`,
		`{"id":"q2","question":"What does a prism produce?","kind":"relation","expect":{"head":"prism","relation":"produces","tail":"spectrum"}}`,
		`{"id":"q3","question":"How does heat lead to light?","kind":"walk","expect":{"chain":[{"head":"heat","relation":"causes","tail":"glow"},{"head":"glow","relation":"produces","tail":"light"}]}}`,
		`{"id":"q4","question":"What is the mass of a photon in grams?","kind":"unknown","expect":{"refuse":true}}`,
		`{"id":"q5","question":"Why is the lens flat?","kind":"false_premise","expect":{"refuse":true,"counter":{"head":"lens","relation":"is","tail":"flat"}}}`,
		`{"id":"q6","question":"Who won the cup final?","kind":"off_domain","expect":{"refuse":true}}`,
	}, "\n") + "\n"
	qs, err := ParseQuestions([]byte(good), "public.jsonl")
	if err != nil {
		t.Fatalf("ParseQuestions: %v", err)
	}
	if len(qs) != 6 || qs[2].Expect.Chain[1].Tail != "light" || qs[4].Expect.Counter.Tail != "flat" {
		t.Fatalf("decoded %+v", qs)
	}

	bad := map[string]string{
		`{"id":"q1","question":"x","kind":"definition","expect":{"term":"a"}}`:                                                                                 CodeBadExpect,
		`{"id":"q1","question":"x","kind":"relation","expect":{"head":"a","relation":"orbits","tail":"b"}}`:                                                    CodeBadRelation,
		`{"id":"q1","question":"x","kind":"walk","expect":{"chain":[{"head":"a","relation":"is","tail":"b"},{"head":"c","relation":"is","tail":"d"}]}}`:        CodeBadExpect,
		`{"id":"q1","question":"x","kind":"unknown","expect":{}}`:                                                                                              CodeBadExpect,
		`{"id":"q1","question":"x","kind":"false_premise","expect":{"refuse":true}}`:                                                                           CodeBadExpect,
		`{"id":"q1","question":"x","kind":"essay","expect":{"refuse":true}}`:                                                                                   CodeBadKind,
		`{"id":"q1","question":" ","kind":"unknown","expect":{"refuse":true}}`:                                                                                 CodeBadText,
		`{"id":"../q","question":"x","kind":"unknown","expect":{"refuse":true}}`:                                                                               CodeBadID,
		`{"id":"q1","question":"x","kind":"unknown","expect":{"refuse":true},"extra":1}`:                                                                       CodeSchema,
		`{"id":"q1","question":"x","kind":"unknown","expect":{"refuse":true}}` + "\n" + `{"id":"q1","question":"y","kind":"unknown","expect":{"refuse":true}}`: CodeDuplicateID,
		`{"id":"q1","question":"x","kind":"unknown","expect":{"refuse":true}}` + "\n\n":                                                                        CodeSchema,
		`{"id":"q1","question":"x","kind":"relation","expect":{"head":"a","relation":"is","tail":"b","score":0.5}}`:                                            CodeSchema,
		"": CodeMissing,
	}
	for in, code := range bad {
		_, err := ParseQuestions([]byte(in), "x.jsonl")
		var ve *ValidationError
		if !errors.As(err, &ve) || !ve.Has(code) {
			t.Errorf("ParseQuestions(%q) = %v, want %s", in, err, code)
		}
	}
}

func TestLoadQuestionsRefusesLeaks(t *testing.T) {
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "questions"), 0o755); err != nil {
		t.Fatal(err)
	}
	write := func(split, body string) {
		if err := os.WriteFile(filepath.Join(dir, "questions", split+".jsonl"), []byte(body+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("public", `{"id":"p1","question":"Who won the cup?","kind":"off_domain","expect":{"refuse":true}}`)
	write("holdout", `{"id":"h1","question":"Who  won the CUP?","kind":"off_domain","expect":{"refuse":true}}`)
	write("dev", `{"id":"p1","question":"Another one?","kind":"off_domain","expect":{"refuse":true}}`)
	_, err := LoadQuestions(context.Background(), dir)
	var ve *ValidationError
	if !errors.As(err, &ve) || len(ve.Problems) != 2 || !ve.Has(CodeDuplicateID) {
		t.Fatalf("want a repeated id and a repeated question text, got %v", err)
	}
}

const validDomains = `schema_version: "1.0.0"
domains:
  - id: optics
    title: Elementary optics
    subjects: [optics]
    operator_families:
      - family: causal
        relations: [causes, produces, is_caused_by]
      - family: transitive
        relations: [is, belongs_to]
    eval_lanes:
      - lane: optics_qa
        version: v1
        splits: [public, holdout, dev]
`

func TestParseDomains(t *testing.T) {
	d, err := ParseDomains([]byte(validDomains))
	if err != nil {
		t.Fatalf("ParseDomains: %v", err)
	}
	if len(d.Domains) != 1 || d.Domains[0].OperatorFamilies[1].Relations[1] != "belongs_to" {
		t.Fatalf("decoded %+v", d)
	}
	bad := map[string]string{
		strings.Replace(validDomains, "family: causal", "family: magic", 1):                  CodeBadID,
		strings.Replace(validDomains, "[causes, produces", "[causes, orbits", 1):             CodeBadRelation,
		strings.Replace(validDomains, "[public, holdout, dev]", "[public, holdout]", 1):      CodeBadSplit,
		strings.Replace(validDomains, "subjects: [optics]", "subjects: [optics, optics]", 1): CodeDuplicateID,
		strings.Replace(validDomains, "family: transitive", "family: causal", 1):             CodeDuplicateID,
		strings.Replace(validDomains, "title: Elementary optics", "title: \"\"", 1):          CodeMissing,
	}
	for in, code := range bad {
		_, err := ParseDomains([]byte(in))
		var ve *ValidationError
		if !errors.As(err, &ve) || !ve.Has(code) {
			t.Errorf("want %s, got %v", code, err)
		}
	}
}

func TestLoadDomainsChecksSubjects(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, DomainsFile), []byte(validDomains), 0o644); err != nil {
		t.Fatal(err)
	}
	var ve *ValidationError
	if _, err := LoadDomains(context.Background(), dir); !errors.As(err, &ve) || !ve.Has(CodeUnknownSubject) {
		t.Fatalf("a domain naming a missing subject folder is refused: %v", err)
	}
	if err := os.Mkdir(filepath.Join(dir, "optics"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "optics", SubjectFile), []byte(validSubject), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadDomains(context.Background(), dir); err != nil {
		t.Fatalf("LoadDomains: %v", err)
	}
}

// TestShippedCourses loads everything shipped under courses/: domains.yaml
// and, for every subject it names, subject.yaml and the three question
// splits, each split asking every kind of question.
func TestShippedCourses(t *testing.T) {
	ctx := context.Background()
	doms, err := LoadDomains(ctx, ".")
	if err != nil {
		t.Fatalf("domains.yaml: %v", err)
	}
	for _, d := range doms.Domains {
		for _, id := range d.Subjects {
			s, err := Load(ctx, id)
			if err != nil {
				t.Fatalf("%s/subject.yaml: %v", id, err)
			}
			if s.IssuedAt == "" {
				t.Errorf("%s: the shipped subject pins issued_at so that its reports are reproducible", id)
			}
			qs, err := LoadQuestions(ctx, id)
			if err != nil {
				t.Fatalf("%s questions: %v", id, err)
			}
			for split, list := range map[string][]Question{"public": qs.Public, "holdout": qs.Holdout, "dev": qs.Dev} {
				kinds := map[string]int{}
				for _, q := range list {
					kinds[q.Kind]++
				}
				for _, k := range []string{KindDefinition, KindRelation, KindWalk, KindUnknown, KindFalsePremise, KindOffDomain} {
					if kinds[k] == 0 {
						t.Errorf("%s %s has no %s question", id, split, k)
					}
				}
			}
		}
	}
}
