// Package seal implements the self-seal protocol of mastery reports and other
// sealed artifacts: a named field holds the SHA-256 of the artifact's canonical
// JSON computed with that field blanked to "". Verification never panics and
// never repairs: every malformed input is simply an invalid seal with a reason.
package seal

import (
	"fmt"

	"formation/canon"
	"formation/ident"
)

// DefaultField is the seal field of mastery reports.
const DefaultField = "report_sha256"

// Reasons returned by VerifySeal for an invalid seal.
const (
	ReasonNoField          = "no seal field"
	ReasonNotString        = "seal not a string"
	ReasonEmpty            = "empty seal"
	ReasonNotHex           = "seal not 64 lowercase hex"
	ReasonMismatch         = "seal mismatch"
	ReasonNotCanonicalised = "not canonicalisable"
)

// Result is the verdict of VerifySeal.
type Result struct {
	Valid  bool   `json:"valid"`
	Reason string `json:"reason"` // empty when Valid
}

// SHA256Of is the lowercase hex SHA-256 of v's canonical JSON.
func SHA256Of(v any) (string, error) {
	return canon.SHA256Hex(v)
}

// SelfSeal returns a copy of obj whose field holds the seal, and the seal.
// The field must already be present (its old value is ignored), as in the
// original: sealing never invents a field.
func SelfSeal(obj *canon.Object, field string) (*canon.Object, string, error) {
	if obj == nil || !obj.Has(field) {
		return nil, "", fmt.Errorf("self_seal: payload missing required field %q", field)
	}
	c := obj.Clone()
	c.Set(field, "")
	digest, err := canon.SHA256Hex(c)
	if err != nil {
		return nil, "", fmt.Errorf("self_seal: %w", err)
	}
	c.Set(field, digest)
	return c, digest, nil
}

// VerifySeal checks the seal held in field. v is a decoded document (an
// *canon.Object, or a map[string]any); anything else has no seal field.
func VerifySeal(v any, field string) Result {
	obj, ok := asObject(v)
	if !ok {
		return Result{Reason: ReasonNoField}
	}
	claimed, present := obj.Get(field)
	if !present {
		return Result{Reason: ReasonNoField}
	}
	s, isString := claimed.(string)
	switch {
	case !isString:
		return Result{Reason: ReasonNotString}
	case s == "":
		return Result{Reason: ReasonEmpty}
	case !ident.ValidDigest(s):
		return Result{Reason: ReasonNotHex}
	}
	c := obj.Clone()
	c.Set(field, "")
	digest, err := canon.SHA256Hex(c)
	if err != nil {
		return Result{Reason: ReasonNotCanonicalised}
	}
	if digest != s {
		return Result{Reason: ReasonMismatch}
	}
	return Result{Valid: true}
}

func asObject(v any) (*canon.Object, bool) {
	switch x := v.(type) {
	case *canon.Object:
		return x, x != nil
	case map[string]any:
		o := canon.NewObject()
		for k, val := range x {
			o.Set(k, val)
		}
		return o, true
	}
	return nil, false
}
