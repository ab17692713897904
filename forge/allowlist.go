package forge

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"formation/artifact"
)

// ErrInvalidTier is wrapped by every error about a tier outside
// primary/secondary/llm.
var ErrInvalidTier = errors.New("invalid tier")

// ErrNotListed is returned by Remove for a digest that is not on the list.
var ErrNotListed = errors.New("source not on the allow-list")

// ErrInvalidAllowlist is wrapped by every error about an allow-list entry or
// file other than a bad tier: a malformed digest, a duplicate digest in a
// file, an unknown field, a wrong YAML type.
var ErrInvalidAllowlist = errors.New("invalid allow-list")

// allowedTiers lists the tiers in the order the original's message prints
// them (sorted).
func allowedTiers() []string {
	return []string{artifact.TierLLM, artifact.TierPrimary, artifact.TierSecondary}
}

func validTier(t string) bool { return slices.Contains(allowedTiers(), t) }

// tierError is the original's construction message, e.g.
// "invalid tier 'gold'; allowed: ['llm', 'primary', 'secondary']".
type tierError struct {
	tier       string
	withChoice bool
}

func (e *tierError) Error() string {
	msg := "invalid tier " + pyRepr(e.tier)
	if !e.withChoice {
		return msg
	}
	quoted := make([]string, 0, 3)
	for _, t := range allowedTiers() {
		quoted = append(quoted, pyRepr(t))
	}
	return msg + "; allowed: [" + strings.Join(quoted, ", ") + "]"
}

func (e *tierError) Unwrap() error { return ErrInvalidTier }

// Allowlist maps a source digest to its allow-list entry. It is a value:
// Add and Remove return a new list and never change the receiver, so a list
// handed to Validate cannot change under it. The zero value is empty.
type Allowlist struct {
	entries  []artifact.AllowedSource // sorted by SourceSHA, unique
	excludes []Exclusion              // sorted by compareTarget, unique targets
}

// NewAllowlist builds a list the way the original's constructor does: every
// tier must be valid (otherwise the original's message, listing the allowed
// tiers) and with a digest listed twice the last entry wins. Digests are not
// checked here (the original did not); LoadAllowlist checks them.
func NewAllowlist(entries []artifact.AllowedSource) (Allowlist, error) {
	byDigest := make(map[string]artifact.AllowedSource, len(entries))
	for _, e := range entries {
		if !validTier(e.Tier) {
			return Allowlist{}, &tierError{tier: e.Tier, withChoice: true}
		}
		byDigest[e.SourceSHA] = e
	}
	out := make([]artifact.AllowedSource, 0, len(byDigest))
	for _, e := range byDigest {
		out = append(out, e)
	}
	slices.SortFunc(out, func(a, b artifact.AllowedSource) int { return strings.Compare(a.SourceSHA, b.SourceSHA) })
	return Allowlist{entries: out}, nil
}

// Add returns a list with e added, replacing any entry for the same digest.
// A bad tier gives the original's short message ("invalid tier 'x'").
func (a Allowlist) Add(e artifact.AllowedSource) (Allowlist, error) {
	if !validTier(e.Tier) {
		return a, &tierError{tier: e.Tier}
	}
	i, found := a.search(e.SourceSHA)
	out := slices.Clone(a.entries)
	if found {
		out[i] = e
	} else {
		out = slices.Insert(out, i, e)
	}
	return Allowlist{entries: out, excludes: a.excludes}, nil
}

// Remove returns a list without the entry for sha (ErrNotListed if absent).
func (a Allowlist) Remove(sha string) (Allowlist, error) {
	i, found := a.search(sha)
	if !found {
		return a, fmt.Errorf("allow-list: remove %s: %w", sha, ErrNotListed)
	}
	return Allowlist{entries: slices.Delete(slices.Clone(a.entries), i, i+1), excludes: a.excludes}, nil
}

// Lookup returns the entry for sha.
func (a Allowlist) Lookup(sha string) (artifact.AllowedSource, bool) {
	i, found := a.search(sha)
	if !found {
		return artifact.AllowedSource{}, false
	}
	return a.entries[i], true
}

// Contains reports whether sha is listed.
func (a Allowlist) Contains(sha string) bool { _, ok := a.search(sha); return ok }

// TierOf returns the tier of sha, or "" when it is not listed.
func (a Allowlist) TierOf(sha string) string {
	e, _ := a.Lookup(sha)
	return e.Tier
}

// Len is the number of entries.
func (a Allowlist) Len() int { return len(a.entries) }

// Entries returns the entries sorted by digest (a copy).
func (a Allowlist) Entries() []artifact.AllowedSource { return slices.Clone(a.entries) }

func (a Allowlist) search(sha string) (int, bool) {
	return slices.BinarySearchFunc(a.entries, sha, func(e artifact.AllowedSource, s string) int {
		return strings.Compare(e.SourceSHA, s)
	})
}
