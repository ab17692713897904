package core

import (
	"bytes"
	"errors"
	"strconv"
)

// A ref is stored as a one-line header followed by the raw value:
//
//	formation-ref/1 gen=<n>\n<value>
//
// The generation grows by one with every successful write of the ref, so the
// stored bytes (and with them the file backend's version hash and the S3
// ETag) never repeat, even when a value is written back: no ABA.
const refMagic = "formation-ref/1 gen="

// EncodeRef returns the stored form of a ref value at generation gen.
func EncodeRef(gen uint64, value []byte) []byte {
	out := make([]byte, 0, len(refMagic)+21+len(value))
	return append(AppendRefHeader(out, gen), value...)
}

// AppendRefHeader appends what comes before the value in the stored form
// of a ref at generation gen, for a writer that sends a large value on
// without copying it behind the header.
func AppendRefHeader(dst []byte, gen uint64) []byte {
	dst = append(dst, refMagic...)
	dst = strconv.AppendUint(dst, gen, 10)
	return append(dst, '\n')
}

// DecodeRef parses the stored form of a ref.
func DecodeRef(raw []byte) (gen uint64, value []byte, err error) {
	rest, ok := bytes.CutPrefix(raw, []byte(refMagic))
	if !ok {
		return 0, nil, errors.New("ref envelope: missing header")
	}
	num, value, ok := bytes.Cut(rest, []byte{'\n'})
	if !ok {
		return 0, nil, errors.New("ref envelope: header not terminated")
	}
	gen, err = strconv.ParseUint(string(num), 10, 64)
	if err != nil || gen == 0 || num[0] == '0' {
		return 0, nil, errors.New("ref envelope: bad generation")
	}
	return gen, value, nil
}
