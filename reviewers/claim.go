package reviewers

import (
	"bytes"
	"crypto/ed25519"
	"encoding/base64"
	"errors"
	"fmt"

	"go.yaml.in/yaml/v3"

	"formation/canon"
	"formation/signing"
)

// ClaimPayloadType is the DSSE payloadType of a signed claim.
const ClaimPayloadType = "application/vnd.formation.audit-passed-claim+json"

// Envelope is a DSSE envelope (field names as in the DSSE specification).
// It mirrors signing.Envelope with YAML tags, since a claim's envelope is
// written inside reviewers.yaml; the encoding and the PAE are promote's.
type Envelope struct {
	PayloadType string      `json:"payloadType" yaml:"payloadType"`
	Payload     string      `json:"payload" yaml:"payload"` // standard base64
	Signatures  []Signature `json:"signatures" yaml:"signatures"`
}

// Signature is one DSSE signature. KeyID is the lowercase hex SHA-256 of
// the raw public key; Sig is standard base64.
type Signature struct {
	KeyID string `json:"keyid" yaml:"keyid"`
	Sig   string `json:"sig" yaml:"sig"`
}

func (e Envelope) clone() Envelope {
	e.Signatures = append([]Signature(nil), e.Signatures...)
	return e
}

// KeyID names a public key: the lowercase hex SHA-256 of its 32 bytes, as
// promote names curator keys.
func KeyID(pub ed25519.PublicKey) string { return signing.KeyID(pub) }

// claimBody is what a claim signature covers: every claim field but the
// signature, in canonical JSON.
type claimBody struct {
	ClaimDigest      string   `json:"claim_digest"`
	DomainID         string   `json:"domain_id"`
	EvidenceLanes    []string `json:"evidence_lanes"`
	EvidenceRevision string   `json:"evidence_revision"`
	SignedBy         string   `json:"signed_by"`
}

// ClaimPayload is the canonical JSON of a claim without its signature: the
// exact bytes a signature covers. Lanes keep the order the claim lists them.
func ClaimPayload(c Claim) ([]byte, error) {
	lanes := c.EvidenceLanes
	if lanes == nil {
		lanes = []string{}
	}
	b, err := canon.Marshal(claimBody{c.ClaimDigest, c.DomainID, lanes, c.EvidenceRevision, c.SignedBy})
	if err != nil {
		return nil, fmt.Errorf("reviewers: claim payload: %w", err)
	}
	return b, nil
}

// SignClaim returns c with a DSSE envelope signed by key. The caller names
// the signer in c.SignedBy; the key must be that reviewer's.
func SignClaim(c Claim, key ed25519.PrivateKey) (Claim, error) {
	payload, err := ClaimPayload(c)
	if err != nil {
		return Claim{}, err
	}
	pub, ok := key.Public().(ed25519.PublicKey)
	if !ok || len(key) != ed25519.PrivateKeySize {
		return Claim{}, errors.New("reviewers: sign claim: not an ed25519 private key")
	}
	sig := ed25519.Sign(key, signing.PAE(ClaimPayloadType, payload))
	c.Signature = &Envelope{
		PayloadType: ClaimPayloadType,
		Payload:     base64.StdEncoding.EncodeToString(payload),
		Signatures:  []Signature{{KeyID: KeyID(pub), Sig: base64.StdEncoding.EncodeToString(sig)}},
	}
	return c, nil
}

// VerifyClaim checks that a claim is signed by the reviewer it names: the
// envelope's payload must equal the claim's own canonical payload byte for
// byte, and one of its signatures must verify under that reviewer's key.
// The error (nil when the claim verifies) is a one-line reason.
func (r *Registry) VerifyClaim(c Claim) error {
	if c.Signature == nil {
		return errf(fmt.Sprintf("claim for domain '%s' is unsigned (schema_version %d registry); only a signed schema_version 2 claim can pass", c.DomainID, r.schema))
	}
	signer, ok := r.Resolve(c.SignedBy)
	if !ok || len(signer.PublicKey) != ed25519.PublicKeySize {
		return errf(fmt.Sprintf("claim signer '%s' has no registered public key", c.SignedBy))
	}
	env := c.Signature
	if env.PayloadType != ClaimPayloadType {
		return errf(fmt.Sprintf("claim signature payloadType %q is not %q", env.PayloadType, ClaimPayloadType))
	}
	signed, err := base64.StdEncoding.Strict().DecodeString(env.Payload)
	if err != nil {
		return errf("claim signature payload is not standard base64")
	}
	want, err := ClaimPayload(c)
	if err != nil {
		return errf(err.Error())
	}
	if !bytes.Equal(signed, want) {
		return errf("claim fields differ from the signed payload (changed after signing)")
	}
	pae := signing.PAE(env.PayloadType, signed)
	kid := KeyID(signer.PublicKey)
	for _, s := range env.Signatures {
		if (s.KeyID == "" || s.KeyID == kid) && signing.Verify(signer.PublicKey, pae, s.Sig) {
			return nil
		}
	}
	return errf(fmt.Sprintf("no claim signature verifies against signer '%s' public key %s", c.SignedBy, kid[:16]))
}

// parseEnvelope reads the structure of a DSSE envelope; it does not verify.
func parseEnvelope(n *yaml.Node) (Envelope, error) {
	m, ok := asMapping(n)
	if !ok {
		return Envelope{}, errors.New("not a mapping")
	}
	fields := []string{"payloadType", "payload", "signatures"}
	if unk := m.unknown(fields); len(unk) > 0 {
		return Envelope{}, errors.New("unknown fields " + pyList(unk))
	}
	if miss := m.missing(fields); len(miss) > 0 {
		return Envelope{}, errors.New("missing fields " + pyList(miss))
	}
	var env Envelope
	var okT, okP bool
	env.PayloadType, okT = nonEmptyString(m.vals["payloadType"])
	env.Payload, okP = nonEmptyString(m.vals["payload"])
	if !okT || !okP {
		return Envelope{}, errors.New("payloadType and payload must be non-empty strings")
	}
	sigs := m.vals["signatures"]
	if sigs.Kind != yaml.SequenceNode || len(sigs.Content) == 0 {
		return Envelope{}, errors.New("signatures must be a non-empty list")
	}
	for j, item := range sigs.Content {
		s, err := parseSignature(item)
		if err != nil {
			return Envelope{}, fmt.Errorf("signatures[%d]: %w", j, err)
		}
		env.Signatures = append(env.Signatures, s)
	}
	return env, nil
}

func parseSignature(n *yaml.Node) (Signature, error) {
	m, ok := asMapping(n)
	if !ok {
		return Signature{}, errors.New("not a mapping")
	}
	if unk := m.unknown([]string{"keyid", "sig"}); len(unk) > 0 {
		return Signature{}, errors.New("unknown fields " + pyList(unk))
	}
	sig, ok := nonEmptyString(m.vals["sig"])
	if !ok {
		return Signature{}, errors.New("sig must be a non-empty string")
	}
	s := Signature{Sig: sig}
	if kn, present := m.vals["keyid"]; present {
		if kn.Kind != yaml.ScalarNode || kn.Tag != "!!str" {
			return Signature{}, errors.New("keyid must be a string")
		}
		s.KeyID = kn.Value
	}
	return s, nil
}
