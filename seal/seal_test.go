package seal_test

import (
	"os"
	"strings"
	"testing"

	"formation/canon"
	"formation/internal/testutil"
	"formation/seal"
)

func loadSealVectors(t *testing.T) *canon.Object {
	t.Helper()
	raw, err := os.ReadFile(testutil.Vector(t, "seal.json"))
	if err != nil {
		t.Fatal(err)
	}
	// The file holds one deliberate float (float_in_payload_throws), so it is
	// read tolerantly; the float then makes canonicalisation fail, as it must.
	v, err := canon.DecodeTolerant(raw)
	if err != nil {
		t.Fatal(err)
	}
	return v.(*canon.Object)
}

func get(o *canon.Object, k string) any { v, _ := o.Get(k); return v }

// invertedVerify lists the verify vectors whose expectation this port inverts
// on purpose: the original throws when a sealed payload holds a float; here
// verification never throws and reports the seal invalid instead.
var invertedVerify = map[string]string{
	"error": "a float inside a sealed payload: the original throws, VerifySeal says invalid (reason: not canonicalisable)",
}

func TestSealVectors(t *testing.T) {
	root := loadSealVectors(t)
	cases := get(root, "cases").([]any)
	if len(cases) == 0 {
		t.Fatal("no cases")
	}
	verified := 0
	for _, ci := range cases {
		c := ci.(*canon.Object)
		name := get(c, "name").(string)
		field := get(c, "seal_field").(string)
		t.Run(name, func(t *testing.T) {
			sealed, digest, err := seal.SelfSeal(get(c, "payload").(*canon.Object), field)
			if err != nil {
				t.Fatal(err)
			}
			if digest != get(c, "sealed_digest") {
				t.Fatalf("digest %s, want %s", digest, get(c, "sealed_digest"))
			}
			want, _ := canon.Marshal(get(c, "sealed"))
			got, _ := canon.Marshal(sealed)
			if string(got) != string(want) {
				t.Fatalf("sealed map differs")
			}
			for _, vi := range get(c, "verify").([]any) {
				v := vi.(*canon.Object)
				vname := get(v, "name").(string)
				r := seal.VerifySeal(get(v, "payload"), get(v, "seal_field").(string))
				switch expect := get(v, "expect").(type) {
				case bool:
					if r.Valid != expect {
						t.Errorf("%s: valid=%v reason=%q, want %v", vname, r.Valid, r.Reason, expect)
					}
					if !r.Valid && r.Reason == "" {
						t.Errorf("%s: invalid without a reason", vname)
					}
				case string:
					if _, ok := invertedVerify[expect]; !ok {
						t.Fatalf("%s: unknown expectation %q", vname, expect)
					}
					if r.Valid || r.Reason != seal.ReasonNotCanonicalised {
						t.Errorf("%s: inverted vector: got %+v, want invalid/%s", vname, r, seal.ReasonNotCanonicalised)
					}
				}
				verified++
			}
		})
	}
	if verified < 100 {
		t.Fatalf("only %d verify vectors ran", verified)
	}
}

func TestSealErrors(t *testing.T) {
	root := loadSealVectors(t)
	for _, ei := range get(root, "seal_errors").([]any) {
		e := ei.(*canon.Object)
		_, _, err := seal.SelfSeal(get(e, "payload").(*canon.Object), get(e, "seal_field").(string))
		if err == nil {
			t.Fatalf("%s: sealed without error", get(e, "name"))
		}
		msg := get(e, "error_message").(string)
		if strings.Contains(msg, "missing required field") && !strings.Contains(err.Error(), "missing required field") {
			t.Errorf("%s: %v", get(e, "name"), err)
		}
		if strings.Contains(msg, "float") && !canon.IsKind(err, canon.KindFloat) {
			t.Errorf("%s: %v is not a float refusal", get(e, "name"), err)
		}
	}
}

func TestVerifyReasons(t *testing.T) {
	base := canon.NewObject()
	base.Set("course_id", "x")
	base.Set("report_sha256", "")
	sealed, d, err := seal.SelfSeal(base, "report_sha256")
	if err != nil || d != "ff030eb9038e71e50e7ead6a64d98acf83193be7c320c7f281e464c9a48972d5" {
		t.Fatalf("literal seal %s %v", d, err)
	}
	with := func(v any) *canon.Object { o := sealed.Clone(); o.Set("report_sha256", v); return o }
	noField := sealed.Clone()
	noField.Delete("report_sha256")
	floaty := sealed.Clone()
	floaty.Set("x", canon.Float("1.5"))
	for _, c := range []struct {
		in     any
		reason string
	}{
		{noField, seal.ReasonNoField},
		{"not an object", seal.ReasonNoField},
		{nil, seal.ReasonNoField},
		{with(canon.Number("1")), seal.ReasonNotString},
		{with(""), seal.ReasonEmpty},
		{with(strings.ToUpper(d)), seal.ReasonNotHex},
		{with(strings.Repeat("0", 64)), seal.ReasonMismatch},
		{floaty, seal.ReasonNotCanonicalised},
	} {
		if r := seal.VerifySeal(c.in, "report_sha256"); r.Valid || r.Reason != c.reason {
			t.Errorf("VerifySeal(%v) = %+v, want %q", c.in, r, c.reason)
		}
	}
	if r := seal.VerifySeal(sealed, "report_sha256"); !r.Valid {
		t.Fatalf("sealed object does not verify: %+v", r)
	}
}
