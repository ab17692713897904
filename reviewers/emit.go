package reviewers

import (
	"fmt"
	"strings"

	"go.yaml.in/yaml/v3"
)

// claimYAML fixes the field order of an emitted claim.
type claimYAML struct {
	DomainID         string    `yaml:"domain_id"`
	EvidenceLanes    []string  `yaml:"evidence_lanes"`
	EvidenceRevision string    `yaml:"evidence_revision"`
	SignedBy         string    `yaml:"signed_by"`
	ClaimDigest      string    `yaml:"claim_digest"`
	Signature        *Envelope `yaml:"signature,omitempty"`
}

// reviewerYAML fixes the field order of an emitted reviewer.
type reviewerYAML struct {
	ReviewerID  string   `yaml:"reviewer_id"`
	DisplayName string   `yaml:"display_name"`
	Role        string   `yaml:"role"`
	Domains     []string `yaml:"domains,flow"`
	ReviewScope []string `yaml:"review_scope,flow"`
	Provenance  string   `yaml:"provenance"`
	PublicKey   string   `yaml:"public_key,omitempty"`
}

// ClaimBlock renders claims as the list items to add under
// audit_passed_claims:, indented by two spaces.
func ClaimBlock(claims ...Claim) (string, error) {
	items := make([]claimYAML, len(claims))
	for i, c := range claims {
		items[i] = claimYAML{c.DomainID, c.EvidenceLanes, c.EvidenceRevision, c.SignedBy, c.ClaimDigest, c.Signature}
	}
	b, err := marshal(items)
	if err != nil {
		return "", fmt.Errorf("reviewers: render claim: %w", err)
	}
	return indent(b, "  "), nil
}

// Render writes a whole registry file: the schema version, the reviewers
// and the claims. Reviewers in schema 2 must carry their public keys.
func Render(schema int, reviewers []Reviewer, claims []Claim) (string, error) {
	rs := make([]reviewerYAML, len(reviewers))
	for i, v := range reviewers {
		rs[i] = reviewerYAML{v.ID, v.DisplayName, v.Role, v.Domains, v.ReviewScope, v.Provenance, ""}
		if schema == SchemaV2 {
			rs[i].PublicKey = EncodePublicKey(v.PublicKey)
		}
	}
	rb, err := marshal(rs)
	if err != nil {
		return "", fmt.Errorf("reviewers: render registry: %w", err)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "schema_version: %d\nreviewers:\n%s", schema, indent(rb, "  "))
	if len(claims) > 0 {
		block, err := ClaimBlock(claims...)
		if err != nil {
			return "", err
		}
		b.WriteString("audit_passed_claims:\n")
		b.WriteString(block)
	}
	return b.String(), nil
}

// marshal renders YAML with two-space indentation.
func marshal(v any) (string, error) {
	var b strings.Builder
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(v); err != nil {
		return "", err
	}
	if err := enc.Close(); err != nil {
		return "", err
	}
	return b.String(), nil
}

func indent(s, prefix string) string {
	lines := strings.SplitAfter(s, "\n")
	var b strings.Builder
	for _, l := range lines {
		if l != "" && l != "\n" {
			b.WriteString(prefix)
		}
		b.WriteString(l)
	}
	return b.String()
}
