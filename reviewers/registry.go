package reviewers

import (
	"context"
	"crypto/ed25519"
	"errors"
	"fmt"
	"io/fs"
	"os"

	"go.yaml.in/yaml/v3"
)

// Schema versions.
const (
	SchemaV1 = 1 // the original's registry; claims unsigned
	SchemaV2 = 2 // reviewers carry public keys, claims carry DSSE signatures
)

// Roles.
const (
	RolePrimary = "primary"
	RoleDomain  = "domain"
)

// Review scopes.
const (
	ScopePack     = "pack"
	ScopeProposal = "proposal"
	ScopeChain    = "chain"
	ScopeEval     = "eval"
)

// Wildcard is the domain list entry that means "every domain"; only a
// primary reviewer may hold it, and a primary holds exactly it.
const Wildcard = "*"

// MaxRegistryBytes bounds the file: a registry is a short, hand-reviewed list.
const MaxRegistryBytes = 1 << 20

func scopes() []string { return []string{ScopePack, ScopeProposal, ScopeChain, ScopeEval} }

// topLevelKeys are the keys a registry may have; math_expert_claims is
// tolerated and not read, as in the original.
func topLevelKeys() []string {
	return []string{"schema_version", "reviewers", "audit_passed_claims", "math_expert_claims"}
}

// Reviewer is one registered reviewer.
type Reviewer struct {
	ID          string
	DisplayName string
	Role        string
	Domains     []string
	ReviewScope []string
	Provenance  string
	PublicKey   ed25519.PublicKey // schema 2 only; nil for schema 1
}

// Claim is one audit_passed_claims entry.
type Claim struct {
	DomainID         string
	EvidenceLanes    []string
	EvidenceRevision string
	SignedBy         string
	ClaimDigest      string
	Signature        *Envelope // schema 2 only; nil for schema 1
}

// Registry is a loaded reviewers.yaml. Its accessors return copies: nothing
// a caller does can change what the registry grants.
type Registry struct {
	schema    int
	reviewers []Reviewer
	claims    []Claim
}

// Empty is the registry a broken or missing file degrades to: no reviewers,
// no claims, so it grants nothing.
func Empty() *Registry { return &Registry{} }

// SchemaVersion is 1 or 2, or 0 for the empty registry.
func (r *Registry) SchemaVersion() int { return r.schema }

// Reviewers returns a copy of the reviewers in file order.
func (r *Registry) Reviewers() []Reviewer {
	out := make([]Reviewer, len(r.reviewers))
	for i, v := range r.reviewers {
		out[i] = v.clone()
	}
	return out
}

// Claims returns a copy of the claims in file order.
func (r *Registry) Claims() []Claim {
	out := make([]Claim, len(r.claims))
	for i, c := range r.claims {
		out[i] = c.clone()
	}
	return out
}

// Resolve finds a reviewer by id (first match, as the original).
func (r *Registry) Resolve(id string) (Reviewer, bool) {
	for _, v := range r.reviewers {
		if v.ID == id {
			return v.clone(), true
		}
	}
	return Reviewer{}, false
}

// ClaimFor finds the claim for a domain.
func (r *Registry) ClaimFor(domain string) (Claim, bool) {
	for _, c := range r.claims {
		if c.DomainID == domain {
			return c.clone(), true
		}
	}
	return Claim{}, false
}

// ReviewerForKey finds the reviewer whose registered public_key is pub
// (schema 2; a key belongs to at most one reviewer).
func (r *Registry) ReviewerForKey(pub ed25519.PublicKey) (Reviewer, bool) {
	for _, v := range r.reviewers {
		if v.PublicKey != nil && v.PublicKey.Equal(pub) {
			return v.clone(), true
		}
	}
	return Reviewer{}, false
}

// CanDecideProposals reports whether the holder of pub may sign decisions
// of teaching proposals: a registered reviewer of schema 2 whose
// review_scope has proposal. A proposal has no domain, so the domains a
// reviewer lists do not restrict it.
func (r *Registry) CanDecideProposals(pub ed25519.PublicKey) (Reviewer, bool) {
	v, ok := r.ReviewerForKey(pub)
	return v, ok && contains(v.ReviewScope, ScopeProposal)
}

// CanReview decides, in this order: an unknown reviewer can review nothing;
// a scope outside the reviewer's review_scope is refused; a primary reviewer
// may review any domain; a domain reviewer only the domains it lists.
func (r *Registry) CanReview(id, domain, scope string) bool {
	v, ok := r.Resolve(id)
	if !ok || !contains(v.ReviewScope, scope) {
		return false
	}
	if v.Role == RolePrimary {
		return true
	}
	return contains(v.Domains, domain)
}

func (v Reviewer) clone() Reviewer {
	v.Domains = append([]string(nil), v.Domains...)
	v.ReviewScope = append([]string(nil), v.ReviewScope...)
	if v.PublicKey != nil {
		v.PublicKey = append(ed25519.PublicKey(nil), v.PublicKey...)
	}
	return v
}

func (c Claim) clone() Claim {
	c.EvidenceLanes = append([]string(nil), c.EvidenceLanes...)
	if c.Signature != nil {
		e := c.Signature.clone()
		c.Signature = &e
	}
	return c
}

// Load reads and validates the registry at path. Every failure is an
// *Error: a missing file, an unreadable or oversized one, a YAML parse
// error, or the first schema violation.
func Load(ctx context.Context, path string) (*Registry, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	info, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, errf("reviewer registry not found at " + path)
	}
	if err != nil {
		return nil, errf(fmt.Sprintf("reviewer registry unreadable at %s: %v", path, err))
	}
	if !info.Mode().IsRegular() || info.Size() > MaxRegistryBytes {
		return nil, errf(fmt.Sprintf("reviewer registry at %s must be a regular file of at most %d bytes", path, MaxRegistryBytes))
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, errf(fmt.Sprintf("reviewer registry unreadable at %s: %v", path, err))
	}
	return Parse(data)
}

// Parse validates registry bytes.
func Parse(data []byte) (*Registry, error) {
	if len(data) > MaxRegistryBytes {
		return nil, errf(fmt.Sprintf("reviewer registry larger than %d bytes", MaxRegistryBytes))
	}
	root, err := parseYAML(data)
	if err != nil {
		return nil, errf("reviewer registry YAML parse error: " + err.Error())
	}
	top, ok := asMapping(root)
	if !ok {
		return nil, errf("reviewer registry root must be a mapping")
	}
	if unk := top.unknown(topLevelKeys()); len(unk) > 0 {
		return nil, errf("reviewer registry has unknown top-level keys: " + pyList(unk))
	}
	schema, err := schemaVersion(top.vals["schema_version"])
	if err != nil {
		return nil, err
	}
	reg := &Registry{schema: schema}
	if reg.reviewers, err = parseReviewers(top, schema); err != nil {
		return nil, err
	}
	if reg.claims, err = parseClaims(top, schema, reg); err != nil {
		return nil, err
	}
	return reg, nil
}

// schemaVersion wants the integer 1 or 2 (not true, not 1.0, not "1").
func schemaVersion(node *yaml.Node) (int, error) {
	if node != nil && node.Tag == "!!int" {
		switch node.Value {
		case "1":
			return SchemaV1, nil
		case "2":
			return SchemaV2, nil
		}
	}
	return 0, errf("reviewer registry schema_version must be 1 or 2; got " + describe(node))
}
