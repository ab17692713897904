package artifact

import (
	"crypto/sha256"
	"encoding/hex"
	"hash"
	"slices"
	"sort"
	"strings"

	"formation/canon"
)

// The original hashes two different projections of a validated set: the
// compose projection (validated_set_sha, carried by courses and reports) and
// the forge projection (the key of its triple cache). Both keep only the four
// original SourceRef fields; quarantined items, states and reasons are out.

type projSource struct {
	SourceSHA   string `json:"source_sha"`
	Span        string `json:"span"`
	Adapter     string `json:"adapter"`
	RetrievedAt string `json:"retrieved_at"`
}

type projConcept struct {
	CanonicalTerm string       `json:"canonical_term"`
	Definition    string       `json:"definition"`
	Sources       []projSource `json:"sources"`
}

type projRelation struct {
	Head     string       `json:"head"`
	Relation string       `json:"relation"`
	Tail     string       `json:"tail"`
	Sources  []projSource `json:"sources"`
}

type projHint struct {
	Before string `json:"before"`
	After  string `json:"after"`
}

// ProjectSources keeps the original four fields, stable-sorted by
// (source_sha, adapter) as the compose projection requires.
func ProjectSources(refs []SourceRef) []projSource {
	out := make([]projSource, len(refs))
	for i, s := range refs {
		out[i] = projSource{s.SourceSHA, s.Span, s.Adapter, s.RetrievedAt}
	}
	slices.SortStableFunc(out, compareProjSource)
	return out
}

// ComposeProjection is the value whose digest is validated_set_sha.
func ComposeProjection(v ValidatedTripleSet) any {
	concepts := make([]projConcept, 0, len(v.Concepts))
	for _, c := range byTerm(v.Concepts) {
		concepts = append(concepts, projConcept{c.CanonicalTerm, c.Definition, ProjectSources(c.Sources)})
	}
	relations := make([]projRelation, 0, len(v.Relations))
	for _, r := range byTriple(v.Relations) {
		relations = append(relations, projRelation{r.Head, r.Relation, r.Tail, ProjectSources(r.Sources)})
	}
	return withDeclared(map[string]any{
		"subject_id":     v.SubjectID,
		"schema_version": v.SchemaVersion,
		"concepts":       concepts,
		"relations":      relations,
		"counters":       sortedTriples(v.Counters),
		"ordering_hints": sortedHints(v.OrderingHints),
	}, v.DeclaredRelations)
}

// ValidatedSetSHA is the digest of the compose projection: the SHA-256 of
// canon.Marshal(ComposeProjection(v)). Compose, run, ratify, promote and
// reviewed each compute it over a whole set, so it writes those canonical
// bytes straight into the hash (keys in byte order, as the encoder sorts
// them) instead of building the projection and encoding it by reflection;
// TestValidatedSetSHAIsCanon holds the two equal.
func ValidatedSetSHA(v ValidatedTripleSet) (string, error) {
	w := newProjWriter()
	w.raw(`{"concepts":[`)
	for i, c := range byTerm(v.Concepts) {
		w.comma(i)
		w.raw(`{"canonical_term":`)
		w.str(c.CanonicalTerm)
		w.raw(`,"definition":`)
		w.str(c.Definition)
		w.raw(`,"sources":`)
		w.sources(c.Sources)
		w.raw(`}`)
	}
	w.raw(`],"counters":[`)
	for i, t := range sortedTriples(v.Counters) {
		w.comma(i)
		w.raw(`{"head":`)
		w.str(t.Head)
		w.raw(`,"relation":`)
		w.str(t.Relation)
		w.raw(`,"tail":`)
		w.str(t.Tail)
		w.raw(`}`)
	}
	w.raw(`]`)
	if len(v.DeclaredRelations) > 0 {
		rels := slices.Clone(v.DeclaredRelations)
		slices.Sort(rels)
		w.raw(`,"declared_relations":[`)
		for i, r := range slices.Compact(rels) {
			w.comma(i)
			w.str(r)
		}
		w.raw(`]`)
	}
	w.raw(`,"ordering_hints":[`)
	for i, h := range sortedHints(v.OrderingHints) {
		w.comma(i)
		w.raw(`{"after":`)
		w.str(h.After)
		w.raw(`,"before":`)
		w.str(h.Before)
		w.raw(`}`)
	}
	w.raw(`],"relations":[`)
	for i, r := range byTriple(v.Relations) {
		w.comma(i)
		w.raw(`{"head":`)
		w.str(r.Head)
		w.raw(`,"relation":`)
		w.str(r.Relation)
		w.raw(`,"sources":`)
		w.sources(r.Sources)
		w.raw(`,"tail":`)
		w.str(r.Tail)
		w.raw(`}`)
	}
	w.raw(`],"schema_version":`)
	w.str(v.SchemaVersion)
	w.raw(`,"subject_id":`)
	w.str(v.SubjectID)
	w.raw(`}`)
	sum, err := w.digest()
	if err != nil {
		// The encoder's own error names where the bad string sits.
		return Digest(ComposeProjection(v))
	}
	return sum, nil
}

// projWriter writes canonical bytes into a hash through the stream writer
// the run record uses, with what a projection needs besides: commas between
// list items, generic values and sorted source lists.
type projWriter struct {
	*streamWriter
	h       hash.Hash
	scratch []projSource
}

func newProjWriter() projWriter {
	h := sha256.New()
	// The hash keeps its own block buffer: the stream writer's pieces go
	// to it without a second buffer's copy.
	return projWriter{streamWriter: newStreamWriterSize(h, 0), h: h}
}

// digest finishes the writing and returns the hash, or the first error
// (only a string that is not UTF-8 stops the writer).
func (w *projWriter) digest() (string, error) {
	if err := w.finish(); err != nil {
		return "", err
	}
	return hex.EncodeToString(w.h.Sum(nil)), nil
}

