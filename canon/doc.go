// Package canon is Formation's canonical JSON: the one byte form in which every
// artifact is hashed, sealed and stored.
//
// The form is byte-compatible with the original Python system: object keys
// sorted by code point at every level, the separators "," and ":" with no
// whitespace, non-ASCII written as raw UTF-8, Python's escape set for control
// characters (\b \t \n \f \r and \u00xx in lower-case hex, everything else
// raw, including DEL, "/", "<", ">", "&", U+2028 and U+2029), and integers only:
// a float anywhere is an error, never a rounding.
//
// Marshal encodes Go values. Decode parses untrusted bytes into an ordered
// generic value (nil, bool, string, Number, []any, *Object) and refuses, with a
// typed *Error, anything the canonical form cannot carry: floats and exponent
// forms, duplicate keys, invalid UTF-8, lone surrogate escapes, trailing data,
// integers longer than MaxIntDigits and nesting deeper than MaxDepth.
//
// Limits, chosen against the original's conformance vectors: MaxDepth is 512
// (the vectors nest 500 deep and must pass; the original itself gives up near
// 1000) and MaxIntDigits is 4300 (Python's default limit for integer text; the
// 4301-digit vector is rejected as the original rejects it). Integers inside
// those limits are arbitrary precision: Number keeps their decimal text.
package canon
