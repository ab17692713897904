package packs

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"formation/artifact"
	"formation/canon"
	"formation/internal/exitcode"
	"formation/signing"
)

// A human signs every pack ratification: `formation pack promote` wraps an
// in-toto statement about the ratified pack in a DSSE envelope signed with a
// pack key, stored beside the pack. Pack keys are their own trust root,
// separate from curator keys; when the runtime is given trusted pack keys it
// starts only with packs signed by one of them.
const (
	// PackPredicateType names the predicate of a pack promotion.
	PackPredicateType = "https://formation.dev/pack-promotion/v1"
	// signatureSuffix ends the file name of a pack's signed promotion.
	signatureSuffix = ".promotion.dsse.json"
)

// PackStatement is an in-toto Statement v1 about one ratified pack.
type PackStatement struct {
	Type          string        `json:"_type"`
	Subject       []PackSubject `json:"subject"`
	PredicateType string        `json:"predicateType"`
	Predicate     PackPromotion `json:"predicate"`
}

// PackSubject names the pack and its content digest (SourceSHA256).
type PackSubject struct {
	Name   string            `json:"name"`
	Digest map[string]string `json:"digest"`
}

// PackPromotion is what the signer attests: this pack, at this content, was
// ratified by this report.
type PackPromotion struct {
	PackID              string `json:"pack_id"`
	Kind                string `json:"kind"`
	Version             string `json:"version"`
	SchemaVersion       string `json:"schema_version"`
	PackSHA256          string `json:"pack_sha256"`
	MasteryReportSHA256 string `json:"mastery_report_sha256"`
}

// Reasons of pack signature refusals (exit 77).
const (
	ReasonSignatureMissing Reason = "pack_signature_missing"
	ReasonSignatureInvalid Reason = "pack_signature_invalid"
	ReasonSignatureStale   Reason = "pack_signature_stale" // the pack or its report changed after signing
)

// SignatureError says why a pack's signed promotion does not hold.
type SignatureError struct {
	Reason Reason
	PackID string
	Detail string
	Err    error
}

func (e *SignatureError) Error() string { return e.Detail }
func (e *SignatureError) Unwrap() error { return e.Err }

// ExitCode is 77: a signature that does not hold.
func (e *SignatureError) ExitCode() int { return exitcode.SealInvalid }

// SignaturePath is where the signed promotion of the pack at packPath lives.
func SignaturePath(packPath string) string {
	return strings.TrimSuffix(packPath, ".json") + signatureSuffix
}

// IsSignature reports whether a file name is a pack's signed promotion.
func IsSignature(name string) bool { return strings.HasSuffix(name, signatureSuffix) }

// SignPack signs the ratification of the safety or identity pack at path with
// key and writes the envelope beside it. The pack must pass the runtime's
// ratification check first: a human signs a ratification, not a draft.
func SignPack(ctx context.Context, path string, key signing.SigningKey) (PackStatement, error) {
	doc, err := readPackDoc(path)
	if err != nil {
		return PackStatement{}, err
	}
	if _, err := VerifyPackFile(ctx, path, doc); err != nil {
		return PackStatement{}, err
	}
	st, err := statementOf(doc)
	if err != nil {
		return PackStatement{}, err
	}
	payload, err := canon.Marshal(st)
	if err != nil {
		return PackStatement{}, fmt.Errorf("packs: sign: %w", err)
	}
	body, err := canon.Marshal(signing.Sign(signing.InTotoPayloadType, payload, key))
	if err != nil {
		return PackStatement{}, fmt.Errorf("packs: sign: %w", err)
	}
	if err := os.WriteFile(SignaturePath(path), append(body, '\n'), 0o644); err != nil {
		return PackStatement{}, fmt.Errorf("packs: write signature: %w", err)
	}
	return st, nil
}

