package promote

import (
	"crypto/ed25519"
	"encoding/base64"
	"fmt"
	"strconv"

	"formation/artifact"
	"formation/canon"
	"formation/internal/exitcode"
)

// Envelope is a DSSE envelope. Payload and every Sig are standard base64
// with padding.
type Envelope struct {
	PayloadType string      `json:"payloadType"`
	Payload     string      `json:"payload"`
	Signatures  []Signature `json:"signatures"`
}

// Signature is one DSSE signature; KeyID is the signer's key id.
type Signature struct {
	KeyID string `json:"keyid"`
	Sig   string `json:"sig"`
}

// PAE is DSSE's pre-authentication encoding of a payload: what is signed.
func PAE(payloadType string, payload []byte) []byte {
	out := []byte("DSSEv1 ")
	out = strconv.AppendInt(out, int64(len(payloadType)), 10)
	out = append(out, ' ')
	out = append(out, payloadType...)
	out = append(out, ' ')
	out = strconv.AppendInt(out, int64(len(payload)), 10)
	out = append(out, ' ')
	return append(out, payload...)
}

// Sign wraps the canonical bytes of st in an envelope signed by k. Ed25519
// signatures are deterministic, so the same statement and key always give
// the same envelope.
func Sign(st Statement, k SigningKey) (Envelope, error) {
	payload, err := canon.Marshal(st)
	if err != nil {
		return Envelope{}, fmt.Errorf("promote: encode statement: %w", err)
	}
	sig := ed25519.Sign(k.private, PAE(PayloadType, payload))
	return Envelope{
		PayloadType: PayloadType,
		Payload:     base64.StdEncoding.EncodeToString(payload),
		Signatures:  []Signature{{KeyID: k.KeyID, Sig: base64.StdEncoding.EncodeToString(sig)}},
	}, nil
}

// VerifyEnvelope checks an envelope offline: the payload type, every
// signature (each must come from a trusted key and verify over the PAE), and
// the statement inside. Any failure is an *Error with exit code 77.
func VerifyEnvelope(env Envelope, trusted TrustedKeys) error {
	_, err := OpenEnvelope(env, trusted)
	return err
}

// OpenEnvelope verifies env like VerifyEnvelope and returns its statement.
func OpenEnvelope(env Envelope, trusted TrustedKeys) (Statement, error) {
	if env.PayloadType != PayloadType {
		return Statement{}, refuse(exitcode.SealInvalid, ReasonPayloadType, "payloadType %q, want %q", env.PayloadType, PayloadType)
	}
	payload, err := base64.StdEncoding.Strict().DecodeString(env.Payload)
	if err != nil {
		return Statement{}, refuse(exitcode.SealInvalid, ReasonEnvelopeBad, "payload is not standard base64")
	}
	if len(env.Signatures) == 0 {
		return Statement{}, refuse(exitcode.SealInvalid, ReasonNoSignatures, "the envelope carries no signature")
	}
	pae := PAE(env.PayloadType, payload)
	for i, s := range env.Signatures {
		pub, ok := trusted.lookup(s.KeyID)
		if !ok {
			return Statement{}, refuse(exitcode.SealInvalid, ReasonUntrustedKey, "signature %d is by key %q, which is not trusted", i, s.KeyID)
		}
		sig, err := base64.StdEncoding.Strict().DecodeString(s.Sig)
		if err != nil || len(sig) != ed25519.SignatureSize || !ed25519.Verify(pub, pae, sig) {
			return Statement{}, refuse(exitcode.SealInvalid, ReasonSignatureInvalid, "signature %d by key %s does not verify", i, s.KeyID)
		}
	}
	return parseStatement(payload)
}

// DecodeEnvelope strictly decodes an envelope document.
func DecodeEnvelope(raw []byte) (Envelope, error) {
	env, err := artifact.Decode[Envelope](raw)
	if err != nil {
		return Envelope{}, refuse(exitcode.SealInvalid, ReasonEnvelopeBad, "%v", err)
	}
	return env, nil
}

// VerifyEnvelopeFile is `formation verify --trusted-keys FILE` for an
// envelope file: valid, or invalid with a reason. It never panics.
func VerifyEnvelopeFile(path, trustedKeysPath string) (valid bool, reason string) {
	if trustedKeysPath == "" {
		return false, "no trusted keys: pass --trusted-keys FILE or set FORMATION_TRUSTED_KEYS"
	}
	trusted, err := LoadTrustedKeys(trustedKeysPath)
	if err != nil {
		return false, err.Error()
	}
	raw, err := readSmall(path)
	if err != nil {
		return false, err.Error()
	}
	env, err := DecodeEnvelope(raw)
	if err != nil {
		return false, err.Error()
	}
	if err := VerifyEnvelope(env, trusted); err != nil {
		return false, err.Error()
	}
	return true, ""
}

// LooksLikeEnvelope reports whether a decoded document has the three DSSE
// fields, so that `formation verify` can classify a file before checking it.
func LooksLikeEnvelope(doc any) bool {
	o, ok := doc.(*canon.Object)
	return ok && o.Has("payloadType") && o.Has("payload") && o.Has("signatures")
}
