package reviewed

import (
	"bytes"
	"crypto/ed25519"
	"encoding/base64"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"formation/artifact"
	"formation/canon"
	"formation/internal/exitcode"
	"formation/signing"
)

func sampleStatement() Statement {
	r := artifact.MasteryReport{CourseID: "course.x.v1", ReportSHA256: strings.Repeat("a", 64), ValidatedSetSHA: strings.Repeat("b", 64),
		CourseSHA256: strings.Repeat("c", 64), PlanSHA256: strings.Repeat("d", 64), IssuedAt: "2026-05-16T00:00:00Z"}
	return NewStatement(r, strings.Repeat("e", 64), 5, 10, 2, "")
}

func TestEnvelopeSignsTheCanonicalStatement(t *testing.T) {
	k := fixedKey(t, 1)
	st := sampleStatement()
	env, err := SignPromotion(st, k)
	if err != nil {
		t.Fatal(err)
	}
	payload, _ := base64.StdEncoding.DecodeString(env.Payload)
	want, _ := canon.Marshal(st)
	if string(payload) != string(want) || env.PayloadType != "application/vnd.in-toto+json" || env.Signatures[0].KeyID != k.KeyID {
		t.Fatalf("envelope %+v", env)
	}
	if !strings.HasPrefix(string(payload), `{"_type":"https://in-toto.io/Statement/v1","predicate":{`) ||
		!strings.Contains(string(payload), `"predicateType":"https://formation.dev/promotion/v1","subject":[{"digest":{"sha256":"aaaa`) {
		t.Fatalf("statement bytes %s", payload)
	}
	sig, _ := base64.StdEncoding.DecodeString(env.Signatures[0].Sig)
	if !ed25519.Verify(k.Public, signing.PAE(PayloadType, payload), sig) {
		t.Fatal("the signature does not cover the PAE of the payload")
	}
	again, _ := SignPromotion(st, k)
	if again.Signatures[0].Sig != env.Signatures[0].Sig {
		t.Fatal("signing is not deterministic")
	}
	got, err := OpenPromotion(env, k.Trusted())
	if err != nil || got.Predicate.PromotedTriples != 10 || got.Predicate.CourseID != "course.x.v1" {
		t.Fatalf("open: %+v %v", got, err)
	}
}

func TestVerifyEnvelopeRefusals(t *testing.T) {
	k := fixedKey(t, 1)
	good, _ := SignPromotion(sampleStatement(), k)
	resign := func(payload []byte) signing.Envelope {
		sig := ed25519.Sign(k.Private(), signing.PAE(PayloadType, payload))
		return signing.Envelope{PayloadType: PayloadType, Payload: base64.StdEncoding.EncodeToString(payload),
			Signatures: []signing.Signature{{KeyID: k.KeyID, Sig: base64.StdEncoding.EncodeToString(sig)}}}
	}
	payload, _ := base64.StdEncoding.DecodeString(good.Payload)
	mismatched := sampleStatement()
	mismatched.Subject[0].Digest["sha256"] = strings.Repeat("f", 64)
	mismatchedBytes, _ := canon.Marshal(mismatched)
	otherType := sampleStatement()
	otherType.PredicateType = "https://example.com/other"
	otherTypeBytes, _ := canon.Marshal(otherType)

	cases := []struct {
		name   string
		env    signing.Envelope
		trust  signing.TrustedKeys
		reason string
	}{
		{"another key", good, fixedKey(t, 2).Trusted(), signing.ReasonUntrustedKey},
		{"payload changed", func() signing.Envelope {
			e := good
			e.Payload = base64.StdEncoding.EncodeToString([]byte(strings.Replace(string(payload), `"promoted_triples":10`, `"promoted_triples":11`, 1)))
			return e
		}(), k.Trusted(), signing.ReasonSignatureInvalid},
		{"payload type", func() signing.Envelope { e := good; e.PayloadType = "application/json"; return e }(), k.Trusted(), signing.ReasonPayloadType},
		{"no signature", func() signing.Envelope { e := good; e.Signatures = nil; return e }(), k.Trusted(), signing.ReasonNoSignatures},
		{"an extra untrusted signature", func() signing.Envelope {
			e := good
			e.Signatures = append([]signing.Signature{}, good.Signatures...)
			e.Signatures = append(e.Signatures, signing.Signature{KeyID: fixedKey(t, 2).KeyID, Sig: good.Signatures[0].Sig})
			return e
		}(), k.Trusted(), signing.ReasonUntrustedKey},
		{"not base64", func() signing.Envelope { e := good; e.Payload = "!!"; return e }(), k.Trusted(), signing.ReasonEnvelopeBad},
		{"signed but not canonical", resign([]byte(" " + string(payload))), k.Trusted(), ReasonStatementBad},
		{"subject is not the predicate's report", resign(mismatchedBytes), k.Trusted(), ReasonStatementBad},
		{"another predicate type", resign(otherTypeBytes), k.Trusted(), ReasonStatementBad},
	}
	for _, c := range cases {
		_, err := OpenPromotion(c.env, c.trust)
		wantRefusal(t, err, exitcode.SealInvalid, c.reason)
	}
	if _, err := OpenPromotion(resign(payload), k.Trusted()); err != nil {
		t.Fatalf("re-signing the same bytes: %v", err)
	}
}

