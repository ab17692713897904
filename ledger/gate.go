package ledger

import (
	"fmt"
	"sort"

	"formation/eval"
	"formation/reviewers"
)

// Gate reasons that are fixed strings.
const (
	ReasonPassed              = "all audit-passed predicates satisfied"
	ReasonNotReasoningCapable = "domain not yet reasoning-capable"
	ReasonNoClaim             = "no audit_passed_claims entry for this domain"
	ReasonReplayDrift         = "evidence-bundle digest does not match claim_digest (replay drift)"
)

// LaneEvidence is the selected result of one lane and split: its metrics
// and where they came from. Problem is set, and Metrics empty, when the
// result is missing, unreadable or does not belong to this domain, lane and
// split.
type LaneEvidence struct {
	Object    string       // digest of the lane-result object
	Timestamp string       // when the lane ran
	Metrics   eval.Metrics // what the gate checks and the digest hashes
	Problem   string
	// Corrupt is set when Problem is an integrity failure of the stored
	// result (a bad ref, a missing, corrupt or mislabelled object), not a
	// result that merely no longer counts.
	Corrupt bool
}

// GateInput is everything the audit-passed gate reads for one domain.
type GateInput struct {
	Domain           string
	ReasoningCapable bool
	Registry         *reviewers.Registry // never nil; reviewers.Empty() when the file failed
	RegistryError    string              // why the registry file failed to load, "" when it loaded
	DomainLanes      []string            // lanes attached to the domain, in domains.yaml order
	Results          map[string]map[string]LaneEvidence
}

// GateResult is the gate's verdict. DerivedDigest is set once the checks
// reach the digest (on a pass, and on replay drift).
type GateResult struct {
	Passed         bool
	Reason         string
	DerivedDigest  string
	Claim          *reviewers.Claim
	SignatureError string // why the claim's signature failed, for the registry summary
}

// Gate runs the six checks of the promotion contract in order; the first
// that fails decides the reason and leaves the domain below audit-passed:
//
//  1. the domain is reasoning-capable;
//  2. a claim for the domain exists in a registry that loaded, and its
//     signature verifies against its signer's key;
//  3. the signer may review eval-scope artifacts for the domain;
//  4. every lane the claim cites is attached to the domain;
//  5. every cited lane has a registered shape, and its public and then its
//     holdout result exist and pass that shape's thresholds;
//  6. the evidence digest recomputed now equals claim_digest.
func Gate(in GateInput) GateResult {
	if !in.ReasoningCapable {
		return fail(withRegistryError(ReasonNotReasoningCapable, in.RegistryError))
	}
	if in.RegistryError != "" {
		return fail(fmt.Sprintf("reviewer registry invalid, so no claim is trusted: %s", in.RegistryError))
	}
	claim, ok := in.Registry.ClaimFor(in.Domain)
	if !ok {
		return fail(ReasonNoClaim)
	}
	res := GateResult{Claim: &claim}
	if err := in.Registry.VerifyClaim(claim); err != nil {
		res.SignatureError = err.Error()
		return res.fail(fmt.Sprintf("audit_passed_claims entry is not validly signed: %v", err))
	}
	if !in.Registry.CanReview(claim.SignedBy, in.Domain, reviewers.ScopeEval) {
		return res.fail(fmt.Sprintf("signer '%s' cannot review eval-scope artifacts for domain '%s'", claim.SignedBy, in.Domain))
	}
	if stray := unattached(claim.EvidenceLanes, in.DomainLanes); len(stray) > 0 {
		return res.fail(fmt.Sprintf("claim cites lanes not attached to domain '%s': %s", in.Domain, pyList(stray)))
	}
	if reason := checkLanes(claim.EvidenceLanes, in.Results); reason != "" {
		return res.fail(reason)
	}
	metrics := map[string]map[string]eval.Metrics{}
	for lane, splits := range in.Results {
		metrics[lane] = map[string]eval.Metrics{}
		for split, ev := range splits {
			metrics[lane][split] = ev.Metrics
		}
	}
	derived, err := EvidenceDigest(in.Domain, claim.EvidenceRevision, claim.EvidenceLanes, metrics)
	if err != nil {
		return res.fail(err.Error())
	}
	res.DerivedDigest = derived
	if derived != claim.ClaimDigest {
		return res.fail(ReasonReplayDrift)
	}
	res.Passed, res.Reason = true, ReasonPassed
	return res
}

func fail(reason string) GateResult { return GateResult{Reason: reason} }

func (r GateResult) fail(reason string) GateResult {
	r.Passed, r.Reason = false, reason
	return r
}

// withRegistryError names a broken registry in a reason from an earlier
// check, so that no row hides the registry failure.
func withRegistryError(reason, regErr string) string {
	if regErr == "" {
		return reason
	}
	return reason + "; reviewer registry invalid: " + regErr
}

func unattached(cited, attached []string) []string {
	var out []string
	for _, l := range cited {
		if !contains(attached, l) && !contains(out, l) {
			out = append(out, l)
		}
	}
	return out
}

// checkLanes is check 5: per cited lane, in claim order, the shape must be
// registered, then public and holdout must each have a usable result that
// passes the shape.
func checkLanes(lanes []string, results map[string]map[string]LaneEvidence) string {
	for _, lane := range lanes {
		if _, ok := eval.ShapeOf(lane); !ok {
			return eval.UnregisteredReason(lane)
		}
		for _, split := range []string{SplitPublic, SplitHoldout} {
			ev, ok := results[lane][split]
			switch {
			case !ok || (ev.Problem == "" && ev.Metrics.IsEmpty()):
				return fmt.Sprintf("lane '%s' split '%s' has no results", lane, split)
			case ev.Problem != "":
				return fmt.Sprintf("lane '%s' split '%s' has no usable result: %s", lane, split, ev.Problem)
			}
			if reason := eval.Check(lane, ev.Metrics); reason != "" {
				return fmt.Sprintf("%s (split=%s)", reason, split)
			}
		}
	}
	return ""
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// pyList renders ids sorted, as a Python list literal: ['a', 'b'].
func pyList(ids []string) string {
	s := append([]string(nil), ids...)
	sort.Strings(s)
	out := "["
	for i, id := range s {
		if i > 0 {
			out += ", "
		}
		out += "'" + id + "'"
	}
	return out + "]"
}
