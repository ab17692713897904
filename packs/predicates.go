package packs

import (
	"fmt"
	"slices"
	"sort"
	"strconv"

	"formation/runtime/algebra"
)

// The five boundaries of the v1 safety pack, which have default predicates.
const (
	BoundaryNoFabricatedSource    = "no_fabricated_source"
	BoundaryNoHotPathRepair       = "no_hot_path_repair"
	BoundaryNoIdentityOverride    = "no_identity_override"
	BoundaryNoSilentCorrection    = "no_silent_correction"
	BoundaryPreserveVersorClosure = "preserve_versor_closure"
)

func defaultPredicate(id string) (Predicate, bool) {
	switch id {
	case BoundaryPreserveVersorClosure:
		return preserveVersorClosure, true
	case BoundaryNoFabricatedSource:
		return noFabricatedSource, true
	case BoundaryNoSilentCorrection:
		return noSilentCorrection, true
	case BoundaryNoIdentityOverride:
		return noIdentityOverride, true
	case BoundaryNoHotPathRepair:
		return noHotPathRepair, true
	}
	return nil, false
}

func notChecked(reason string) SafetyCheckResult {
	return SafetyCheckResult{Upheld: true, RuntimeCheckable: false, Reason: reason}
}

// sprintE6 is fmt.Sprintf("%.6e", v), written by strconv without fmt's
// machinery: the same text for every value, infinities and NaN included
// (TestSprintE6IsPrintf).
func sprintE6(v float64) string { return strconv.FormatFloat(v, 'e', 6, 64) }

// closureBoundText is algebra.ClosureBound as preserveVersorClosure prints
// it, formatted once.
var closureBoundText = sprintE6(algebra.ClosureBound)

// preserveVersorClosure: closed iff versor_condition < algebra.ClosureBound.
// NaN compares false and so counts as a violation.
func preserveVersorClosure(e SafetyContext) SafetyCheckResult {
	if !e.HasFieldState {
		return notChecked("no committed field state supplied")
	}
	vc := sprintE6(e.VersorCondition)
	limit := closureBoundText
	r := SafetyCheckResult{
		Upheld:           closureHolds(e),
		RuntimeCheckable: true,
		Evidence:         []Evidence{{"versor_condition", vc}, {"threshold", limit}},
	}
	if r.Upheld {
		r.Reason = "versor condition " + vc + " is below " + limit
	} else {
		r.Reason = "versor condition " + vc + " is not below " + limit + ": the field state left versor closure"
	}
	return r
}

// The decisions of the default predicates, shared by each predicate and
// by defaultBrief.
func closureHolds(e SafetyContext) bool { return e.VersorCondition < algebra.ClosureBound }

// sourcesHold: every cited digest is on the allowlist, which, like
// noFabricatedSource, it reads in place when it is sorted.
func sourcesHold(e SafetyContext) bool {
	allowed := sortedUnique(e.AllowedSourceSHAs)
	for _, sha := range e.CitedSourceSHAs {
		if _, found := slices.BinarySearch(allowed, sha); !found {
			return false
		}
	}
	return true
}

// noFabricatedSource: every cited source digest must be on the allowlist.
func noFabricatedSource(e SafetyContext) SafetyCheckResult {
	if !e.HasAllowlist {
		return notChecked("no source allowlist supplied")
	}
	cited := sortedUnique(e.CitedSourceSHAs)
	// The runtime hands the same sorted allowlist to every turn: sortedUnique
	// reads it in place (its length is its distinct count, a binary search
	// its set) and sorts a copy only of a list out of order.
	allowed := sortedUnique(e.AllowedSourceSHAs)
	counts := []Evidence{
		{"cited_count", strconv.Itoa(len(cited))},
		{"allowed_count", strconv.Itoa(len(allowed))},
	}
	if len(cited) == 0 {
		return SafetyCheckResult{Upheld: true, RuntimeCheckable: true, Reason: "no sources cited", Evidence: counts}
	}
	evidence := counts
	fabricated := 0
	for _, sha := range cited {
		if _, found := slices.BinarySearch(allowed, sha); !found {
			evidence = append(evidence, Evidence{"fabricated_source_sha", sha})
			fabricated++
		}
	}
	if fabricated == 0 {
		return SafetyCheckResult{Upheld: true, RuntimeCheckable: true, Reason: "every cited source is on the allowlist", Evidence: evidence}
	}
	return SafetyCheckResult{
		Upheld:           false,
		RuntimeCheckable: true,
		Reason:           fmt.Sprintf("%d cited source(s) not on the allowlist", fabricated),
		Evidence:         evidence,
	}
}