func TestVerifyEnvelopeFile(t *testing.T) {
	dir := t.TempDir()
	k := fixedKey(t, 1)
	if err := signing.WriteKeyFiles(filepath.Join(dir, "curator"), k, ""); err != nil {
		t.Fatal(err)
	}
	other := fixedKey(t, 2)
	if err := signing.WriteKeyFiles(filepath.Join(dir, "other"), other, ""); err != nil {
		t.Fatal(err)
	}
	env, _ := SignPromotion(sampleStatement(), k)
	raw, _ := canon.Marshal(env)
	envPath := filepath.Join(dir, "promotion.dsse.json")
	if err := os.WriteFile(envPath, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	if ok, why := VerifyEnvelopeFile(envPath, filepath.Join(dir, "curator.pub")); !ok {
		t.Fatalf("valid envelope: %s", why)
	}
	if ok, why := VerifyEnvelopeFile(envPath, filepath.Join(dir, "other.pub")); ok || !strings.Contains(why, signing.ReasonUntrustedKey) {
		t.Fatalf("other key: %v %s", ok, why)
	}
	if ok, why := VerifyEnvelopeFile(envPath, ""); ok || !strings.Contains(why, "trusted") {
		t.Fatalf("no trusted keys: %v %s", ok, why)
	}
	if ok, _ := VerifyEnvelopeFile(filepath.Join(dir, "curator.pub"), filepath.Join(dir, "curator.pub")); ok {
		t.Fatal("a key file verified as an envelope")
	}
	doc, _ := canon.Decode(raw)
	if !signing.LooksLikeEnvelope(doc) {
		t.Fatal("LooksLikeEnvelope misses an envelope")
	}
}

func fixedKey(t *testing.T, b byte) signing.SigningKey {
	t.Helper()
	k, err := signing.GenerateKey(bytes.NewReader(bytes.Repeat([]byte{b}, 32)))
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// wantRefusal checks the exit code and reason of a refusal of this package
// or of package signing.
func wantRefusal(t *testing.T, err error, code int, reason string) {
	t.Helper()
	var (
		re *Error
		se *signing.Error
	)
	got := ""
	switch {
	case errors.As(err, &re):
		got = re.Reason
	case errors.As(err, &se):
		got = se.Reason
	}
	if got != reason || exitcode.Of(err) != code {
		t.Fatalf("error %v (exit %d), want %s exit %d", err, exitcode.Of(err), reason, code)
	}
}
