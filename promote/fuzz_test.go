package promote

import (
	"bytes"
	"encoding/base64"
	"testing"

	"formation/canon"
)

// FuzzVerifyEnvelope: any bytes are either refused with an *Error or are an
// envelope whose signed payload is a canonical promotion statement.
func FuzzVerifyEnvelope(f *testing.F) {
	k, err := GenerateKey(bytes.NewReader(bytes.Repeat([]byte{1}, 32)))
	if err != nil {
		f.Fatal(err)
	}
	env, err := Sign(sampleStatement(), k)
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
		e, err := DecodeEnvelope(raw)
		if err != nil {
			return
		}
		st, err := OpenEnvelope(e, trusted)
		if err != nil {
			if _, ok := err.(*Error); !ok {
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
