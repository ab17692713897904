package canon

import (
	"errors"
	"math/big"
	"sort"
)

// Limits of the decoder; see the package documentation for why these values.
const (
	MaxDepth     = 512
	MaxIntDigits = 4300
)

// Number is an integer of any size in canonical decimal form: an optional
// minus sign and digits without leading zeros; "-0" is normalised to "0".
type Number string

// Int64 returns the value if it fits in an int64.
func (n Number) Int64() (int64, bool) {
	b, ok := new(big.Int).SetString(string(n), 10)
	if !ok || !b.IsInt64() {
		return 0, false
	}
	return b.Int64(), true
}

// Float is the text of a number with a fraction or exponent. Only
// DecodeTolerant produces it, and Marshal refuses it: floats never reach a hash.
type Float string

// Object is a JSON object that remembers the order its keys arrived in.
// Marshal writes it with keys sorted; the order is kept for diagnostics and
// for callers that want to show a document the way it was written.
type Object struct {
	keys []string
	vals map[string]any
}

// NewObject returns an empty object.
func NewObject() *Object { return &Object{vals: map[string]any{}} }

// Len is the number of keys.
func (o *Object) Len() int { return len(o.keys) }

// Keys returns the keys in insertion order.
func (o *Object) Keys() []string { return append([]string(nil), o.keys...) }

// SortedKeys returns the keys in code-point order.
func (o *Object) SortedKeys() []string {
	ks := o.Keys()
	sort.Strings(ks)
	return ks
}

// Get returns the value under key.
func (o *Object) Get(key string) (any, bool) {
	v, ok := o.vals[key]
	return v, ok
}

// Has reports whether key is present.
func (o *Object) Has(key string) bool { _, ok := o.vals[key]; return ok }

// Set adds or replaces key.
func (o *Object) Set(key string, v any) {
	if _, ok := o.vals[key]; !ok {
		o.keys = append(o.keys, key)
	}
	o.vals[key] = v
}

// Delete removes key if present.
func (o *Object) Delete(key string) {
	if _, ok := o.vals[key]; !ok {
		return
	}
	delete(o.vals, key)
	for i, k := range o.keys {
		if k == key {
			o.keys = append(o.keys[:i:i], o.keys[i+1:]...)
			break
		}
	}
}

// String returns the string under key, or "" and false.
func (o *Object) String(key string) (string, bool) {
	v, ok := o.vals[key].(string)
	return v, ok
}

// Clone is a shallow copy: a new key set sharing the values.
func (o *Object) Clone() *Object {
	c := &Object{keys: append([]string(nil), o.keys...), vals: make(map[string]any, len(o.vals))}
	for k, v := range o.vals {
		c.vals[k] = v
	}
	return c
}

// asError unwraps err to a *Error if it is one.
func asError(err error) (*Error, bool) {
	var e *Error
	if errors.As(err, &e) {
		return e, true
	}
	return nil, false
}
