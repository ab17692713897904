package forge

// Reason codes. Each is a stable string: audit records, the quarantine list
// and tests key on it. README.md documents every one. A quarantined
// relation's rejection_reason is its code, except the two invalid_source
// codes that name a source, which append ":" and the digest (or its escaped
// text) as the original did.
const (
	// Rejections: the candidate is quarantined (relations) or dropped
	// (concepts, counters, hints), and a finding records why.
	ReasonMalformed          = "malformed"
	ReasonIdentityCollision  = "identity_axis_collision"
	ReasonNoSources          = "invalid_source:no_sources"
	ReasonMalformedSHA       = "invalid_source:malformed_sha"
	ReasonNotInAllowlist     = "invalid_source:not_in_allowlist"
	ReasonSpanMissing        = "span_missing"
	ReasonSpanMalformed      = "span_malformed"
	ReasonSpanMismatch       = "span_mismatch"
	ReasonSpanUnverifiable   = "span_unverifiable"
	ReasonInsufficient       = "insufficient_corroboration"
	ReasonDuplicateExisting  = "duplicate_existing"
	ReasonDuplicateTerm      = "duplicate_term"
	ReasonOrderingUnknown    = "ordering_unknown_term"
	ReasonOrderingCycle      = "ordering_cycle"
	ReasonDuplicateMerged    = "duplicate_merged"
	ReasonSpanNotByteChecked = "span_not_checked"
	// ReasonSelfContradiction: the set would validate the triple both as a
	// relation and as a counter-claim; both sides are rejected.
	ReasonSelfContradiction = "self_contradiction"
	// ReasonFanoutExceeded: the set would give the relation's head more
	// than MaxFanout tails under its relation; every relation of the pair
	// is quarantined.
	ReasonFanoutExceeded = "fanout_exceeded"
	// ReasonCuratorExcluded: every citation of the candidate is evidence
	// the curator excluded in allowlist.yaml.
	ReasonCuratorExcluded = "curator_excluded"
	// ReasonCitationExcluded (informational): some citations were excluded
	// by the curator and removed; the candidate is judged on the others.
	ReasonCitationExcluded = "citation_excluded"
)

// Finding kinds.
const (
	KindConcept      = "concept"
	KindRelation     = "relation"
	KindCounter      = "counter"
	KindOrderingHint = "ordering_hint"
)

// Finding is one audit fact about one candidate: why it was quarantined,
// dropped or merged, or that it was accepted on a citation whose span was
// not byte-checked. The stage writes each as an audit record.
type Finding struct {
	// Kind is concept, relation, counter or ordering_hint.
	Kind string `json:"kind"`
	// Key names the candidate: a JSON array of its identifying strings,
	// ["head","relation","tail"], ["term","definition"] or
	// ["before","after"], normalised when the candidate was well formed.
	Key string `json:"key"`
	// ReasonCode is one of the Reason constants.
	ReasonCode string `json:"reason_code"`
	// Detail says what exactly was wrong, for people.
	Detail string `json:"detail"`
	// SpanChecked is true when every citation of the candidate had its
	// span compared byte for byte with the stored text, and matched.
	SpanChecked bool `json:"span_checked"`
}

// compare orders findings by (kind, key, reason code, detail, span checked).
func (f Finding) compare(o Finding) int {
	for _, p := range [][2]string{{f.Kind, o.Kind}, {f.Key, o.Key}, {f.ReasonCode, o.ReasonCode}, {f.Detail, o.Detail}} {
		if p[0] != p[1] {
			if p[0] < p[1] {
				return -1
			}
			return 1
		}
	}
	switch {
	case f.SpanChecked == o.SpanChecked:
		return 0
	case !f.SpanChecked:
		return -1
	}
	return 1
}
