package reviewers

import (
	"bytes"
	"crypto/ed25519"
	"strings"
	"testing"
)

func testKey(seed byte) ed25519.PublicKey {
	return ed25519.NewKeyFromSeed(bytes.Repeat([]byte{seed}, 32)).Public().(ed25519.PublicKey)
}

// registryWith writes a schema 2 registry of reviewers given as
// id → (key, scopes).
func registryWith(entries ...string) string {
	return "schema_version: 2\nreviewers:\n" + strings.Join(entries, "")
}

func reviewerEntry(id string, key ed25519.PublicKey, scopes string) string {
	return "  - reviewer_id: " + id + "\n    display_name: " + id + "\n    role: primary\n    domains: [\"*\"]\n" +
		"    review_scope: [" + scopes + "]\n    provenance: test\n    public_key: " + EncodePublicKey(key) + "\n"
}

// A decision of a teaching proposal names its signer by key: the key finds
// its one reviewer, and only a reviewer with the proposal scope may decide.
func TestProposalScopeByKey(t *testing.T) {
	r := mustParse(t, registryWith(
		reviewerEntry("curator", testKey(1), "proposal"),
		reviewerEntry("packs-only", testKey(2), "pack, eval")))
	if v, ok := r.CanDecideProposals(testKey(1)); !ok || v.ID != "curator" {
		t.Fatalf("curator: %+v %v", v, ok)
	}
	if v, ok := r.CanDecideProposals(testKey(2)); ok || v.ID != "packs-only" {
		t.Fatalf("a reviewer without the proposal scope may decide: %+v %v", v, ok)
	}
	if _, ok := r.CanDecideProposals(testKey(3)); ok {
		t.Fatal("an unregistered key may decide")
	}
	if _, ok := mustParse(t, primaryV1).CanDecideProposals(testKey(1)); ok {
		t.Fatal("a schema 1 registry (no keys) grants a key the proposal scope")
	}
}

// One key, one reviewer; a scope listed once.
func TestKeysAndScopesAreUnique(t *testing.T) {
	for src, want := range map[string]string{
		registryWith(reviewerEntry("a", testKey(1), "proposal"), reviewerEntry("b", testKey(1), "pack")): "has the public_key of reviewer 'a'",
		registryWith(reviewerEntry("a", testKey(1), "proposal, pack, proposal")):                         "repeats review_scope values: ['proposal']",
	} {
		_, err := Parse([]byte(src))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("got %v, want %q", err, want)
		}
	}
}
