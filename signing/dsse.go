package signing

import (
	"crypto/ed25519"
	"encoding/base64"
	"strconv"

	"formation/artifact"
	"formation/canon"
	"formation/internal/exitcode"
)

// The in-toto names every Formation statement is signed with: a Statement
// v1 travelling as a DSSE payload of this type.
const (
	InTotoStatementType = "https://in-toto.io/Statement/v1"
	InTotoPayloadType   = "application/vnd.in-toto+json"
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

// Sign wraps payload in an envelope of payloadType signed by k. Ed25519
// signatures are deterministic, so the same payload and key always give the
// same envelope.
func Sign(payloadType string, payload []byte, k SigningKey) Envelope {
	sig := k.Sign(PAE(payloadType, payload))
	return Envelope{
		PayloadType: payloadType,
		Payload:     base64.StdEncoding.EncodeToString(payload),
		Signatures:  []Signature{{KeyID: k.KeyID, Sig: base64.StdEncoding.EncodeToString(sig)}},
	}
}

// Open checks an envelope offline and returns its payload: the payload type
// must be payloadType, the payload strict standard base64, and there must be
// at least one signature, every one of them by a trusted key and valid over
// the PAE. Any failure is an *Error with exit code 77.
func Open(env Envelope, payloadType string, trusted TrustedKeys) ([]byte, error) {
	if env.PayloadType != payloadType {
		return nil, refuse(exitcode.SealInvalid, ReasonPayloadType, "payloadType %q, want %q", env.PayloadType, payloadType)
	}
	payload, err := base64.StdEncoding.Strict().DecodeString(env.Payload)
	if err != nil {
		return nil, refuse(exitcode.SealInvalid, ReasonEnvelopeBad, "payload is not standard base64")
	}
	if len(env.Signatures) == 0 {
		return nil, refuse(exitcode.SealInvalid, ReasonNoSignatures, "the envelope carries no signature")
	}
	pae := PAE(env.PayloadType, payload)
	for i, s := range env.Signatures {
		pub, ok := trusted.Lookup(s.KeyID)
		if !ok {
			return nil, refuse(exitcode.SealInvalid, ReasonUntrustedKey, "signature %d is by key %q, which is not trusted", i, s.KeyID)
		}
		if !Verify(pub, pae, s.Sig) {
			return nil, refuse(exitcode.SealInvalid, ReasonSignatureInvalid, "signature %d by key %s does not verify", i, s.KeyID)
		}
	}
	return payload, nil
}

// Verify reports whether sig (standard base64) is pub's ed25519 signature of
// message.
func Verify(pub ed25519.PublicKey, message []byte, sig string) bool {
	raw, err := base64.StdEncoding.Strict().DecodeString(sig)
	return err == nil && len(pub) == ed25519.PublicKeySize && len(raw) == ed25519.SignatureSize && ed25519.Verify(pub, message, raw)
}

// DecodeEnvelope strictly decodes an envelope document.
func DecodeEnvelope(raw []byte) (Envelope, error) {
	env, err := artifact.Decode[Envelope](raw)
	if err != nil {
		return Envelope{}, refuse(exitcode.SealInvalid, ReasonEnvelopeBad, "%v", err)
	}
	return env, nil
}

// LooksLikeEnvelope reports whether a decoded document has the three DSSE
// fields, so that `formation verify` can classify a file before checking it.
func LooksLikeEnvelope(doc any) bool {
	o, ok := doc.(*canon.Object)
	return ok && o.Has("payloadType") && o.Has("payload") && o.Has("signatures")
}
