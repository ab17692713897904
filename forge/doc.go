// Package forge is the pure core of the Forge stage, the pipeline's only
// validator: it turns a smelted bundle of candidates into a
// ValidatedTripleSet plus one audit finding for every candidate that was
// quarantined, dropped or merged, or accepted on a citation whose span was
// not byte-checked.
//
// The rules are the original system's validation rules R1–R5 with these
// corrections: compound predicates validate when well formed; case is
// normalised once; concepts, counter-claims and ordering hints are
// checked too and no drop is silent; LLM-tier sources never corroborate;
// there is no triple cache; duplicates in a batch are merged; the identity
// screen matches whole terms; a malformed digest is reported neutrally; a
// triple both asserted and denied is kept as neither. The vocabulary is the
// original's 17 relations plus those the subject declares, and terms are
// written in the form a user types them (text.NormalTerm). Every
// citation that names a text range is compared byte for byte with the stored
// text through a SpanChecker. README.md documents the rules, every reason
// code and the sort orders.
//
// The package also owns the subject's allow-list (allowlist.yaml, with the
// curator's exclusions) and the pure functions behind
// `formation allow add|list|remove|exclude`.
//
// Validate does no I/O of its own: the caller supplies the allow-list, the
// known triples and the SpanChecker, and writes the result and the findings.
package forge
