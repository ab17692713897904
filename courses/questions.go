package courses

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"formation/artifact"
	"formation/canon"
	"formation/relparse"
)

// Question kinds.
const (
	KindDefinition   = "definition"    // "What is X?": expect term + definition
	KindRelation     = "relation"      // one triple: expect head, relation, tail
	KindWalk         = "walk"          // a chain of triples, each tail the next head
	KindUnknown      = "unknown"       // in the domain but not taught: expect a refusal
	KindFalsePremise = "false_premise" // rests on a counter-claim: expect a refusal naming it
	KindOffDomain    = "off_domain"    // outside the domain: expect a refusal
)

// Splits are the question files of a subject, in this order.
func Splits() []string { return []string{"public", "holdout", "dev"} }

// MaxQuestionFileBytes bounds one questions/<split>.jsonl file.
const MaxQuestionFileBytes = 4 << 20

// Question is one line of questions/<split>.jsonl.
type Question struct {
	ID       string `json:"id"`
	Question string `json:"question"`
	Kind     string `json:"kind"`
	Expect   Expect `json:"expect"`
}

// Expect is what a correct answer to a question shows. Which fields are set
// depends on the kind (README.md has the table); the others must be absent.
type Expect struct {
	Term       string            `json:"term,omitempty"`
	Definition string            `json:"definition,omitempty"`
	Head       string            `json:"head,omitempty"`
	Relation   string            `json:"relation,omitempty"`
	Tail       string            `json:"tail,omitempty"`
	Chain      []artifact.Triple `json:"chain,omitempty"`
	Counter    *artifact.Triple  `json:"counter,omitempty"`
	Refuse     bool              `json:"refuse,omitempty"`
}

// QuestionSet holds the three splits of one subject.
type QuestionSet struct {
	Public  []Question
	Holdout []Question
	Dev     []Question
}

// LoadQuestions reads questions/{public,holdout,dev}.jsonl of the subject
// folder dir. Ids must be unique across all three splits and no question
// text may appear in two splits: a holdout question that is also public
// measures nothing.
func LoadQuestions(ctx context.Context, dir string) (*QuestionSet, error) {
	var qs QuestionSet
	dst := []*[]Question{&qs.Public, &qs.Holdout, &qs.Dev}
	var ps problems
	ids := map[string]string{}
	texts := map[string]string{}
	for i, split := range Splits() {
		name := "questions/" + split + ".jsonl"
		data, err := readLimited(ctx, filepath.Join(dir, "questions", split+".jsonl"), name, MaxQuestionFileBytes)
		if err != nil {
			return nil, err
		}
		list, err := ParseQuestions(data, name)
		if err != nil {
			return nil, err
		}
		for _, q := range list {
			if prev, dup := ids[q.ID]; dup {
				ps.add(name, q.ID, CodeDuplicateID, "question id %q also in %s", q.ID, prev)
			}
			ids[q.ID] = name
			norm := strings.ToLower(strings.Join(strings.Fields(q.Question), " "))
			if prev, dup := texts[norm]; dup && prev != name {
				ps.add(name, q.ID, CodeDuplicateID, "question text also in %s", prev)
			}
			texts[norm] = name
		}
		*dst[i] = list
	}
	if err := ps.err("questions/"); err != nil {
		return nil, err
	}
	return &qs, nil
}

// ParseQuestions decodes one JSONL file: one canonical-JSON-compatible
// object per line, "\n" line ends, no blank lines, unique ids.
func ParseQuestions(data []byte, name string) ([]Question, error) {
	var ps problems
	var out []Question
	seen := map[string]int{}
	if len(data) > 0 && data[len(data)-1] == '\n' {
		data = data[:len(data)-1]
	}
	if len(data) == 0 {
		return nil, (&problems{{Field: name, Code: CodeMissing, Detail: "no questions"}}).err(name)
	}
	for i, line := range bytes.Split(data, []byte{'\n'}) {
		at := fmt.Sprintf("line %d", i+1)
		var q Question
		if err := canon.Unmarshal(line, &q); err != nil {
			ps.add(at, "", CodeSchema, "%v", err)
			continue
		}
		if first, dup := seen[q.ID]; dup {
			ps.add(at, q.ID, CodeDuplicateID, "id %q already on line %d", q.ID, first)
		}
		seen[q.ID] = i + 1
		q.validate(&ps, at)
		out = append(out, q)
	}
	if err := ps.err(name); err != nil {
		return nil, err
	}
	return out, nil
}

func (q Question) validate(ps *problems, at string) {
	if err := ValidSubjectID(q.ID); err != nil {
		ps.add(at+".id", q.ID, CodeBadID, "question id: %v", err)
	}
	if strings.TrimSpace(q.Question) == "" || !printable(q.Question) {
		ps.add(at+".question", q.ID, CodeBadText, "question must be non-blank printable text")
	}
	e := q.Expect
	bad := func(format string, args ...any) { ps.add(at+".expect", q.ID, CodeBadExpect, format, args...) }
	hasTriple := e.Head != "" || e.Relation != "" || e.Tail != ""
	switch q.Kind {
	case KindDefinition:
		if e.Term == "" || e.Definition == "" || hasTriple || e.Chain != nil || e.Counter != nil || e.Refuse {
			bad("definition wants exactly term and definition")
		}
	case KindRelation:
		if e.Term != "" || e.Definition != "" || e.Chain != nil || e.Counter != nil || e.Refuse {
			bad("relation wants exactly head, relation and tail")
		}
		checkTriple(ps, at+".expect", q.ID, artifact.Triple{Head: e.Head, Relation: e.Relation, Tail: e.Tail})
	case KindWalk:
		if e.Term != "" || e.Definition != "" || hasTriple || e.Counter != nil || e.Refuse || len(e.Chain) < 2 {
			bad("walk wants exactly a chain of at least two triples")
		}
		for j, t := range e.Chain {
			checkTriple(ps, fmt.Sprintf("%s.expect.chain[%d]", at, j), q.ID, t)
			if j > 0 && e.Chain[j-1].Tail != t.Head {
				bad("chain[%d] starts at %q, not at the previous tail %q", j, t.Head, e.Chain[j-1].Tail)
			}
		}
	case KindUnknown, KindOffDomain:
		if !e.Refuse || e.Term != "" || e.Definition != "" || hasTriple || e.Chain != nil || e.Counter != nil {
			bad("%s wants exactly refuse: true", q.Kind)
		}
	case KindFalsePremise:
		if !e.Refuse || e.Counter == nil || e.Term != "" || e.Definition != "" || hasTriple || e.Chain != nil {
			bad("false_premise wants exactly refuse: true and the counter it rests on")
		}
		if e.Counter != nil {
			checkTriple(ps, at+".expect.counter", q.ID, *e.Counter)
		}
	default:
		ps.add(at+".kind", q.ID, CodeBadKind, "%q is not one of definition, relation, walk, unknown, false_premise, off_domain", q.Kind)
	}
}

// checkTriple wants non-blank sides and a relation of the vocabulary.
func checkTriple(ps *problems, at, id string, t artifact.Triple) {
	if strings.TrimSpace(t.Head) == "" || strings.TrimSpace(t.Tail) == "" {
		ps.add(at, id, CodeBadExpect, "head and tail must be non-blank")
	}
	if !relparse.IsRelation(t.Relation) {
		ps.add(at, id, CodeBadRelation, "%q is not a relation of the vocabulary", t.Relation)
	}
}
