package packs

import (
	"fmt"
	"sort"
	"strings"
	"sync"
)

// SafetyContext is the evidence one turn offers to SafetyCheck, as plain
// values. Every piece is optional: a predicate whose evidence was not supplied
// reports its boundary upheld but not runtime-checkable, because absence of
// evidence is not evidence of violation — and says so in its reason.
type SafetyContext struct {
	// HasFieldState says VersorCondition was measured; it is the versor
	// condition of the committed field state of the turn.
	HasFieldState   bool
	VersorCondition float64

	// HasAllowlist says AllowedSourceSHAs was supplied. A supplied empty
	// allowlist allows nothing: any citation then counts as fabricated.
	HasAllowlist      bool
	AllowedSourceSHAs []string
	CitedSourceSHAs   []string // the source digests the turn's answer cites

	// HasRefusalEvidence says LastRefusalWasTyped was supplied. The runtime
	// sets LastRefusalWasTyped false whenever a fallback or disclosure
	// replaced an error instead of surfacing it as a typed refusal.
	HasRefusalEvidence  bool
	LastRefusalWasTyped bool

	// IdentityHashBefore and IdentityHashAfter are the manifold's Hash taken
	// as loaded and again after the turn; "" means not supplied.
	IdentityHashBefore string
	IdentityHashAfter  string
}

// Evidence is one named fact a predicate relied on.
type Evidence struct {
	Key   string `json:"key"`
	Value string `json:"value"`
}

// SafetyCheckResult is the judgement on one boundary.
type SafetyCheckResult struct {
	BoundaryID       string     `json:"boundary_id"`
	Upheld           bool       `json:"upheld"`
	Reason           string     `json:"reason"`
	RuntimeCheckable bool       `json:"runtime_checkable"`
	Evidence         []Evidence `json:"evidence"`
}

// SafetyVerdict is the judgement on every boundary of a pack or manifold.
type SafetyVerdict struct {
	PackID                string              `json:"pack_id"`
	Upheld                bool                `json:"upheld"`   // no boundary violated
	Violated              []string            `json:"violated"` // sorted ids of violated boundaries
	RuntimeCheckableCount int                 `json:"runtime_checkable_count"`
	Results               []SafetyCheckResult `json:"results"` // in boundary-id order
}

// RefusalPrefix begins the refusal surface of a violated verdict.
const RefusalPrefix = "I cannot proceed — boundary violated: "

// RefusalSurface is the user-facing refusal for a violated verdict, naming
// each violated boundary as safety:<id>; it is "" when the verdict is upheld.
func (v SafetyVerdict) RefusalSurface() string {
	if v.Upheld {
		return ""
	}
	labels := make([]string, len(v.Violated))
	for i, id := range v.Violated {
		labels[i] = "safety:" + id
	}
	return RefusalPrefix + strings.Join(labels, ", ")
}

// Predicate judges one boundary from a turn's evidence. The BoundaryID it
// returns is overwritten with the id it was registered under.
type Predicate func(evidence SafetyContext) SafetyCheckResult

// SafetyCheck evaluates boundaries. The zero value is ready to use and
// carries the default predicates of the five v1 boundaries; Register adds or
// replaces predicates on this instance only. It is safe for concurrent use.
type SafetyCheck struct {
	mu     sync.RWMutex
	custom map[string]Predicate
}

// NewSafetyCheck returns a check with the default predicates.
func NewSafetyCheck() *SafetyCheck { return &SafetyCheck{} }