// value writes the canonical bytes of a generic value.
func (w *projWriter) value(m map[string]any) {
	if w.err != nil {
		return
	}
	w.buf, w.err = canon.AppendMarshal(w.buf, m)
	w.flushIfFull()
}

// sources writes ProjectSources(refs), sorting in a reused buffer.
func (w *projWriter) sources(refs []SourceRef) {
	w.scratch = w.scratch[:0]
	for _, s := range refs {
		w.scratch = append(w.scratch, projSource{s.SourceSHA, s.Span, s.Adapter, s.RetrievedAt})
	}
	slices.SortStableFunc(w.scratch, compareProjSource)
	w.raw(`[`)
	for i := range w.scratch {
		s := &w.scratch[i]
		w.comma(i)
		w.raw(`{"adapter":`)
		w.str(s.Adapter)
		w.raw(`,"retrieved_at":`)
		w.str(s.RetrievedAt)
		w.raw(`,"source_sha":`)
		w.str(s.SourceSHA)
		w.raw(`,"span":`)
		w.str(s.Span)
		w.raw(`}`)
	}
	w.raw(`]`)
}

// compareProjSource is ProjectSources' order: (source_sha, adapter).
func compareProjSource(a, b projSource) int {
	if c := strings.Compare(a.SourceSHA, b.SourceSHA); c != 0 {
		return c
	}
	return strings.Compare(a.Adapter, b.Adapter)
}

type forgeConcept struct {
	CanonicalTerm string   `json:"canonical_term"`
	Definition    string   `json:"definition"`
	SourceSHAs    []string `json:"source_shas"`
}

type forgeRelation struct {
	Head       string   `json:"head"`
	Relation   string   `json:"relation"`
	Tail       string   `json:"tail"`
	SourceSHAs []string `json:"source_shas"`
}

// ForgeProjection is the value whose digest keys the forge's triple cache.
func ForgeProjection(v ValidatedTripleSet) any {
	concepts := make([]forgeConcept, 0, len(v.Concepts))
	for _, c := range byTerm(v.Concepts) {
		concepts = append(concepts, forgeConcept{c.CanonicalTerm, c.Definition, DistinctSHAs(c.Sources)})
	}
	relations := make([]forgeRelation, 0, len(v.Relations))
	for _, r := range byTriple(v.Relations) {
		relations = append(relations, forgeRelation{r.Head, r.Relation, r.Tail, DistinctSHAs(r.Sources)})
	}
	return withDeclared(map[string]any{
		"subject_id":     v.SubjectID,
		"schema_version": v.SchemaVersion,
		"concepts":       concepts,
		"relations":      relations,
		"counters":       sortedTriples(v.Counters),
		"ordering_hints": sortedHints(v.OrderingHints),
	}, v.DeclaredRelations)
}

// withDeclared adds a set's declared relations to a projection, sorted and
// only when there are some: two sets that differ in their vocabulary are
// different sets, while a set without a declaration keeps the original's
// projection and digest.
func withDeclared(p map[string]any, declared []string) map[string]any {
	if len(declared) > 0 {
		rels := slices.Clone(declared)
		slices.Sort(rels)
		p["declared_relations"] = slices.Compact(rels)
	}
	return p
}

// byTerm points at the concepts of cs stable-sorted by canonical term (ties
// keep input order, as the original's Python sort did). Sorting pointers
// moves 8 bytes a swap instead of a whole candidate.
func byTerm(cs []ConceptCandidate) []*ConceptCandidate {
	out := make([]*ConceptCandidate, len(cs))
	for i := range cs {
		out[i] = &cs[i]
	}
	slices.SortStableFunc(out, func(a, b *ConceptCandidate) int { return strings.Compare(a.CanonicalTerm, b.CanonicalTerm) })
	return out
}

// byTriple points at the relations of rs stable-sorted by (head, relation,
// tail).
func byTriple(rs []RelationCandidate) []*RelationCandidate {
	out := make([]*RelationCandidate, len(rs))
	for i := range rs {
		out[i] = &rs[i]
	}
	slices.SortStableFunc(out, func(a, b *RelationCandidate) int { return compareTriples(a, b) })
	return out
}

// compareTriples orders relations by (head, relation, tail), as Triple.Less
// does.
func compareTriples(a, b *RelationCandidate) int {
	if c := strings.Compare(a.Head, b.Head); c != 0 {
		return c
	}
	if c := strings.Compare(a.Relation, b.Relation); c != 0 {
		return c
	}
	return strings.Compare(a.Tail, b.Tail)
}

// DistinctSHAs returns the sorted distinct source digests of refs.
func DistinctSHAs(refs []SourceRef) []string {
	out := make([]string, 0, len(refs))
	for _, s := range refs {
		out = append(out, s.SourceSHA)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

func sortedTriples(cs []RelationCandidate) []Triple {
	out := make([]Triple, len(cs))
	for i, c := range cs {
		out[i] = c.Triple()
	}
	sort.SliceStable(out, func(a, b int) bool { return out[a].Less(out[b]) })
	return out
}

func sortedHints(hs []OrderingHint) []projHint {
	out := make([]projHint, len(hs))
	for i, h := range hs {
		out[i] = projHint{h.Before, h.After}
	}
	sort.SliceStable(out, func(a, b int) bool {
		if out[a].Before != out[b].Before {
			return out[a].Before < out[b].Before
		}
		return out[a].After < out[b].After
	})
	return out
}

// SpacedRelation writes a relation name the way prose does ("belongs_to" →
// "belongs to").
func SpacedRelation(rel string) string { return strings.ReplaceAll(rel, "_", " ") }
