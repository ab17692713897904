package reviewers

import (
	"crypto/ed25519"
	"crypto/rand"
	"encoding/base64"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"formation/signing"
)

type testSigner struct {
	id   string
	priv ed25519.PrivateKey
}

func newSigner(t *testing.T, id string) testSigner {
	t.Helper()
	pemKey, _, err := GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	priv, err := ParsePrivateKey(pemKey)
	if err != nil {
		t.Fatal(err)
	}
	return testSigner{id, priv}
}

func (s testSigner) reviewer() Reviewer {
	return Reviewer{ID: s.id, DisplayName: "Reviewer " + s.id, Role: RolePrimary, Domains: []string{Wildcard},
		ReviewScope: scopes(), Provenance: "test", PublicKey: s.priv.Public().(ed25519.PublicKey)}
}

func signedClaim(t *testing.T, s testSigner) Claim {
	t.Helper()
	c, err := SignClaim(Claim{DomainID: "example", EvidenceLanes: []string{"domain_qa", "fabrication_control"},
		EvidenceRevision: "rev-1", SignedBy: s.id, ClaimDigest: strings.Repeat("b", 64)}, s.priv)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func renderParse(t *testing.T, rs []Reviewer, cs []Claim) (*Registry, string) {
	t.Helper()
	src, err := Render(SchemaV2, rs, cs)
	if err != nil {
		t.Fatal(err)
	}
	r, err := Parse([]byte(src))
	if err != nil {
		t.Fatalf("parse rendered registry: %v\n%s", err, src)
	}
	return r, src
}

func TestSignedClaimVerifies(t *testing.T) {
	s := newSigner(t, "demo")
	r, _ := renderParse(t, []Reviewer{s.reviewer()}, []Claim{signedClaim(t, s)})
	if r.SchemaVersion() != SchemaV2 {
		t.Fatalf("schema %d", r.SchemaVersion())
	}
	c, ok := r.ClaimFor("example")
	if !ok {
		t.Fatal("no claim")
	}
	if err := r.VerifyClaim(c); err != nil {
		t.Fatalf("verify: %v", err)
	}
}

// Changing any one claim field after signing breaks the signature, and the
// reason says the fields differ from what was signed.
func TestTamperedClaimFieldFails(t *testing.T) {
	s := newSigner(t, "demo")
	base := signedClaim(t, s)
	mutations := map[string]func(*Claim){
		"domain":   func(c *Claim) { c.DomainID = "other" },
		"lanes":    func(c *Claim) { c.EvidenceLanes = []string{"fabrication_control", "domain_qa"} },
		"revision": func(c *Claim) { c.EvidenceRevision = "rev-2" },
		"digest":   func(c *Claim) { c.ClaimDigest = strings.Repeat("c", 64) },
	}
	for name, mutate := range mutations {
		t.Run(name, func(t *testing.T) {
			c := base.clone()
			mutate(&c)
			r, _ := renderParse(t, []Reviewer{s.reviewer()}, []Claim{c})
			got, _ := r.ClaimFor(c.DomainID)
			err := r.VerifyClaim(got)
			if err == nil || !strings.Contains(err.Error(), "differ from the signed payload") {
				t.Fatalf("err = %v", err)
			}
		})
	}
}

func TestTamperedSignatureFails(t *testing.T) {
	s := newSigner(t, "demo")
	c := signedClaim(t, s)
	sig, _ := base64.StdEncoding.DecodeString(c.Signature.Signatures[0].Sig)
	sig[0] ^= 1
	c.Signature.Signatures[0].Sig = base64.StdEncoding.EncodeToString(sig)
	r, _ := renderParse(t, []Reviewer{s.reviewer()}, []Claim{c})
	got, _ := r.ClaimFor("example")
	if err := r.VerifyClaim(got); err == nil || !strings.Contains(err.Error(), "no claim signature verifies") {
		t.Fatalf("err = %v", err)
	}
}

// A claim signed by one reviewer's key but naming another does not verify.
func TestClaimSignedWithAnotherKeyFails(t *testing.T) {
	alice, mallory := newSigner(t, "alice"), newSigner(t, "mallory")
	c, err := SignClaim(Claim{DomainID: "example", EvidenceLanes: []string{"domain_qa"}, EvidenceRevision: "r",
		SignedBy: "alice", ClaimDigest: strings.Repeat("d", 64)}, mallory.priv)
	if err != nil {
		t.Fatal(err)
	}
	r, _ := renderParse(t, []Reviewer{alice.reviewer(), mallory.reviewer()}, []Claim{c})
	got, _ := r.ClaimFor("example")
	if err := r.VerifyClaim(got); err == nil || !strings.Contains(err.Error(), "signer 'alice'") {
		t.Fatalf("err = %v", err)
	}
}

func TestWrongPayloadTypeFails(t *testing.T) {
	s := newSigner(t, "demo")
	c := signedClaim(t, s)
	c.Signature.PayloadType = "application/json"
	r, _ := renderParse(t, []Reviewer{s.reviewer()}, []Claim{c})
	got, _ := r.ClaimFor("example")
	if err := r.VerifyClaim(got); err == nil || !strings.Contains(err.Error(), "payloadType") {
		t.Fatalf("err = %v", err)
	}
}

func TestV2ValidationErrors(t *testing.T) {
	s := newSigner(t, "demo")
	_, src := renderParse(t, []Reviewer{s.reviewer()}, []Claim{signedClaim(t, s)})
	pub := EncodePublicKey(s.priv.Public().(ed25519.PublicKey))
	cases := []struct{ name, old, new, want string }{
		{"missing public key", "    public_key: " + pub + "\n", "", "missing required fields: ['public_key']"},
		{"short public key", pub, "AAAA", "public_key"},
		{"public key not base64", pub, "not base64!", "public_key"},
		{"unknown claim field", "    signature:", "    unsigned:", "unknown fields"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			mod := strings.Replace(src, c.old, c.new, 1)
			if mod == src {
				t.Fatalf("mutation %q not applied", c.old)
			}
			_, err := Parse([]byte(mod))
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v, want %q", err, c.want)
			}
		})
	}
}