// VerifyPackSignature checks the signed promotion beside the pack at path
// (doc is the pack as read) against the trusted pack keys: present, signed by
// a trusted key, a well-formed statement, and about exactly this pack's
// content and report.
func VerifyPackSignature(path string, doc *canon.Object, trusted signing.TrustedKeys) error {
	id, _ := doc.String("pack_id")
	fail := func(r Reason, err error, format string, args ...any) error {
		return &SignatureError{Reason: r, PackID: id, Err: err, Detail: fmt.Sprintf("pack %s: "+format, append([]any{id}, args...)...)}
	}
	raw, err := signing.ReadSmall(SignaturePath(path))
	if errors.Is(err, fs.ErrNotExist) {
		return fail(ReasonSignatureMissing, err, "no signed promotion %s; sign the ratified pack with `formation pack promote`", SignaturePath(path))
	}
	if err != nil {
		return fail(ReasonSignatureInvalid, err, "signed promotion unreadable: %v", err)
	}
	env, err := signing.DecodeEnvelope(raw)
	if err != nil {
		return fail(ReasonSignatureInvalid, err, "%v", err)
	}
	payload, err := signing.Open(env, signing.InTotoPayloadType, trusted)
	if err != nil {
		return fail(ReasonSignatureInvalid, err, "%v", err)
	}
	got, err := artifact.Decode[PackStatement](payload)
	if err != nil {
		return fail(ReasonSignatureInvalid, err, "the signed payload is not a pack statement: %v", err)
	}
	if again, err := canon.Marshal(got); err != nil || !bytes.Equal(again, payload) {
		return fail(ReasonSignatureInvalid, err, "the signed payload is not canonical JSON")
	}
	want, err := statementOf(doc)
	if err != nil {
		return fail(ReasonSignatureInvalid, err, "%v", err)
	}
	if got.Type != want.Type || got.PredicateType != want.PredicateType || got.Predicate != want.Predicate ||
		len(got.Subject) != 1 || got.Subject[0].Name != want.Subject[0].Name || got.Subject[0].Digest["sha256"] != want.Predicate.PackSHA256 {
		return fail(ReasonSignatureStale, nil, "the signature is about version %s at content %s with report %s; the pack is version %s at %s with report %s: promote it again",
			got.Predicate.Version, prefix(got.Predicate.PackSHA256, 12), prefix(got.Predicate.MasteryReportSHA256, 12),
			want.Predicate.Version, prefix(want.Predicate.PackSHA256, 12), prefix(want.Predicate.MasteryReportSHA256, 12))
	}
	return nil
}

// statementOf builds the statement a pack's promotion signs.
func statementOf(doc *canon.Object) (PackStatement, error) {
	sum, err := SourceSHA256(doc)
	if err != nil {
		return PackStatement{}, fmt.Errorf("packs: content digest: %w", err)
	}
	p := PackPromotion{Kind: KindOf(doc), PackSHA256: sum}
	p.PackID, _ = doc.String("pack_id")
	p.Version, _ = doc.String("version")
	p.SchemaVersion, _ = doc.String("schema_version")
	p.MasteryReportSHA256, _ = doc.String("mastery_report_sha256")
	return PackStatement{Type: signing.InTotoStatementType, PredicateType: PackPredicateType, Predicate: p,
		Subject: []PackSubject{{Name: p.PackID, Digest: map[string]string{"sha256": sum}}}}, nil
}

// readPackDoc reads a pack file tolerantly (original packs hold floats).
func readPackDoc(path string) (*canon.Object, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, exitcode.With(exitcode.NotFound, fmt.Errorf("packs: %w", err))
	}
	v, err := canon.DecodeTolerant(raw)
	if err != nil {
		return nil, exitcode.With(exitcode.Rejected, fmt.Errorf("packs: %s: %w", path, err))
	}
	doc, ok := v.(*canon.Object)
	if !ok {
		return nil, exitcode.Newf(exitcode.Rejected, "packs: %s is not a JSON object", path)
	}
	return doc, nil
}
