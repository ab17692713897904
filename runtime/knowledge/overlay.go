package knowledge

import (
	"sort"

	"formation/runtime/epistemic"
	"formation/runtime/text"
)

// Claim is a statement a conversation makes: a triple, possibly negated
// ("h does not r t").
type Claim struct {
	Key     Key
	Negated bool
}

// Assertion is a claim the session recorded, with its session status.
type Assertion struct {
	Claim  Claim            `json:"claim"`
	Turn   int              `json:"turn"`
	Status epistemic.Status `json:"epistemic_status"`
}

// Verdict is what the knowledge says about an asserted claim.
type Verdict string

// The verdicts of Overlay.Assess.
const (
	// Held: the claim agrees with a load-bearing record — a held triple for a
	// positive claim, a counter-claim for a negated one.
	Held Verdict = "held"
	// Ungrounded: every term is known but no record holds the claim.
	Ungrounded Verdict = "ungrounded"
	// Contradicted: see the package comment; both sides are now Contested.
	Contradicted Verdict = "contradicted"
	// UnknownTerms: a term of the claim is not in the knowledge at all.
	UnknownTerms Verdict = "unknown_terms"
)

// Assessment is the outcome of asserting a claim in a session.
type Assessment struct {
	Verdict Verdict
	// Record is the knowledge record the verdict rests on: the held triple
	// (or, for a negated claim, the counter-claim) it agrees with, or the
	// triple or counter-claim it contradicts. Zero when none.
	Record    Triple
	HasRecord bool
	// Status is the asserted claim's status in the session afterwards.
	Status epistemic.Status
	// Contested lists the records this assessment moved to Contested.
	Contested []Key
}

// Overlay is one conversation's layer over a shared Knowledge: the claims it
// asserted and the statuses it changed, and, in a teaching session, what it
// learned from its own proposals (Learn). It never writes the Knowledge and
// dies with the conversation. Not safe for concurrent use.
type Overlay struct {
	base       *Knowledge
	triples    map[Key]epistemic.Status // session status of held triples
	counters   map[Key]epistemic.Status // session status of counter-claims
	assertions []Assertion
	byClaim    map[Claim]int
	lessons    lessons // what a teaching session learned from its proposals
}

// NewOverlay starts an empty session layer over k.
func NewOverlay(k *Knowledge) *Overlay {
	// The maps are made at their first write: a run-stage session takes one
	// turn and mostly writes none of them.
	return &Overlay{base: k}
}

// Reset empties the layer, as NewOverlay over the same knowledge would
// give it.
func (o *Overlay) Reset() { *o = Overlay{base: o.base} }

// contest marks k Contested in m, making m if it is not yet.
func contest(m *map[Key]epistemic.Status, k Key) {
	if *m == nil {
		*m = map[Key]epistemic.Status{}
	}
	(*m)[k] = epistemic.Contested
}

// Knowledge is the shared index under the overlay.
func (o *Overlay) Knowledge() *Knowledge { return o.base }

// TripleStatus is the session status of a held triple.
func (o *Overlay) TripleStatus(t Triple) epistemic.Status {
	if s, ok := o.triples[t.Key()]; ok {
		return s
	}
	return t.Status
}

// Assertions lists what the session asserted, in the order asserted.
func (o *Overlay) Assertions() []Assertion { return append([]Assertion(nil), o.assertions...) }

// Assess records an asserted claim and says what the knowledge makes of it.
// Terms and relation may be in any spelling; they are normalised first.
func (o *Overlay) Assess(c Claim, turn int) Assessment {
	c.Key = Key{Head: text.Term(c.Key.Head), Relation: text.Relation(c.Key.Relation), Tail: text.Term(c.Key.Tail)}
	if !o.HasTerm(c.Key.Head) || !o.HasTerm(c.Key.Tail) {
		return Assessment{Verdict: UnknownTerms}
	}
	var a Assessment
	if c.Negated {
		a = o.assessNegated(c)
	} else {
		a = o.assessPositive(c)
	}
	if a.Verdict == Contradicted {
		a.Status = epistemic.Contested
	} else if a.Status == "" {
		a.Status = epistemic.Speculative
	}
	o.record(c, turn, a.Status)
	sort.Slice(a.Contested, func(i, j int) bool { return a.Contested[i].less(a.Contested[j]) })
	return a
}