// noSilentCorrection: the last failure must have surfaced as a typed refusal.
func noSilentCorrection(e SafetyContext) SafetyCheckResult {
	if !e.HasRefusalEvidence {
		return notChecked("no refusal evidence supplied")
	}
	evidence := []Evidence{{"last_refusal_was_typed", strconv.FormatBool(e.LastRefusalWasTyped)}}
	if typedHolds(e) {
		return SafetyCheckResult{Upheld: true, RuntimeCheckable: true, Reason: "the last refusal was typed", Evidence: evidence}
	}
	return SafetyCheckResult{
		Upheld:           false,
		RuntimeCheckable: true,
		Reason:           "a failure was replaced by an untyped fallback",
		Evidence:         evidence,
	}
}

// noIdentityOverride: the manifold hash must not change across the turn.
func noIdentityOverride(e SafetyContext) SafetyCheckResult {
	if e.IdentityHashBefore == "" || e.IdentityHashAfter == "" {
		return notChecked("identity manifold hash before or after the turn not supplied")
	}
	evidence := []Evidence{{"identity_hash_before", e.IdentityHashBefore}, {"identity_hash_after", e.IdentityHashAfter}}
	if identityHolds(e) {
		return SafetyCheckResult{Upheld: true, RuntimeCheckable: true, Reason: "identity manifold unchanged", Evidence: evidence}
	}
	return SafetyCheckResult{
		Upheld:           false,
		RuntimeCheckable: true,
		Reason:           "identity manifold changed during the turn",
		Evidence:         evidence,
	}
}

func typedHolds(e SafetyContext) bool    { return e.LastRefusalWasTyped }
func identityHolds(e SafetyContext) bool { return e.IdentityHashBefore == e.IdentityHashAfter }

// defaultBrief is the default predicate of boundary id reduced to its
// decision: whether the boundary holds and whether the evidence let it be
// checked, as the predicate's result says them, without building its
// reason and evidence. ok is false for a boundary without a default
// predicate. TestBriefIsCheckManifold holds it to the predicates.
func defaultBrief(id string, e SafetyContext) (upheld, checkable, ok bool) {
	switch id {
	case BoundaryPreserveVersorClosure:
		return !e.HasFieldState || closureHolds(e), e.HasFieldState, true
	case BoundaryNoFabricatedSource:
		return !e.HasAllowlist || sourcesHold(e), e.HasAllowlist, true
	case BoundaryNoSilentCorrection:
		return !e.HasRefusalEvidence || typedHolds(e), e.HasRefusalEvidence, true
	case BoundaryNoIdentityOverride:
		supplied := e.IdentityHashBefore != "" && e.IdentityHashAfter != ""
		return !supplied || identityHolds(e), supplied, true
	case BoundaryNoHotPathRepair:
		return true, false, true
	}
	return false, false, false
}

// noHotPathRepair is a property of the code, not of a turn: whether any
// operator normalises or replaces a drifted state is settled by review and
// static checks. The predicate says so instead of claiming a check it cannot make.
func noHotPathRepair(SafetyContext) SafetyCheckResult {
	return notChecked("code-path boundary: enforced by review and static analysis, not observable in a turn")
}

// DefaultBoundaryIDs lists, sorted, the boundaries that have a default
// predicate: the five boundaries of the v1 safety pack.
func DefaultBoundaryIDs() []string {
	ids := []string{
		BoundaryNoFabricatedSource, BoundaryNoHotPathRepair, BoundaryNoIdentityOverride,
		BoundaryNoSilentCorrection, BoundaryPreserveVersorClosure,
	}
	sort.Strings(ids)
	return ids
}
