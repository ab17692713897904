package reviewers

import (
	"crypto/ed25519"
	"encoding/base64"
	"fmt"

	"go.yaml.in/yaml/v3"

	"formation/ident"
)

// reviewerFields are a reviewer's fields, all required.
func reviewerFields(schema int) []string {
	f := []string{"reviewer_id", "display_name", "role", "domains", "review_scope", "provenance"}
	if schema == SchemaV2 {
		f = append(f, "public_key")
	}
	return f
}

// claimFields are a claim's fields, all required.
func claimFields(schema int) []string {
	f := []string{"domain_id", "evidence_lanes", "evidence_revision", "signed_by", "claim_digest"}
	if schema == SchemaV2 {
		f = append(f, "signature")
	}
	return f
}

func parseReviewers(top *mapping, schema int) ([]Reviewer, error) {
	node, present := top.vals["reviewers"]
	if !present || isNull(node) {
		return nil, errf("reviewer registry missing 'reviewers' field")
	}
	if node.Kind != yaml.SequenceNode {
		return nil, errf("reviewer registry 'reviewers' must be a list")
	}
	out := make([]Reviewer, 0, len(node.Content))
	seen := map[string]bool{}
	keys := map[string]string{} // public key → the reviewer holding it
	for i, item := range node.Content {
		v, err := parseReviewer(i, item, schema)
		if err != nil {
			return nil, err
		}
		if seen[v.ID] {
			return nil, errf(fmt.Sprintf("reviewer registry contains duplicate reviewer_id '%s'", v.ID))
		}
		seen[v.ID] = true
		// A signature names its signer by key alone (a proposal decision
		// does), so one key must mean one reviewer and one set of scopes.
		if holder, dup := keys[string(v.PublicKey)]; dup && v.PublicKey != nil {
			return nil, errf(fmt.Sprintf("reviewer entry at index %d has the public_key of reviewer '%s'; a key belongs to one reviewer", i, holder))
		}
		keys[string(v.PublicKey)] = v.ID
		out = append(out, v)
	}
	return out, nil
}

// parseReviewer checks one entry in the original's order: shape, unknown
// fields, missing fields, string fields, role, domains, the wildcard rules,
// review_scope; then, in schema 2, the public key.
func parseReviewer(i int, n *yaml.Node, schema int) (Reviewer, error) {
	at := fmt.Sprintf("reviewer entry at index %d", i)
	m, ok := asMapping(n)
	if !ok {
		return Reviewer{}, errf(at + " must be a mapping")
	}
	if err := checkFields(at, m, reviewerFields(schema)); err != nil {
		return Reviewer{}, err
	}
	var v Reviewer
	for _, f := range []struct {
		key string
		dst *string
	}{{"reviewer_id", &v.ID}, {"display_name", &v.DisplayName}, {"role", &v.Role}, {"provenance", &v.Provenance}} {
		s, ok := nonEmptyString(m.vals[f.key])
		if !ok {
			return Reviewer{}, errf(fmt.Sprintf("%s field '%s' must be a non-empty string", at, f.key))
		}
		*f.dst = s
	}
	if v.Role != RolePrimary && v.Role != RoleDomain {
		return Reviewer{}, errf(fmt.Sprintf("%s has invalid role '%s'", at, v.Role))
	}
	var err error
	if v.Domains, err = reviewerDomains(at, m.vals["domains"], v.Role); err != nil {
		return Reviewer{}, err
	}
	if v.ReviewScope, err = reviewScope(at, m.vals["review_scope"]); err != nil {
		return Reviewer{}, err
	}
	if schema == SchemaV2 {
		if v.PublicKey, err = publicKey(at, m.vals["public_key"]); err != nil {
			return Reviewer{}, err
		}
	}
	return v, nil
}

// checkFields refuses unknown fields, then missing ones.
func checkFields(at string, m *mapping, fields []string) error {
	if unk := m.unknown(fields); len(unk) > 0 {
		return errf(at + " has unknown fields: " + pyList(unk))
	}
	if miss := m.missing(fields); len(miss) > 0 {
		return errf(at + " missing required fields: " + pyList(miss))
	}
	return nil
}

