package reviewed

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"formation/artifact"
	"formation/internal/exitcode"
	"formation/runtime/epistemic"
	"formation/runtime/knowledge"
)

// Knowledge is the persisted, reviewed knowledge: the object a state's
// "knowledge" names. Only Commit stores a new one. Records are keyed in
// the runtime's normal forms (text.Term, text.Relation) and sorted by key;
// each keeps the contribution of every course that brought it.
type Knowledge struct {
	SchemaVersion string          `json:"schema_version"`
	Courses       []CourseRecord  `json:"courses"`
	Concepts      []ConceptRecord `json:"concepts"`
	Triples       []TripleRecord  `json:"triples"`
	Counters      []TripleRecord  `json:"counters"`
}

// CourseRecord names a course whose knowledge is applied, and the report
// under which it was promoted. Sorted by course_id. DeclaredRelations are
// the relations its subject declared beyond the original's 17 (the
// validated set's declared_relations), omitted when none, so that records
// and knowledge objects written before them keep their bytes.
type CourseRecord struct {
	CourseID          string   `json:"course_id"`
	SubjectID         string   `json:"subject_id"`
	ReportSHA256      string   `json:"report_sha256"`
	IssuedAt          string   `json:"issued_at"`
	ValidatedSetSHA   string   `json:"validated_set_sha"`
	DeclaredRelations []string `json:"declared_relations,omitempty"`
}

