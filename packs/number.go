package packs

import (
	"math"
	"strconv"

	"formation/canon"
)

// readNumber accepts the three spellings a pack may use for a number: a JSON
// integer, a JSON float (the original's packs), or a decimal string such as
// "0.45" (the packs this project ships, which must stay canonicalisable).
// Strings are held to plain decimal notation: an optional minus sign, digits
// without a superfluous leading zero, and an optional fraction. Non-finite
// values are refused.
func readNumber(v any) (float64, bool) {
	var text string
	switch x := v.(type) {
	case canon.Number:
		text = string(x)
	case canon.Float:
		text = string(x)
	case string:
		if !isDecimalText(x) {
			return 0, false
		}
		text = x
	default:
		return 0, false
	}
	f, err := strconv.ParseFloat(text, 64)
	if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
		return 0, false
	}
	if f == 0 {
		f = 0 // fold -0 into 0 so that the two never hash differently
	}
	return f, true
}

// isDecimalText matches -?(0|[1-9][0-9]*)(\.[0-9]+)?
func isDecimalText(s string) bool {
	i := 0
	if i < len(s) && s[i] == '-' {
		i++
	}
	start := i
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	whole := i - start
	if whole == 0 || (whole > 1 && s[start] == '0') {
		return false
	}
	if i == len(s) {
		return true
	}
	if s[i] != '.' {
		return false
	}
	i++
	frac := i
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	return i > frac && i == len(s)
}

// formatDecimal is the canonical text of a pack number in hashed payloads:
// the shortest decimal that reads back as the same float64, never in exponent
// form, so 0.45, "0.45" and "0.450" all become "0.45" and 1.0 becomes "1".
func formatDecimal(f float64) string {
	return strconv.FormatFloat(f, 'f', -1, 64)
}

// inRange reports lo <= f <= hi.
func inRange(f, lo, hi float64) bool { return f >= lo && f <= hi }