func reviewerDomains(at string, n *yaml.Node, role string) ([]string, error) {
	domains, ok := stringList(n)
	if !ok {
		return nil, errf(at + " field 'domains' must be a list of non-empty strings")
	}
	if len(domains) == 0 {
		return nil, errf(at + " has empty 'domains' list")
	}
	wild := contains(domains, Wildcard)
	if role == RoleDomain && wild {
		return nil, errf(at + ": only role='primary' may claim wildcard domains")
	}
	if role == RolePrimary && (len(domains) != 1 || !wild) {
		return nil, errf(at + ": primary reviewers must claim wildcard domains ['*']")
	}
	return domains, nil
}

func reviewScope(at string, n *yaml.Node) ([]string, error) {
	sc, ok := stringList(n)
	if !ok {
		return nil, errf(at + " field 'review_scope' must be a list of non-empty strings")
	}
	if len(sc) == 0 {
		return nil, errf(at + " has empty 'review_scope' list")
	}
	var unk, twice []string
	for i, s := range sc {
		if !contains(scopes(), s) {
			unk = append(unk, s)
		} else if contains(sc[:i], s) {
			twice = append(twice, s)
		}
	}
	if len(unk) > 0 {
		return nil, errf(at + " has unknown review_scope values: " + pyList(unk))
	}
	if len(twice) > 0 {
		return nil, errf(at + " repeats review_scope values: " + pyList(twice))
	}
	return sc, nil
}

func publicKey(at string, n *yaml.Node) (ed25519.PublicKey, error) {
	s, ok := nonEmptyString(n)
	if ok {
		raw, err := base64.StdEncoding.Strict().DecodeString(s)
		if err == nil && len(raw) == ed25519.PublicKeySize {
			return ed25519.PublicKey(raw), nil
		}
	}
	return nil, errf(at + " field 'public_key' must be a standard-base64 ed25519 public key (32 bytes)")
}

func parseClaims(top *mapping, schema int, reg *Registry) ([]Claim, error) {
	node, present := top.vals["audit_passed_claims"]
	if !present {
		return nil, nil
	}
	if node.Kind != yaml.SequenceNode {
		return nil, errf("reviewer registry 'audit_passed_claims' must be a list when present")
	}
	out := make([]Claim, 0, len(node.Content))
	seen := map[string]bool{}
	for i, item := range node.Content {
		c, err := parseClaim(i, item, schema, reg)
		if err != nil {
			return nil, err
		}
		if seen[c.DomainID] {
			return nil, errf(fmt.Sprintf("reviewer registry audit_passed_claims contains duplicate domain_id '%s'", c.DomainID))
		}
		seen[c.DomainID] = true
		out = append(out, c)
	}
	return out, nil
}

func parseClaim(i int, n *yaml.Node, schema int, reg *Registry) (Claim, error) {
	at := fmt.Sprintf("audit_passed_claims entry at index %d", i)
	m, ok := asMapping(n)
	if !ok {
		return Claim{}, errf(at + " must be a mapping")
	}
	if err := checkFields(at, m, claimFields(schema)); err != nil {
		return Claim{}, err
	}
	var c Claim
	for _, f := range []struct {
		key string
		dst *string
	}{{"domain_id", &c.DomainID}, {"evidence_revision", &c.EvidenceRevision}, {"signed_by", &c.SignedBy}, {"claim_digest", &c.ClaimDigest}} {
		s, ok := nonEmptyString(m.vals[f.key])
		if !ok {
			return Claim{}, errf(fmt.Sprintf("%s field '%s' must be a non-empty string", at, f.key))
		}
		*f.dst = s
	}
	if _, ok := reg.Resolve(c.SignedBy); !ok {
		return Claim{}, errf(fmt.Sprintf("%s signed_by '%s' does not resolve to a registered reviewer", at, c.SignedBy))
	}
	if !ident.ValidDigest(c.ClaimDigest) {
		return Claim{}, errf(at + " claim_digest must be a lowercase 64-char SHA-256 hex string")
	}
	lanes, ok := stringList(m.vals["evidence_lanes"])
	if !ok || len(lanes) == 0 {
		return Claim{}, errf(at + " field 'evidence_lanes' must be a non-empty list of non-empty strings")
	}
	c.EvidenceLanes = lanes
	if schema == SchemaV2 {
		env, err := parseEnvelope(m.vals["signature"])
		if err != nil {
			return Claim{}, errf(fmt.Sprintf("%s field 'signature' must be a DSSE envelope: %v", at, err))
		}
		c.Signature = &env
	}
	return c, nil
}