// DeclaredRelations is the union of the relations the applied courses'
// subjects declared, sorted (nil when none): the vocabulary beyond the
// original's 17 that questions about this knowledge may use. It is kept per
// course, so a course that is superseded or withdrawn takes its
// declaration with it.
func (k Knowledge) DeclaredRelations() []string {
	var out []string
	for _, c := range k.Courses {
		out = append(out, c.DeclaredRelations...)
	}
	if len(out) == 0 {
		return nil
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// Contribution is what one course brought to a record: the review of the
// candidate and the sources it cited. Sorted by (course_id, candidate_id).
type Contribution struct {
	CourseID     string               `json:"course_id"`
	ReportSHA256 string               `json:"report_sha256"`
	CandidateID  string               `json:"candidate_id"`
	ReviewHash   string               `json:"review_hash"`
	Sources      []artifact.SourceRef `json:"sources"`
}

// ConceptRecord is one (term, definition) pair; a term with several
// definitions has several records.
type ConceptRecord struct {
	Term            string           `json:"term"`
	Definition      string           `json:"definition"`
	EpistemicStatus epistemic.Status `json:"epistemic_status"`
	Contributions   []Contribution   `json:"contributions"`
}

// TripleRecord is a held triple (status coherent) or a counter-claim
// (status falsified: recorded as false, never load-bearing).
type TripleRecord struct {
	Head            string           `json:"head"`
	Relation        string           `json:"relation"`
	Tail            string           `json:"tail"`
	EpistemicStatus epistemic.Status `json:"epistemic_status"`
	Contributions   []Contribution   `json:"contributions"`
}

// Key is the record's triple.
func (t TripleRecord) Key() artifact.Triple {
	return artifact.Triple{Head: t.Head, Relation: t.Relation, Tail: t.Tail}
}

type conceptKey struct{ term, definition string }

func (c ConceptRecord) key() conceptKey { return conceptKey{c.Term, c.Definition} }

// EmptyKnowledge is the knowledge before the first promotion.
func EmptyKnowledge() Knowledge {
	return Knowledge{SchemaVersion: artifact.SchemaVersion, Courses: []CourseRecord{},
		Concepts: []ConceptRecord{}, Triples: []TripleRecord{}, Counters: []TripleRecord{}}
}

// Change is one course's reviewed knowledge, ready to apply. Each record
// carries that course's contributions only.
type Change struct {
	Course   CourseRecord
	Replaces string // report_sha256 of this course that the change supersedes, or ""
	Concepts []ConceptRecord
	Triples  []TripleRecord
	Counters []TripleRecord
}

// Apply is the one teaching path into reviewed knowledge: it replaces the
// course's earlier contribution (only when superseding that exact report),
// refuses knowledge that contradicts what is already reviewed, and merges the
// rest. It returns the new knowledge and the facts it added and removed;
// changed is false when the course is already applied under this report.
func (k Knowledge) Apply(c Change) (next Knowledge, d Diff, changed bool, err error) {
	if i := slices.IndexFunc(k.Courses, func(r CourseRecord) bool { return r.CourseID == c.Course.CourseID }); i >= 0 {
		switch held := k.Courses[i].ReportSHA256; {
		case held == c.Course.ReportSHA256:
			return k, Diff{Added: []Fact{}, Removed: []Fact{}}, false, nil
		case held != c.Replaces:
			return k, Diff{}, false, refuse(exitcode.Unavailable, ReasonConcurrentChange,
				"course %s is held under report %s while this change supersedes %q; retry", c.Course.CourseID, held, c.Replaces)
		}
	} else if c.Replaces != "" {
		return k, Diff{}, false, refuse(exitcode.Unavailable, ReasonConcurrentChange,
			"course %s left the reviewed knowledge while this change superseded %s; retry", c.Course.CourseID, c.Replaces)
	}
	next = k.without(c.Course.CourseID)
	if err := next.coherent(c); err != nil {
		return k, Diff{}, false, err
	}
	next.merge(c)
	return next, DiffFacts(k, next), true, nil
}

// without drops every contribution of a course, and records left with none.
func (k Knowledge) without(courseID string) Knowledge {
	keep := func(cs []Contribution) []Contribution {
		return slices.DeleteFunc(slices.Clone(cs), func(c Contribution) bool { return c.CourseID == courseID })
	}
	out := EmptyKnowledge()
	for _, r := range k.Courses {
		if r.CourseID != courseID {
			out.Courses = append(out.Courses, r)
		}
	}
	for _, r := range k.Concepts {
		if r.Contributions = keep(r.Contributions); len(r.Contributions) > 0 {
			out.Concepts = append(out.Concepts, r)
		}
	}
	filter := func(rs []TripleRecord) []TripleRecord {
		kept := []TripleRecord{}
		for _, r := range rs {
			if r.Contributions = keep(r.Contributions); len(r.Contributions) > 0 {
				kept = append(kept, r)
			}
		}
		return kept
	}
	out.Triples, out.Counters = filter(k.Triples), filter(k.Counters)
	return out
}

// coherent refuses a change whose triples are reviewed counter-claims, or
// whose counter-claims are reviewed triples (its own included): such a claim
// is contested, never COHERENT.
func (k Knowledge) coherent(c Change) error {
	held, refuted := map[artifact.Triple]bool{}, map[artifact.Triple]bool{}
	for _, t := range k.Triples {
		held[t.Key()] = true
	}
	for _, t := range k.Counters {
		refuted[t.Key()] = true
	}
	for _, t := range c.Triples {
		held[t.Key()] = true
	}
	var clash []string
	for _, t := range c.Triples {
		if refuted[t.Key()] {
			clash = append(clash, fmt.Sprintf("(%s, %s, %s) is a reviewed counter-claim", t.Head, t.Relation, t.Tail))
		}
	}
	for _, t := range c.Counters {
		if held[t.Key()] {
			clash = append(clash, fmt.Sprintf("counter-claim (%s, %s, %s) is a reviewed or promoted triple", t.Head, t.Relation, t.Tail))
		}
	}
	if len(clash) > 0 {
		slices.Sort(clash)
		return refuse(exitcode.Rejected, ReasonIncoherent, "%s", strings.Join(slices.Compact(clash), "; "))
	}
	return nil
}

// merge adds the change's records and course, keeping every list sorted.
func (k *Knowledge) merge(c Change) {
	k.Courses = append(k.Courses, c.Course)
	slices.SortFunc(k.Courses, func(a, b CourseRecord) int { return strings.Compare(a.CourseID, b.CourseID) })
	k.Concepts = mergeRecords(k.Concepts, c.Concepts, ConceptRecord.key, conceptKeyCmp,
		func(r *ConceptRecord) *[]Contribution { return &r.Contributions })
	k.Triples = mergeRecords(k.Triples, c.Triples, TripleRecord.Key, tripleKeyCmp,
		func(r *TripleRecord) *[]Contribution { return &r.Contributions })
	k.Counters = mergeRecords(k.Counters, c.Counters, TripleRecord.Key, tripleKeyCmp,
		func(r *TripleRecord) *[]Contribution { return &r.Contributions })
}

func conceptKeyCmp(a, b conceptKey) int {
	return cmp.Or(strings.Compare(a.term, b.term), strings.Compare(a.definition, b.definition))
}

func tripleKeyCmp(a, b artifact.Triple) int {
	return cmp.Or(strings.Compare(a.Head, b.Head), strings.Compare(a.Relation, b.Relation), strings.Compare(a.Tail, b.Tail))
}

// mergeRecords unites records of equal key (their contributions joined) and
// returns them sorted by key, each with sorted contributions.
func mergeRecords[R any, K comparable](have, add []R, key func(R) K, cmpKey func(a, b K) int, contribs func(*R) *[]Contribution) []R {
	out := slices.Clone(have)
	at := map[K]int{}
	for i, r := range out {
		at[key(r)] = i
	}
	for _, r := range add {
		if i, ok := at[key(r)]; ok {
			*contribs(&out[i]) = append(slices.Clone(*contribs(&out[i])), *contribs(&r)...)
			continue
		}
		at[key(r)] = len(out)
		out = append(out, r)
	}
	for i := range out {
		*contribs(&out[i]) = NormaliseContributions(*contribs(&out[i]))
	}
	slices.SortFunc(out, func(a, b R) int { return cmpKey(key(a), key(b)) })
	return out
}

// NormaliseContributions sorts contributions and merges those of one
// candidate (the same text cited twice in a set), uniting their sources.
func NormaliseContributions(cs []Contribution) []Contribution {
	slices.SortFunc(cs, func(a, b Contribution) int {
		return cmp.Or(strings.Compare(a.CourseID, b.CourseID), strings.Compare(a.CandidateID, b.CandidateID))
	})
	var out []Contribution
	for _, c := range cs {
		if n := len(out); n > 0 && out[n-1].CourseID == c.CourseID && out[n-1].CandidateID == c.CandidateID {
			out[n-1].Sources = append(out[n-1].Sources, c.Sources...)
			continue
		}
		c.Sources = slices.Clone(c.Sources)
		out = append(out, c)
	}
	for i := range out {
		out[i].Sources = SortSources(out[i].Sources)
	}
	return out
}

// SortSources orders citations by (source_sha, span, adapter,
// retrieved_at, text_sha, start, end, extractor) and drops exact duplicates,
// so that the stored order never depends on input order.
func SortSources(refs []artifact.SourceRef) []artifact.SourceRef {
	out := slices.Clone(refs)
	slices.SortFunc(out, compareSources)
	return slices.CompactFunc(out, func(a, b artifact.SourceRef) bool { return compareSources(a, b) == 0 })
}

func compareSources(a, b artifact.SourceRef) int {
	return cmp.Or(strings.Compare(a.SourceSHA, b.SourceSHA), strings.Compare(a.Span, b.Span),
		strings.Compare(a.Adapter, b.Adapter), strings.Compare(a.RetrievedAt, b.RetrievedAt),
		strings.Compare(a.TextSHA, b.TextSHA), compareOffset(a.Start, b.Start), compareOffset(a.End, b.End),
		strings.Compare(a.Extractor, b.Extractor))
}

// compareOffset orders an absent offset before any present one.
func compareOffset(a, b *int64) int {
	switch {
	case a == nil && b == nil:
		return 0
	case a == nil:
		return -1
	case b == nil:
		return 1
	}
	return cmp.Compare(*a, *b)
}

// Index builds the runtime's read-only knowledge index from the reviewed
// store: concepts and triples coherent, counter-claims as counters, every
// contribution's sources as citations, and the courses' declared relations
// in its vocabulary (so `ask` reads them).
func (k Knowledge) Index() (*knowledge.Knowledge, error) {
	concepts := make([]knowledge.Concept, 0, len(k.Concepts))
	for _, c := range k.Concepts {
		concepts = append(concepts, knowledge.Concept{Term: c.Term, Definition: c.Definition,
			Sources: citations(c.Contributions), Status: c.EpistemicStatus})
	}
	triples := func(rs []TripleRecord) []knowledge.Triple {
		out := make([]knowledge.Triple, 0, len(rs))
		for _, t := range rs {
			out = append(out, knowledge.Triple{Head: t.Head, Relation: t.Relation, Tail: t.Tail,
				Sources: citations(t.Contributions), Status: t.EpistemicStatus})
		}
		return out
	}
	idx, err := knowledge.NewKnowledge(concepts, triples(k.Triples), triples(k.Counters)...)
	if err != nil {
		return nil, fmt.Errorf("reviewed: knowledge index: %w", err)
	}
	return idx.WithRelations(k.DeclaredRelations()...), nil
}

func citations(cs []Contribution) []knowledge.Citation {
	var out []knowledge.Citation
	for _, c := range cs {
		for _, s := range c.Sources {
			ci := knowledge.Citation{SourceSHA: s.SourceSHA, Span: s.Span, Adapter: s.Adapter,
				RetrievedAt: s.RetrievedAt, TextSHA: s.TextSHA}
			if s.Start != nil {
				ci.Start = int(*s.Start)
			}
			if s.End != nil {
				ci.End = int(*s.End)
			}
			out = append(out, ci)
		}
	}
	return out
}
