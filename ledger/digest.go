package ledger

import (
	"fmt"
	"sort"

	"formation/canon"
	"formation/eval"
)

// Splits the gate and the digest read. dev is for tuning and never counts.
const (
	SplitPublic  = "public"
	SplitHoldout = "holdout"
	SplitDev     = "dev"
)

// LaneMetrics is one lane's entry in the evidence bundle.
type LaneMetrics struct {
	Public  eval.Metrics `json:"public"`
	Holdout eval.Metrics `json:"holdout"`
}

// EvidenceBundle is the canonical payload a claim_digest is the SHA-256 of.
type EvidenceBundle struct {
	DomainID         string                 `json:"domain_id"`
	EvidenceRevision string                 `json:"evidence_revision"`
	EvidenceLanes    []string               `json:"evidence_lanes"`
	LaneMetrics      map[string]LaneMetrics `json:"lane_metrics"`
}

// NewEvidenceBundle assembles the bundle for a claim: its lanes sorted
// (duplicates kept, as the claim lists them) and, for each, the public and
// holdout metrics of the selected lane results. A split without a result
// contributes empty metrics ({}), so its absence is hashed too.
func NewEvidenceBundle(domain, revision string, lanes []string, results map[string]map[string]eval.Metrics) EvidenceBundle {
	sorted := append([]string{}, lanes...)
	sort.Strings(sorted)
	lm := make(map[string]LaneMetrics, len(sorted))
	for _, l := range sorted {
		lm[l] = LaneMetrics{Public: results[l][SplitPublic], Holdout: results[l][SplitHoldout]}
	}
	return EvidenceBundle{DomainID: domain, EvidenceRevision: revision, EvidenceLanes: sorted, LaneMetrics: lm}
}

// EvidenceDigest is the lowercase hex SHA-256 of the bundle's canonical
// JSON. It depends on nothing but its arguments: the same lane metrics at
// the same revision always give the same digest, whatever the order the
// claim lists its lanes in.
func EvidenceDigest(domain, revision string, lanes []string, results map[string]map[string]eval.Metrics) (string, error) {
	d, err := canon.SHA256Hex(NewEvidenceBundle(domain, revision, lanes, results))
	if err != nil {
		return "", fmt.Errorf("ledger: evidence digest: %w", err)
	}
	return d, nil
}