func TestV2ClaimSignatureShape(t *testing.T) {
	s := newSigner(t, "demo")
	unsigned := signedClaim(t, s)
	unsigned.Signature = nil
	src, err := Render(SchemaV2, []Reviewer{s.reviewer()}, []Claim{unsigned})
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct{ name, extra, want string }{
		{"missing", "", "missing required fields: ['signature']"},
		{"scalar", "    signature: nope\n", "DSSE envelope: not a mapping"},
		{"no signatures", "    signature: {payloadType: a, payload: b, signatures: []}\n", "signatures must be a non-empty list"},
		{"missing payload", "    signature: {payloadType: a, signatures: [{sig: x}]}\n", "missing fields ['payload']"},
		{"extra field", "    signature: {payloadType: a, payload: b, signatures: [{sig: x}], cert: c}\n", "unknown fields ['cert']"},
		{"sig missing", "    signature: {payloadType: a, payload: b, signatures: [{keyid: k}]}\n", "sig must be a non-empty string"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse([]byte(src + c.extra))
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v, want %q", err, c.want)
			}
		})
	}
}

func TestClaimBlockIndentsUnderKey(t *testing.T) {
	s := newSigner(t, "demo")
	block, err := ClaimBlock(signedClaim(t, s))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(block, "  - domain_id: example\n") {
		t.Fatalf("block starts %q", block[:min(40, len(block))])
	}
	src := "schema_version: 2\nreviewers:\n"
	rs, _ := Render(SchemaV2, []Reviewer{s.reviewer()}, nil)
	src = rs + "audit_passed_claims:\n" + block
	r, err := Parse([]byte(src))
	if err != nil {
		t.Fatalf("registry with pasted block: %v", err)
	}
	c, _ := r.ClaimFor("example")
	if err := r.VerifyClaim(c); err != nil {
		t.Fatal(err)
	}
}

func TestParsePrivateKeyForms(t *testing.T) {
	pemKey, pubB64, err := GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	priv, err := ParsePrivateKey(pemKey)
	if err != nil {
		t.Fatal(err)
	}
	if EncodePublicKey(priv.Public().(ed25519.PublicKey)) != pubB64 {
		t.Fatal("public key does not match")
	}
	seed := base64.StdEncoding.EncodeToString(priv.Seed())
	if k, err := ParsePrivateKey([]byte(seed + "\n")); err != nil || !k.Equal(priv) {
		t.Fatalf("seed form: %v", err)
	}
	if _, err := ParsePrivateKey([]byte("AAAA")); err == nil {
		t.Fatal("3-byte key accepted")
	}
	bad := append([]byte(nil), priv...)
	bad[40] ^= 1
	if _, err := ParsePrivateKey([]byte(base64.StdEncoding.EncodeToString(bad))); err == nil {
		t.Fatal("inconsistent 64-byte key accepted")
	}
	if _, err := ParsePrivateKey([]byte("-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----\n")); err == nil {
		t.Fatal("public key PEM accepted as private")
	}
}

// A key written by `formation keygen` signs claims, and its public half is
// the registry's public_key.
func TestPromoteKeyFileSigns(t *testing.T) {
	k, err := signing.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "reviewer.key")
	if err := signing.WriteKeyFiles(path, k, "demo"); err != nil {
		t.Fatal(err)
	}
	priv, err := LoadPrivateKey(path)
	if err != nil {
		t.Fatal(err)
	}
	if !priv.Public().(ed25519.PublicKey).Equal(k.Public) {
		t.Fatal("derived key differs from the key file's")
	}
	s := testSigner{"demo", priv}
	r, _ := renderParse(t, []Reviewer{s.reviewer()}, []Claim{signedClaim(t, s)})
	c, _ := r.ClaimFor("example")
	if err := r.VerifyClaim(c); err != nil {
		t.Fatal(err)
	}
	if c.Signature.Signatures[0].KeyID != k.KeyID {
		t.Fatal("key id differs from promote's")
	}
	if err := os.Chmod(path, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadPrivateKey(path); err == nil {
		t.Fatal("a world-readable key file was accepted")
	}
}
