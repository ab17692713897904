package forge

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"formation/artifact"
	"formation/ident"
)

// compareSource orders citations by their full content, field by field, so
// that merged source lists do not depend on input order. An absent offset
// sorts before any present one.
func compareSource(a, b artifact.SourceRef) int {
	return cmp.Or(
		strings.Compare(a.SourceSHA, b.SourceSHA),
		strings.Compare(a.Span, b.Span),
		strings.Compare(a.Adapter, b.Adapter),
		strings.Compare(a.RetrievedAt, b.RetrievedAt),
		strings.Compare(a.TextSHA, b.TextSHA),
		compareOffset(a.Start, b.Start),
		compareOffset(a.End, b.End),
		strings.Compare(a.Extractor, b.Extractor),
	)
}

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

// unionSources returns the distinct citations of all lists, sorted.
func unionSources(lists ...[]artifact.SourceRef) []artifact.SourceRef {
	if len(lists) == 1 && len(lists[0]) > 0 && strictlySorted(lists[0]) {
		return slices.Clone(lists[0])
	}
	n := 0
	for _, l := range lists {
		n += len(l)
	}
	out := make([]artifact.SourceRef, 0, n)
	for _, l := range lists {
		out = append(out, l...)
	}
	slices.SortFunc(out, compareSource)
	return slices.CompactFunc(out, func(a, b artifact.SourceRef) bool { return compareSource(a, b) == 0 })
}

// strictlySorted reports whether refs are sorted with no two equal: then
// their union is themselves.
func strictlySorted(refs []artifact.SourceRef) bool {
	for i := 1; i < len(refs); i++ {
		if compareSource(refs[i-1], refs[i]) >= 0 {
			return false
		}
	}
	return true
}

// rejection is why a candidate failed: a reason code, the argument the
// rejection_reason carries (for the two invalid_source codes that name a
// source), and a detail for people.
type rejection struct {
	code, arg, detail string
}

// reason is the quarantine list's rejection_reason.
func (r *rejection) reason() string {
	if r.arg == "" {
		return r.code
	}
	return r.code + ":" + r.arg
}

// sourceResult is what checking a candidate's citations found.
type sourceResult struct {
	fail *rejection
	// unchecked lists the digests of citations accepted without a byte
	// check (curated sources without a range).
	unchecked []string
	// allChecked is true when there was at least one citation and every
	// one was byte-checked and matched.
	allChecked bool
}

// spanKey identifies one piece of evidence; the per-call memo skips only a
// re-check of identical evidence.
type spanKey struct {
	source, text, span string
	start, end         int64
}

// sourceChecker runs R3 and the span check for one Validate call.
type sourceChecker struct {
	ctx   context.Context
	allow Allowlist
	spans SpanChecker
	memo  map[spanKey]*rejection
}

// check validates refs (already sorted): cheap checks on every citation
// first (digest shape, allow-list, range shape), then the byte checks, so a
// candidate that fails for a cheap reason costs no store reads. Within each
// pass the first failing citation decides. A non-nil error is not a verdict:
// Validate stops.
func (c *sourceChecker) check(refs []artifact.SourceRef, required bool) (sourceResult, error) {
	var res sourceResult
	if len(refs) == 0 {
		if required {
			res.fail = &rejection{code: ReasonNoSources, detail: "the candidate cites no source"}
		}
		return res, nil
	}
	for _, ref := range refs {
		entry, fail := c.admit(ref)
		if fail != nil {
			res.fail = fail
			return res, nil
		}
		if !hasAnyRange(ref) {
			if !entry.Curated {
				res.fail = &rejection{code: ReasonSpanMissing, detail: fmt.Sprintf("source %s is not curated and the citation names no text range", ref.SourceSHA)}
				return res, nil
			}
			res.unchecked = append(res.unchecked, ref.SourceSHA)
			continue
		}
		if fail := rangeShape(ref); fail != nil {
			res.fail = fail
			return res, nil
		}
	}
	for _, ref := range refs {
		if !hasAnyRange(ref) {
			continue
		}
		fail, err := c.bytes(ref)
		if err != nil || fail != nil {
			res.fail = fail
			return res, err
		}
	}
	res.unchecked = slices.Compact(res.unchecked)
	res.allChecked = len(res.unchecked) == 0
	return res, nil
}