// Register installs p for boundaryID, replacing any earlier or default one.
func (c *SafetyCheck) Register(boundaryID string, p Predicate) error {
	if boundaryID == "" {
		return fmt.Errorf("packs: register predicate: empty boundary id")
	}
	if p == nil {
		return fmt.Errorf("packs: register predicate for %q: nil predicate", boundaryID)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.custom == nil {
		c.custom = map[string]Predicate{}
	}
	c.custom[boundaryID] = p
	return nil
}

// Check judges every boundary of the safety pack.
func (c *SafetyCheck) Check(evidence SafetyContext, pack *SafetyPack) (SafetyVerdict, error) {
	if pack == nil {
		return SafetyVerdict{}, &SafetyPackError{Reason: ReasonPackMissing, Detail: "safety check: no safety pack loaded"}
	}
	return c.CheckBoundaries(evidence, pack.PackID, pack.BoundaryIDs), nil
}

// CheckManifold judges every boundary of the manifold: the safety pack's and
// those the identity pack adds. The verdict carries the safety pack's id.
func (c *SafetyCheck) CheckManifold(evidence SafetyContext, m *Manifold) (SafetyVerdict, error) {
	if m == nil {
		return SafetyVerdict{}, &SafetyPackError{Reason: ReasonPackMissing, Detail: "safety check: no manifold composed"}
	}
	return c.CheckBoundaries(evidence, m.SafetyPackID(), m.boundaries), nil // sorted and unique, and only read
}

// CheckBoundaries judges the given boundaries (deduplicated, in code-point
// order). A boundary without a predicate is upheld and not runtime-checkable.
func (c *SafetyCheck) CheckBoundaries(evidence SafetyContext, packID string, boundaryIDs []string) SafetyVerdict {
	ids := sortedUnique(boundaryIDs)
	v := SafetyVerdict{PackID: packID, Violated: []string{}, Results: make([]SafetyCheckResult, 0, len(ids))}
	for _, id := range ids {
		r := c.judge(id, evidence)
		if !r.Upheld {
			v.Violated = append(v.Violated, id)
		}
		if r.RuntimeCheckable {
			v.RuntimeCheckableCount++
		}
		v.Results = append(v.Results, r)
	}
	v.Upheld = len(v.Violated) == 0
	return v
}

// judge runs the boundary's predicate and normalises its result: the id is
// the registered one, evidence is never nil, and a violation is always
// runtime-checkable (a predicate that found one did check).
func (c *SafetyCheck) judge(id string, evidence SafetyContext) SafetyCheckResult {
	p, ok := c.predicate(id)
	if !ok {
		return SafetyCheckResult{BoundaryID: id, Upheld: true, Reason: "no predicate registered for boundary", Evidence: []Evidence{}}
	}
	r := callPredicate(p, evidence)
	r.BoundaryID = id
	if r.Evidence == nil {
		r.Evidence = []Evidence{}
	}
	if !r.Upheld {
		r.RuntimeCheckable = true
	}
	return r
}

// CheckManifoldBrief is CheckManifold without the per-boundary results:
// PackID, Upheld, Violated and RuntimeCheckableCount are CheckManifold's,
// and Results is empty. It is for a caller that keeps only the outcome
// (the run stage, whose events record nothing else); where no predicate
// is registered, the default predicates decide without building a reason
// or evidence, which was most of what checking a turn allocated.
func (c *SafetyCheck) CheckManifoldBrief(evidence SafetyContext, m *Manifold) (SafetyVerdict, error) {
	c.mu.RLock()
	custom := len(c.custom) > 0
	c.mu.RUnlock()
	if m == nil || custom {
		v, err := c.CheckManifold(evidence, m)
		v.Results = []SafetyCheckResult{}
		return v, err
	}
	return briefBoundaries(evidence, m.SafetyPackID(), m.boundaries), nil
}

// briefBoundaries is CheckBoundaries by the default predicates' decisions
// alone, over sorted, distinct ids, with no Results.
func briefBoundaries(evidence SafetyContext, packID string, ids []string) SafetyVerdict {
	v := SafetyVerdict{PackID: packID, Violated: []string{}, Results: []SafetyCheckResult{}}
	for _, id := range ids {
		upheld, checkable, ok := defaultBrief(id, evidence)
		if !ok { // no predicate: upheld, not checkable, as judge says
			upheld, checkable = true, false
		}
		if !upheld {
			v.Violated = append(v.Violated, id)
			checkable = true
		}
		if checkable {
			v.RuntimeCheckableCount++
		}
	}
	v.Upheld = len(v.Violated) == 0
	return v
}

func (c *SafetyCheck) predicate(id string) (Predicate, bool) {
	c.mu.RLock()
	p, ok := c.custom[id]
	c.mu.RUnlock()
	if ok {
		return p, true
	}
	return defaultPredicate(id)
}

// callPredicate fails closed: a predicate that panics has violated its
// boundary rather than taking the turn down or being skipped.
func callPredicate(p Predicate, evidence SafetyContext) (r SafetyCheckResult) {
	defer func() {
		if rec := recover(); rec != nil {
			r = SafetyCheckResult{
				Upheld:           false,
				RuntimeCheckable: true,
				Reason:           fmt.Sprintf("predicate failed: %v", rec),
			}
		}
	}()
	return p(evidence)
}

// sortedUnique returns ids sorted with repeats dropped: ids itself when it
// is already so (callers only read the result), else a sorted copy.
func sortedUnique(ids []string) []string {
	if strictlyIncreasing(ids) {
		return ids
	}
	out := append([]string(nil), ids...)
	sort.Strings(out)
	n := 0
	for i, id := range out {
		if i == 0 || id != out[n-1] {
			out[n] = id
			n++
		}
	}
	return out[:n]
}

// strictlyIncreasing reports ids in code-point order with no repeats.
func strictlyIncreasing(ids []string) bool {
	for i := 1; i < len(ids); i++ {
		if ids[i-1] >= ids[i] {
			return false
		}
	}
	return true
}
