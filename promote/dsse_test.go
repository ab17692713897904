package promote

import (
	"crypto/ed25519"
	"encoding/base64"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"formation/artifact"
	"formation/canon"
	"formation/internal/exitcode"
)

func sampleStatement() Statement {
	r := artifact.MasteryReport{CourseID: "course.x.v1", ReportSHA256: strings.Repeat("a", 64), ValidatedSetSHA: strings.Repeat("b", 64),
		CourseSHA256: strings.Repeat("c", 64), PlanSHA256: strings.Repeat("d", 64), IssuedAt: "2026-05-16T00:00:00Z"}
	return NewStatement(r, strings.Repeat("e", 64), 5, 10, 2, "")
}

func TestPAEMatchesTheDSSESpec(t *testing.T) {
	// The example of the DSSE protocol description.
	got := string(PAE("http://example.com/HelloWorld", []byte("hello world")))
	if got != "DSSEv1 29 http://example.com/HelloWorld 11 hello world" {
		t.Fatalf("PAE %q", got)
	}
}

func TestEnvelopeSignsTheCanonicalStatement(t *testing.T) {
	k := fixedKey(t, 1)
	st := sampleStatement()
	env, err := Sign(st, k)
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
	if !ed25519.Verify(k.Public, PAE(PayloadType, payload), sig) {
		t.Fatal("the signature does not cover the PAE of the payload")
	}
	again, _ := Sign(st, k)
	if again.Signatures[0].Sig != env.Signatures[0].Sig {
		t.Fatal("signing is not deterministic")
	}
	got, err := OpenEnvelope(env, k.Trusted())
	if err != nil || got.Predicate.PromotedTriples != 10 || got.Predicate.CourseID != "course.x.v1" {
		t.Fatalf("open: %+v %v", got, err)
	}
}

func TestVerifyEnvelopeRefusals(t *testing.T) {
	k := fixedKey(t, 1)
	good, _ := Sign(sampleStatement(), k)
	resign := func(payload []byte) Envelope {
		sig := ed25519.Sign(k.private, PAE(PayloadType, payload))
		return Envelope{PayloadType: PayloadType, Payload: base64.StdEncoding.EncodeToString(payload),
			Signatures: []Signature{{KeyID: k.KeyID, Sig: base64.StdEncoding.EncodeToString(sig)}}}
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
		env    Envelope
		trust  TrustedKeys
		reason string
	}{
		{"another key", good, fixedKey(t, 2).Trusted(), ReasonUntrustedKey},
		{"payload changed", func() Envelope {
			e := good
			e.Payload = base64.StdEncoding.EncodeToString([]byte(strings.Replace(string(payload), `"promoted_triples":10`, `"promoted_triples":11`, 1)))
			return e
		}(), k.Trusted(), ReasonSignatureInvalid},
		{"payload type", func() Envelope { e := good; e.PayloadType = "application/json"; return e }(), k.Trusted(), ReasonPayloadType},
		{"no signature", func() Envelope { e := good; e.Signatures = nil; return e }(), k.Trusted(), ReasonNoSignatures},
		{"an extra untrusted signature", func() Envelope {
			e := good
			e.Signatures = append([]Signature{}, good.Signatures...)
			e.Signatures = append(e.Signatures, Signature{KeyID: fixedKey(t, 2).KeyID, Sig: good.Signatures[0].Sig})
			return e
		}(), k.Trusted(), ReasonUntrustedKey},
		{"not base64", func() Envelope { e := good; e.Payload = "!!"; return e }(), k.Trusted(), ReasonEnvelopeBad},
		{"signed but not canonical", resign([]byte(" " + string(payload))), k.Trusted(), ReasonStatementBad},
		{"subject is not the predicate's report", resign(mismatchedBytes), k.Trusted(), ReasonStatementBad},
		{"another predicate type", resign(otherTypeBytes), k.Trusted(), ReasonStatementBad},
	}
	for _, c := range cases {
		err := VerifyEnvelope(c.env, c.trust)
		wantRefusal(t, err, exitcode.SealInvalid, c.reason)
	}
	if err := VerifyEnvelope(resign(payload), k.Trusted()); err != nil {
		t.Fatalf("re-signing the same bytes: %v", err)
	}
}

func TestVerifyEnvelopeFile(t *testing.T) {
	dir := t.TempDir()
	k := fixedKey(t, 1)
	if err := WriteKeyFiles(filepath.Join(dir, "curator"), k, ""); err != nil {
		t.Fatal(err)
	}
	other := fixedKey(t, 2)
	if err := WriteKeyFiles(filepath.Join(dir, "other"), other, ""); err != nil {
		t.Fatal(err)
	}
	env, _ := Sign(sampleStatement(), k)
	raw, _ := canon.Marshal(env)
	envPath := filepath.Join(dir, "promotion.dsse.json")
	if err := os.WriteFile(envPath, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	if ok, why := VerifyEnvelopeFile(envPath, filepath.Join(dir, "curator.pub")); !ok {
		t.Fatalf("valid envelope: %s", why)
	}
	if ok, why := VerifyEnvelopeFile(envPath, filepath.Join(dir, "other.pub")); ok || !strings.Contains(why, ReasonUntrustedKey) {
		t.Fatalf("other key: %v %s", ok, why)
	}
	if ok, why := VerifyEnvelopeFile(envPath, ""); ok || !strings.Contains(why, "trusted") {
		t.Fatalf("no trusted keys: %v %s", ok, why)
	}
	if ok, _ := VerifyEnvelopeFile(filepath.Join(dir, "curator.pub"), filepath.Join(dir, "curator.pub")); ok {
		t.Fatal("a key file verified as an envelope")
	}
	doc, _ := canon.Decode(raw)
	if !LooksLikeEnvelope(doc) {
		t.Fatal("LooksLikeEnvelope misses an envelope")
	}
}
