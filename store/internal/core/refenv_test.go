package core

import (
	"bytes"
	"errors"
	"math"
	"testing"
)

func TestRefEnvelopeRoundTrip(t *testing.T) {
	for _, c := range []struct {
		gen   uint64
		value []byte
	}{{1, nil}, {2, []byte("abc")}, {math.MaxUint64, []byte("x\ny\n")}, {7, []byte(refMagic + "9\n")}} {
		raw := EncodeRef(c.gen, c.value)
		gen, value, err := DecodeRef(raw)
		if err != nil || gen != c.gen || !bytes.Equal(value, c.value) {
			t.Fatalf("DecodeRef(EncodeRef(%d, %q)) = %d, %q, %v", c.gen, c.value, gen, value, err)
		}
	}
}

func TestRefEnvelopeRejects(t *testing.T) {
	for _, raw := range []string{
		"", "value only", refMagic, refMagic + "\n", refMagic + "0\nx", refMagic + "01\nx",
		refMagic + "-1\nx", refMagic + "1x\n", refMagic + "18446744073709551616\n", "formation-ref/2 gen=1\n",
	} {
		if _, _, err := DecodeRef([]byte(raw)); err == nil {
			t.Errorf("DecodeRef(%q) accepted", raw)
		}
	}
}

func TestErrorUnwrap(t *testing.T) {
	cause := errors.New("cause")
	err := E("op", "key", ErrCorrupt, cause)
	if !errors.Is(err, ErrCorrupt) || !errors.Is(err, cause) || errors.Is(err, ErrNotFound) {
		t.Fatal("kind and cause not both visible")
	}
	if errors.Is(E("op", "", nil, nil), ErrCorrupt) {
		t.Fatal("empty error matches a kind")
	}
	if got := E("op", "", nil, nil).Error(); got != "store: op" {
		t.Fatalf("Error() = %q", got)
	}
}