// admit is R3 for one citation: a clean digest that is on the allow-list.
func (c *sourceChecker) admit(ref artifact.SourceRef) (artifact.AllowedSource, *rejection) {
	if !ident.ValidDigest(ref.SourceSHA) {
		esc := escapeUntrusted(ref.SourceSHA)
		return artifact.AllowedSource{}, &rejection{code: ReasonMalformedSHA, arg: esc, detail: "source_sha " + esc + " is not 64 lowercase hex"}
	}
	entry, ok := c.allow.Lookup(ref.SourceSHA)
	if !ok {
		return entry, &rejection{code: ReasonNotInAllowlist, arg: ref.SourceSHA, detail: "source " + ref.SourceSHA + " is not on the subject's allow-list"}
	}
	return entry, nil
}

func hasAnyRange(ref artifact.SourceRef) bool {
	return ref.TextSHA != "" || ref.Start != nil || ref.End != nil
}

// rangeShape checks a citation that names a range before anything is read:
// all three fields, a clean text digest, a non-empty range, and a span whose
// length is the range's.
func rangeShape(ref artifact.SourceRef) *rejection {
	bad := func(why string) *rejection {
		return &rejection{code: ReasonSpanMalformed, detail: fmt.Sprintf("citation of %s: %s", ref.SourceSHA, why)}
	}
	switch {
	case !ref.HasSpanRange():
		return bad("text_sha, start and end must be given together")
	case !ident.ValidDigest(ref.TextSHA):
		return bad("text_sha " + escapeUntrusted(ref.TextSHA) + " is not 64 lowercase hex")
	case *ref.Start < 0 || *ref.End <= *ref.Start:
		return bad(fmt.Sprintf("range [%d,%d) is empty or negative", *ref.Start, *ref.End))
	case int64(len(ref.Span)) != *ref.End-*ref.Start:
		return &rejection{code: ReasonSpanMismatch, detail: fmt.Sprintf("citation of %s: span is %d bytes, range [%d,%d) is %d", ref.SourceSHA, len(ref.Span), *ref.Start, *ref.End, *ref.End-*ref.Start)}
	}
	return nil
}

// bytes asks the SpanChecker, once per distinct piece of evidence.
func (c *sourceChecker) bytes(ref artifact.SourceRef) (*rejection, error) {
	key := spanKey{ref.SourceSHA, ref.TextSHA, ref.Span, *ref.Start, *ref.End}
	if fail, done := c.memo[key]; done {
		return fail, nil
	}
	if c.spans == nil {
		return nil, fmt.Errorf("forge: %w: a citation names a text range but no span checker is configured", ErrConfig)
	}
	err := c.spans.Check(c.ctx, ref)
	var fail *rejection
	where := func() string {
		return fmt.Sprintf("citation of %s in text %s [%d,%d)", ref.SourceSHA, ref.TextSHA, *ref.Start, *ref.End)
	}
	switch {
	case err == nil:
	case errors.Is(err, ErrSpanMismatch):
		fail = &rejection{code: ReasonSpanMismatch, detail: where() + ": " + err.Error()}
	case errors.Is(err, ErrSpanUnverifiable):
		fail = &rejection{code: ReasonSpanUnverifiable, detail: where() + ": " + err.Error()}
	default:
		return nil, fmt.Errorf("forge: span check of %s: %w", where(), err)
	}
	c.memo[key] = fail
	return fail, nil
}

// effectiveTier is the tier a citation counts with: its source's allow-list
// tier, except that a citation cut from LLM output (an llm_ideation adapter)
// is tier llm whatever the allow-list says.
func effectiveTier(ref artifact.SourceRef, allow Allowlist) string {
	if artifact.IsLLMAdapter(ref.Adapter) {
		return artifact.TierLLM
	}
	return allow.TierOf(ref.SourceSHA)
}

// corroborated is R5: one primary source, or two distinct secondary ones.
// LLM-tier citations never count.
func corroborated(refs []artifact.SourceRef, allow Allowlist) bool {
	var secondary []string
	for _, ref := range refs {
		switch effectiveTier(ref, allow) {
		case artifact.TierPrimary:
			return true
		case artifact.TierSecondary:
			secondary = append(secondary, ref.SourceSHA)
		}
	}
	slices.Sort(secondary)
	return len(slices.Compact(secondary)) >= 2
}
