// Package reach knows, for every kind of artifact the store holds, which
// other objects it names: the reachability walk that garbage collection
// keeps and that `formation show` names kinds with.
//
// Each kind has its own walk, written against its type, and decodes strictly:
// an object that does not decode as the kind it was reached as is an error,
// never a silently empty list, so that gc stops rather than deleting what an
// undecodable object named. Where a walk meets a digest whose kind the
// position does not fix (a cache record's inputs, a ref outside the known
// namespaces), Sniff decides the kind by decoding.
//
// Fields that are not object digests are left alone: a report's
// report_sha256 (its seal) and plan_sha256, trace hashes, question-set
// hashes. A validated_set_sha is a compose projection, not an object: it
// names the lookup ref index/validated/<validated_set_sha>, which leads to
// the validated set's object.
package reach

import (
	"encoding/base64"
	"errors"
	"fmt"

	"formation/artifact"
	"formation/canon"
	"formation/eval"
	"formation/ident"
	"formation/reviewed"
	"formation/signing"
	"formation/teaching"
)

// Kind names a kind of stored object.
type Kind string

// The kinds.
const (
	OreBundle     Kind = "ore_bundle"             // mine's output
	SmeltedBundle Kind = "smelted_bundle"         // smelt's output
	ValidatedSet  Kind = "validated_triple_set"   // forge's output
	Course        Kind = "course"                 // compose's output
	CourseYAML    Kind = "course_yaml"            // the course text a Course names
	Plan          Kind = "formation_plan"         // the compiled course a RunRecord names
	RunRecord     Kind = "run_record"             // run's output
	TurnEvents    Kind = "turn_events"            // the TurnEvents of a run, one array per pass
	Report        Kind = "mastery_report"         // ratify's output
	State         Kind = "reviewed_state"         // one state of knowledge/state's chain
	Knowledge     Kind = "reviewed_knowledge"     // the reviewed knowledge a state names
	Index         Kind = "mastered_courses_index" // the index a state names
	Envelope      Kind = "promotion_envelope"     // a signed promotion a state names
	LaneResult    Kind = "lane_result"            // an evaluation lane's result
	Proposal      Kind = "teaching_proposal"      // a teaching proposal or its decided copy
	Source        Kind = "source"                 // mined bytes or extracted text
	Unknown       Kind = ""                       // decided by Sniff
)

// Edge is an object to keep and the kind it was reached as.
type Edge struct {
	Digest string
	Kind   Kind
}

// Names is what one object names: objects, and validated_set_sha values
// whose lookup refs lead to more.
type Names struct {
	Objects   []Edge
	Validated []string
}

func (n *Names) add(d string, k Kind) {
	if ident.ValidDigest(d) {
		n.Objects = append(n.Objects, Edge{Digest: d, Kind: k})
	}
}

func (n *Names) lookup(sha string) {
	if ident.ValidDigest(sha) {
		n.Validated = append(n.Validated, sha)
	}
}

// Of decodes raw as kind and returns what it names. Leaf kinds (sources,
// course YAML, TurnEvents) name nothing and are not decoded. Unknown is
// sniffed first.
func Of(kind Kind, raw []byte) (Kind, Names, error) {
	if kind == Unknown {
		kind = Sniff(raw)
	}
	walk := walkOf(kind)
	if walk == nil {
		return kind, Names{}, nil
	}
	var n Names
	if err := walk(raw, &n); err != nil {
		return kind, Names{}, fmt.Errorf("reach: %s: %w", kind, err)
	}
	return kind, n, nil
}

// walkOf returns the walk of a kind that names other objects, or nil.
func walkOf(kind Kind) func([]byte, *Names) error {
	switch kind {
	case OreBundle:
		return walkOre
	case SmeltedBundle:
		return walkSmelted
	case ValidatedSet:
		return walkValidated
	case Course:
		return walkCourse
	case Plan:
		return walkPlan
	case RunRecord:
		return walkRun
	case Report:
		return walkReport
	case State:
		return walkState
	case Knowledge:
		return walkKnowledge
	case Index:
		return walkIndex
	case Envelope:
		return walkEnvelope
	case LaneResult:
		return walkLane
	case Proposal:
		return walkProposal
	}
	return nil
}

