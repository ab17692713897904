package forge

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"formation/artifact"
	"formation/ident"
)

// Exclusion is one curator exclusion in allowlist.yaml: a piece of text the
// curator says is no evidence (a table header read as a claim, a sentence
// that says one thing and is parsed as another). It names either a byte
// range of an extracted-text object (TextSHA, Start, End: a citation whose
// range lies inside it is excluded) or a sentence by the SHA-256 of its
// bytes (SentenceSHA: a citation whose span is exactly those bytes is
// excluded), and always says why.
type Exclusion struct {
	TextSHA     string `json:"text_sha,omitempty"`
	Start       *int64 `json:"start,omitempty"`
	End         *int64 `json:"end,omitempty"`
	SentenceSHA string `json:"sentence_sha,omitempty"`
	Reason      string `json:"reason"`
}

// IsRange reports whether e names a byte range (else a sentence digest).
func (e Exclusion) IsRange() bool { return e.TextSHA != "" }

// check refuses an exclusion that names neither or both kinds, a malformed
// digest, an empty or negative range, or a blank reason.
func (e Exclusion) check() error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: exclusion %s: %s", ErrInvalidAllowlist, e.describe(), fmt.Sprintf(format, args...))
	}
	hasRange := e.TextSHA != "" || e.Start != nil || e.End != nil
	switch {
	case hasRange == (e.SentenceSHA != ""):
		return bad("give either text_sha with start and end, or sentence_sha")
	case hasRange && (e.TextSHA == "" || e.Start == nil || e.End == nil):
		return bad("text_sha, start and end must be given together")
	case hasRange && !ident.ValidDigest(e.TextSHA):
		return bad("text_sha is not 64 lowercase hex")
	case hasRange && (*e.Start < 0 || *e.End <= *e.Start):
		return bad("the range [%d,%d) is empty or negative", *e.Start, *e.End)
	case !hasRange && !ident.ValidDigest(e.SentenceSHA):
		return bad("sentence_sha is not 64 lowercase hex")
	case strings.TrimSpace(e.Reason) == "" || !utf8.ValidString(e.Reason) || strings.IndexFunc(e.Reason, unicode.IsControl) >= 0:
		return bad("a reason is required: printable text")
	}
	return nil
}

// describe names the exclusion for messages: "text <sha>[s,e)" or
// "sentence <sha>"; parts that are malformed are escaped.
func (e Exclusion) describe() string {
	if e.TextSHA != "" || e.Start != nil || e.End != nil {
		var s, n int64 = -1, -1
		if e.Start != nil {
			s = *e.Start
		}
		if e.End != nil {
			n = *e.End
		}
		return fmt.Sprintf("text %s[%d,%d)", escapeUntrusted(e.TextSHA), s, n)
	}
	return "sentence " + escapeUntrusted(e.SentenceSHA)
}

// sameTarget reports whether two exclusions name the same evidence (their
// reasons may differ): a file lists each target once.
func (e Exclusion) sameTarget(o Exclusion) bool { return compareTarget(e, o) == 0 }

// compareTarget orders exclusions by what they name: sentence digests (no
// text) first, then by text digest and range.
func compareTarget(a, b Exclusion) int {
	return cmp.Or(strings.Compare(a.TextSHA, b.TextSHA), compareOffset(a.Start, b.Start),
		compareOffset(a.End, b.End), strings.Compare(a.SentenceSHA, b.SentenceSHA))
}

// matches reports whether the citation is evidence the exclusion names.
// spanSHA is the hex SHA-256 of the citation's span, computed by the caller
// only when a sentence exclusion exists.
func (e Exclusion) matches(ref artifact.SourceRef, spanSHA func() string) bool {
	if e.IsRange() {
		return ref.HasSpanRange() && ref.TextSHA == e.TextSHA && *ref.Start >= *e.Start && *ref.End <= *e.End
	}
	return spanSHA() == e.SentenceSHA
}

// Exclusions returns the curator exclusions, sorted by what they name.
func (a Allowlist) Exclusions() []Exclusion { return slices.Clone(a.excludes) }

// Exclude returns a list with e added, replacing an exclusion of the same
// evidence (its reason is updated).
func (a Allowlist) Exclude(e Exclusion) (Allowlist, error) {
	if err := e.check(); err != nil {
		return a, err
	}
	out := a
	i, found := slices.BinarySearchFunc(a.excludes, e, compareTarget)
	out.excludes = slices.Clone(a.excludes)
	if found {
		out.excludes[i] = e
	} else {
		out.excludes = slices.Insert(out.excludes, i, e)
	}
	return out, nil
}

// Unexclude returns a list without the exclusion of e's evidence
// (ErrNotListed if there is none); e's reason is ignored.
func (a Allowlist) Unexclude(e Exclusion) (Allowlist, error) {
	i, found := slices.BinarySearchFunc(a.excludes, e, compareTarget)
	if !found {
		return a, fmt.Errorf("allow-list: unexclude %s: %w", e.describe(), ErrNotListed)
	}
	out := a
	out.excludes = slices.Delete(slices.Clone(a.excludes), i, i+1)
	return out, nil
}

// excludedBy returns the exclusion that names the citation, if any.
func (a Allowlist) excludedBy(ref artifact.SourceRef) (Exclusion, bool) {
	var digest string
	spanSHA := func() string {
		if digest == "" {
			sum := sha256.Sum256([]byte(ref.Span))
			digest = hex.EncodeToString(sum[:])
		}
		return digest
	}
	for _, e := range a.excludes {
		if e.matches(ref, spanSHA) {
			return e, true
		}
	}
	return Exclusion{}, false
}

// exclude applies the curator's exclusions to a candidate's citations
// before any rule: a candidate citing only excluded evidence is rejected as
// curator_excluded; one that also cites other evidence keeps only that, with
// a citation_excluded finding naming what was removed. key is only computed
// when a finding needs it.
func (v *validation) exclude(kind string, key func() string, refs []artifact.SourceRef) ([]artifact.SourceRef, *rejection) {
	if len(v.allow.excludes) == 0 || len(refs) == 0 {
		return refs, nil
	}
	kept := make([]artifact.SourceRef, 0, len(refs))
	var why []string
	for _, r := range refs {
		if e, hit := v.allow.excludedBy(r); hit {
			why = append(why, fmt.Sprintf("%s (%s)", e.describe(), e.Reason))
			continue
		}
		kept = append(kept, r)
	}
	if len(why) == 0 {
		return refs, nil
	}
	slices.Sort(why)
	why = slices.Compact(why)
	if len(kept) == 0 {
		return refs, &rejection{code: ReasonCuratorExcluded, detail: "every citation is excluded by the curator: " + strings.Join(why, "; ")}
	}
	v.findings = append(v.findings, Finding{Kind: kind, Key: key(), ReasonCode: ReasonCitationExcluded,
		Detail: fmt.Sprintf("%d of %d citations excluded by the curator and removed: %s", len(refs)-len(kept), len(refs), strings.Join(why, "; "))})
	return kept, nil
}