func (o *Overlay) assessPositive(c Claim) Assessment {
	if counter, ok := o.base.Counter(c.Key); ok {
		contest(&o.counters, c.Key)
		o.opposed(c) // an earlier denial sided with the counter-claim
		return o.contradiction(c, counter)
	}
	if t, ok := o.base.Triple(c.Key); ok {
		t.Status = o.TripleStatus(t)
		if !t.Status.LoadBearing() {
			return Assessment{Verdict: Contradicted, Record: t, HasRecord: true}
		}
		if o.opposed(c) {
			contest(&o.triples, c.Key)
			return o.contradiction(c, t.WithStatus(epistemic.Contested))
		}
		return Assessment{Verdict: Held, Record: t, HasRecord: true}
	}
	if o.opposed(c) {
		return o.contradiction(c, Triple{})
	}
	return Assessment{Verdict: Ungrounded}
}

func (o *Overlay) assessNegated(c Claim) Assessment {
	if t, ok := o.base.Triple(c.Key); ok {
		contest(&o.triples, c.Key)
		o.opposed(c) // an earlier assertion sided with the held triple
		return o.contradiction(c, t.WithStatus(epistemic.Contested))
	}
	if counter, ok := o.base.Counter(c.Key); ok {
		counter.Status = o.counterStatus(counter)
		if o.opposed(c) {
			contest(&o.counters, c.Key)
			return o.contradiction(c, counter.WithStatus(epistemic.Contested))
		}
		return Assessment{Verdict: Held, Record: counter, HasRecord: true}
	}
	if o.opposed(c) {
		return o.contradiction(c, Triple{})
	}
	return Assessment{Verdict: Ungrounded}
}

// CounterStatus is the session status of a counter-claim.
func (o *Overlay) CounterStatus(t Triple) epistemic.Status { return o.counterStatus(t) }

func (o *Overlay) counterStatus(t Triple) epistemic.Status {
	if s, ok := o.counters[t.Key()]; ok {
		return s
	}
	return t.Status
}

// opposed reports whether the session asserted the opposite polarity of c's
// triple earlier; if so that earlier assertion becomes Contested (it is on
// the other side of the contradiction).
func (o *Overlay) opposed(c Claim) bool {
	i, ok := o.byClaim[Claim{Key: c.Key, Negated: !c.Negated}]
	if !ok {
		return false
	}
	o.assertions[i].Status = epistemic.Contested
	return true
}

// contradiction builds the assessment for c contradicting rec (zero when the
// other side is only an earlier assertion of the session).
func (o *Overlay) contradiction(c Claim, rec Triple) Assessment {
	a := Assessment{Verdict: Contradicted, Record: rec, HasRecord: rec.Head != ""}
	if a.HasRecord {
		a.Record.Status = epistemic.Contested
		a.Contested = append(a.Contested, rec.Key())
	}
	if _, earlier := o.byClaim[Claim{Key: c.Key, Negated: !c.Negated}]; earlier && !a.HasRecord {
		a.Contested = append(a.Contested, c.Key)
	}
	return a
}

// record stores the assertion (or updates the status of an earlier identical
// one: repeating a claim does not duplicate it).
func (o *Overlay) record(c Claim, turn int, s epistemic.Status) {
	if i, ok := o.byClaim[c]; ok {
		o.assertions[i].Status = s
		return
	}
	if o.byClaim == nil {
		o.byClaim = map[Claim]int{}
	}
	o.byClaim[c] = len(o.assertions)
	o.assertions = append(o.assertions, Assertion{Claim: c, Turn: turn, Status: s})
}