func decode[T any](raw []byte) (T, error) { return artifact.Decode[T](raw) }

func walkOre(raw []byte, n *Names) error {
	b, err := decode[artifact.OreBundle](raw)
	for _, e := range b.Entries {
		n.add(e.SourceSHA, Source)
		n.add(e.TextSHA, Source)
		n.add(e.PromptSHA, Source) // the prompt an LLM-generated entry answered, stored by mine
	}
	return err
}

func sources(n *Names, refs []artifact.SourceRef) {
	for _, r := range refs {
		n.add(r.SourceSHA, Source)
		n.add(r.TextSHA, Source)
	}
}

func candidates(n *Names, concepts []artifact.ConceptCandidate, rels ...[]artifact.RelationCandidate) {
	for _, c := range concepts {
		sources(n, c.Sources)
	}
	for _, rs := range rels {
		for _, r := range rs {
			sources(n, r.Sources)
		}
	}
}

func hints(n *Names, hs []artifact.OrderingHint) {
	for _, h := range hs {
		sources(n, h.Sources)
	}
}

func walkSmelted(raw []byte, n *Names) error {
	b, err := decode[artifact.SmeltedBundle](raw)
	candidates(n, b.Concepts, b.Relations, b.Counters)
	hints(n, b.OrderingHints)
	return err
}

func walkValidated(raw []byte, n *Names) error {
	v, err := decode[artifact.ValidatedTripleSet](raw)
	candidates(n, v.Concepts, v.Relations, v.Counters, v.Quarantined)
	hints(n, v.OrderingHints)
	return err
}

func walkCourse(raw []byte, n *Names) error {
	c, err := decode[artifact.Course](raw)
	n.add(c.CourseSHA256, CourseYAML)
	n.add(c.SourceBundleSHA, OreBundle)
	n.add(c.ValidatedSetObject, ValidatedSet)
	n.lookup(c.ValidatedSetSHA)
	return err
}

func walkPlan(raw []byte, n *Names) error {
	p, err := decode[artifact.FormationPlan](raw)
	n.add(p.CourseSHA256, CourseYAML)
	return err
}

func walkRun(raw []byte, n *Names) error {
	r, err := decode[artifact.RunRecord](raw)
	n.add(r.CourseObject, Course)
	n.add(r.CourseSHA256, CourseYAML)
	n.add(r.PlanObject, Plan)
	n.add(r.EventsObject, TurnEvents)
	return err
}

func walkReport(raw []byte, n *Names) error {
	r, err := decode[artifact.MasteryReport](raw)
	n.add(r.SourceBundleSHA, OreBundle)
	n.add(r.CourseSHA256, CourseYAML)
	n.lookup(r.ValidatedSetSHA)
	return err
}

func walkState(raw []byte, n *Names) error {
	s, err := decode[reviewed.State](raw)
	n.add(s.Previous.String(), State)
	n.add(s.Knowledge.String(), Knowledge)
	n.add(s.Index.String(), Index)
	for _, env := range s.Promotions {
		n.add(env.String(), Envelope)
	}
	return err
}

func walkKnowledge(raw []byte, n *Names) error {
	k, err := decode[reviewed.Knowledge](raw)
	for _, c := range k.Courses {
		n.lookup(c.ValidatedSetSHA)
	}
	contributions := func(cs []reviewed.Contribution) {
		for _, c := range cs {
			sources(n, c.Sources)
		}
	}
	for _, c := range k.Concepts {
		contributions(c.Contributions)
	}
	for _, ts := range [][]reviewed.TripleRecord{k.Triples, k.Counters} {
		for _, t := range ts {
			contributions(t.Contributions)
		}
	}
	return err
}

func walkIndex(raw []byte, n *Names) error {
	idx, err := decode[artifact.MasteredCoursesIndex](raw)
	for _, e := range idx.Entries {
		n.add(e.CourseSHA256, CourseYAML)
		n.lookup(e.ValidatedSetSHA)
	}
	return err
}

