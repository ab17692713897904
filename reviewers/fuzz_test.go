package reviewers

import (
	"os"
	"path/filepath"
	"testing"

	"formation/internal/testutil"
)

// FuzzParseRegistry: any bytes either load as a registry or give a *Error;
// never a panic. Whatever loads answers its queries without panicking, a
// claim that verifies names a registered signer, every key finds exactly its
// own reviewer, and only a reviewer with the proposal scope may decide
// teaching proposals.
func FuzzParseRegistry(f *testing.F) {
	// The original's registry is a seed only where its artifacts are present.
	if dir, err := testutil.OriginalDir(); err == nil {
		if raw, err := os.ReadFile(filepath.Join(dir, "docs", "reviewers.yaml")); err == nil {
			f.Add(raw)
		}
	}
	f.Add([]byte("schema_version: 2\nreviewers: []\n"))
	f.Add([]byte("schema_version: 1\nreviewers:\n  - reviewer_id: a\n    display_name: A\n    role: primary\n"))
	f.Add([]byte("schema_version: 2\nreviewers: [{reviewer_id: a}]\naudit_passed_claims: [{domain_id: d}]\n"))
	f.Add([]byte("{"))
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := Parse(data)
		if err != nil {
			if _, ok := err.(*Error); !ok {
				t.Fatalf("untyped error %T: %v", err, err)
			}
			return
		}
		for _, c := range r.Claims() {
			if r.VerifyClaim(c) == nil {
				if _, ok := r.Resolve(c.SignedBy); !ok {
					t.Fatalf("claim of %q verifies without a registered signer", c.SignedBy)
				}
			}
			r.CanReview(c.SignedBy, c.DomainID, "eval")
		}
		for _, v := range r.Reviewers() {
			if v.PublicKey == nil {
				if _, ok := r.CanDecideProposals(v.PublicKey); ok {
					t.Fatalf("reviewer %q without a key may decide proposals", v.ID)
				}
				continue
			}
			got, ok := r.ReviewerForKey(v.PublicKey)
			if !ok || got.ID != v.ID {
				t.Fatalf("the key of %q finds %q", v.ID, got.ID)
			}
			if _, may := r.CanDecideProposals(v.PublicKey); may != contains(v.ReviewScope, ScopeProposal) {
				t.Fatalf("reviewer %q: may decide proposals %v with scopes %v", v.ID, may, v.ReviewScope)
			}
		}
	})
}
