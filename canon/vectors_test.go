package canon_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"os"
	"testing"

	"formation/canon"
	"formation/internal/testutil"
)

type vectorFile struct {
	Cases []struct {
		Name         string   `json:"name"`
		InputJSON    string   `json:"input_json"`
		CanonicalB64 string   `json:"canonical_b64"`
		SHA256       string   `json:"sha256"`
		Flags        []string `json:"flags"`
	} `json:"cases"`
	Rejects []struct {
		Name      string `json:"name"`
		InputJSON string `json:"input_json"`
		ErrorKind string `json:"error_kind"`
	} `json:"rejects"`
}

func loadVectors(t *testing.T) vectorFile {
	t.Helper()
	raw, err := os.ReadFile(testutil.Vector(t, "canonical_json.json"))
	if err != nil {
		t.Fatal(err)
	}
	var vf vectorFile
	if err := json.Unmarshal(raw, &vf); err != nil {
		t.Fatal(err)
	}
	if len(vf.Cases) == 0 || len(vf.Rejects) == 0 {
		t.Fatal("no vectors loaded")
	}
	return vf
}

// Every accepted case decodes, re-encodes to the exact bytes and digest of the
// original, including the integers beyond int64: this port keeps arbitrary
// precision up to MaxIntDigits, so no vector is inverted here.
func TestCanonicalVectors(t *testing.T) {
	for _, c := range loadVectors(t).Cases {
		t.Run(c.Name, func(t *testing.T) {
			want, err := base64.StdEncoding.DecodeString(c.CanonicalB64)
			if err != nil {
				t.Fatal(err)
			}
			v, err := canon.Decode([]byte(c.InputJSON))
			if err != nil {
				t.Fatalf("decode: %v", err)
			}
			got, err := canon.Marshal(v)
			if err != nil {
				t.Fatalf("marshal: %v", err)
			}
			if !bytes.Equal(got, want) {
				t.Fatalf("bytes differ\n got %q\nwant %q", got, want)
			}
			sum := sha256.Sum256(got)
			if hex.EncodeToString(sum[:]) != c.SHA256 {
				t.Fatalf("digest differs")
			}
			// decode∘encode is the identity on canonical bytes.
			again, err := canon.Decode(got)
			if err != nil {
				t.Fatal(err)
			}
			b2, _ := canon.Marshal(again)
			if !bytes.Equal(b2, got) {
				t.Fatal("not idempotent")
			}
		})
	}
}

// The original's error kinds map one to one onto this package's kinds; the two
// "python_limit" cases are refused by our documented limits (4300 digits,
// depth 512) rather than by an interpreter limit.
func TestCanonicalRejects(t *testing.T) {
	kinds := map[string]canon.Kind{
		"float_forbidden":     canon.KindFloat,
		"invalid_unicode":     canon.KindInvalidUnicode,
		"int_too_many_digits": canon.KindIntTooLong,
		"recursion_limit":     canon.KindDepth,
	}
	for _, c := range loadVectors(t).Rejects {
		t.Run(c.Name, func(t *testing.T) {
			want, ok := kinds[c.ErrorKind]
			if !ok {
				t.Fatalf("unmapped error kind %q", c.ErrorKind)
			}
			_, err := canon.Decode([]byte(c.InputJSON))
			if !canon.IsKind(err, want) {
				t.Fatalf("got %v, want kind %s", err, want)
			}
		})
	}
}