// walkEnvelope reads the promotion statement inside a signed envelope
// (signatures are the business of promote and the ledger, not of gc).
func walkEnvelope(raw []byte, n *Names) error {
	env, err := decode[signing.Envelope](raw)
	if err != nil {
		return err
	}
	payload, err := base64.StdEncoding.Strict().DecodeString(env.Payload)
	if err != nil {
		return fmt.Errorf("payload: %w", err)
	}
	st, err := decode[reviewed.Statement](payload)
	if err != nil {
		return err
	}
	n.add(st.Predicate.ReportObject, Report)
	n.add(st.Predicate.CourseSHA256, CourseYAML)
	n.lookup(st.Predicate.ValidatedSetSHA)
	return nil
}

func walkLane(raw []byte, n *Names) error {
	r, err := decode[eval.LaneResult](raw)
	n.add(r.ReviewedSHA, Knowledge)
	return err
}

// walkProposal keeps the original proposal a decided copy derives from,
// while that copy still carries the user's words: review and the proposals
// mining adapter read the original by its id. A pruned copy names nothing,
// so that gc can drop the words (an accepted proposal a subject has mined
// stays as that subject's source).
func walkProposal(raw []byte, n *Names) error {
	p, err := teaching.Decode(raw)
	if err == nil && p.PrunedAt == "" {
		n.add(p.Proposal, Proposal)
	}
	return err
}

func fitsProposal(raw []byte) bool {
	_, err := teaching.Decode(raw)
	return err == nil
}

type sniffer struct {
	kind Kind
	fits func([]byte) bool
}

// sniffers lists the JSON kinds Sniff tries. Strict decoding refuses
// unknown and missing fields, so at most one of them fits a document.
func sniffers() []sniffer {
	return []sniffer{
		{OreBundle, fits[artifact.OreBundle]},
		{SmeltedBundle, fits[artifact.SmeltedBundle]},
		{ValidatedSet, fits[artifact.ValidatedTripleSet]},
		{Course, fits[artifact.Course]},
		{Plan, fits[artifact.FormationPlan]},
		{RunRecord, fits[artifact.RunRecord]},
		{Report, fits[artifact.MasteryReport]},
		{State, fits[reviewed.State]},
		{Knowledge, fits[reviewed.Knowledge]},
		{Index, fits[artifact.MasteredCoursesIndex]},
		{Envelope, fits[signing.Envelope]},
		{LaneResult, fits[eval.LaneResult]},
		{Proposal, fitsProposal},
	}
}

func fits[T any](raw []byte) bool {
	_, err := artifact.Decode[T](raw)
	return err == nil
}

// Sniff names the kind of a stored object by decoding it: one of the JSON
// kinds above, TurnEvents for a run's event arrays, else Unknown (bytes the
// store does not interpret: a source, a course's YAML, a subject file).
func Sniff(raw []byte) Kind {
	if len(raw) == 0 || raw[0] != '{' && raw[0] != '[' {
		return Unknown
	}
	for _, s := range sniffers() {
		if s.fits(raw) {
			return s.kind
		}
	}
	if isEvents(raw) {
		return TurnEvents
	}
	return Unknown
}

// isEvents recognises a run's events object: an array (one per pass) of
// arrays of TurnEvents (or null for a step without a turn).
func isEvents(raw []byte) bool {
	doc, err := canon.Decode(raw)
	passes, ok := doc.([]any)
	if err != nil || !ok || len(passes) == 0 {
		return false
	}
	for _, p := range passes {
		steps, ok := p.([]any)
		if !ok {
			return false
		}
		for _, s := range steps {
			if s == nil {
				continue
			}
			obj, ok := s.(*canon.Object)
			if !ok {
				return false
			}
			if _, ok := obj.String("trace_hash"); !ok {
				return false
			}
		}
	}
	return true
}

// ErrNotDigest is a ref value that should hold a digest and does not.
var ErrNotDigest = errors.New("reach: not a digest")
