package reviewed

import (
	"bytes"
	"encoding/base64"
	"errors"
	"testing"

	"formation/canon"
	"formation/signing"
)

// FuzzOpenPromotion: any bytes are either refused with a typed error or are
// an envelope whose signed payload is a canonical promotion statement.
func FuzzOpenPromotion(f *testing.F) {
	k, err := signing.GenerateKey(bytes.NewReader(bytes.Repeat([]byte{1}, 32)))
	if err != nil {
		f.Fatal(err)
	}
	env, err := SignPromotion(sampleStatement(), k)
	if err != nil {
		f.Fatal(err)
	}
	good, _ := canon.Marshal(env)
	f.Add(good)
	f.Add([]byte(`{"payloadType":"application/vnd.in-toto+json","payload":"","signatures":[]}`))
	f.Add([]byte(`{"payloadType":1}`))
	f.Add([]byte("null"))
	trusted := k.Trusted()
	f.Fuzz(func(t *testing.T, raw []byte) {
		e, err := signing.DecodeEnvelope(raw)
		if err != nil {
			return
		}
		st, err := OpenPromotion(e, trusted)
		if err != nil {
			var (
				re *Error
				se *signing.Error
			)
			if !errors.As(err, &re) && !errors.As(err, &se) {
				t.Fatalf("untyped error %T: %v", err, err)
			}
			return
		}
		payload, _ := base64.StdEncoding.DecodeString(e.Payload)
		again, err := canon.Marshal(st)
		if err != nil || !bytes.Equal(again, payload) {
			t.Fatalf("accepted a payload that is not the statement's canonical bytes")
		}
	})
}
