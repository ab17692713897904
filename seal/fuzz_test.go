package seal_test

import (
	"testing"

	"formation/canon"
	"formation/seal"
)

// FuzzVerifySeal: verification of arbitrary documents (floats allowed, as in
// the original's pack files) never panics, an invalid verdict always has a
// reason, and sealing an accepted object always verifies afterwards.
func FuzzVerifySeal(f *testing.F) {
	for _, s := range []string{
		`{"course_id":"x","report_sha256":"ff030eb9038e71e50e7ead6a64d98acf83193be7c320c7f281e464c9a48972d5"}`,
		`{"report_sha256":""}`, `{"report_sha256":1}`, `{"report_sha256":"AB"}`, `{"x":1.5,"report_sha256":"00"}`,
		`[]`, `"s"`, `{}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		doc, err := canon.DecodeTolerant(data)
		if err != nil {
			return
		}
		r := seal.VerifySeal(doc, seal.DefaultField)
		if !r.Valid && r.Reason == "" {
			t.Fatal("invalid without a reason")
		}
		obj, ok := doc.(*canon.Object)
		if !ok || !obj.Has(seal.DefaultField) {
			return
		}
		sealed, _, err := seal.SelfSeal(obj, seal.DefaultField)
		if err != nil {
			return // floats cannot be sealed
		}
		if v := seal.VerifySeal(sealed, seal.DefaultField); !v.Valid {
			t.Fatalf("freshly sealed object does not verify: %s", v.Reason)
		}
	})
}
