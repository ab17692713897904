package eval

import (
	"fmt"
	"math/big"
	"strconv"
	"strings"
)

// Rate is an exact fraction num/den. A valid rate has den > 0 and
// 0 <= num <= den; nothing else is ever treated as a rate.
type Rate struct {
	Num int64 `json:"num"`
	Den int64 `json:"den"`
}

// NewRate returns num/den as counted; it does not reduce the fraction, so a
// result keeps the counts it was measured with.
func NewRate(num, den int64) Rate { return Rate{Num: num, Den: den} }

// Valid reports whether r is a fraction in [0, 1] with a positive denominator.
func (r Rate) Valid() bool { return r.Den > 0 && r.Num >= 0 && r.Num <= r.Den }

// String prints "num/den".
func (r Rate) String() string { return fmt.Sprintf("%d/%d", r.Num, r.Den) }

// AtLeast reports whether r >= t exactly (cross-multiplied in big integers,
// so no count can overflow). Both must be valid.
func (r Rate) AtLeast(t Threshold) bool {
	lhs := new(big.Int).Mul(big.NewInt(r.Num), big.NewInt(t.den))
	rhs := new(big.Int).Mul(big.NewInt(t.num), big.NewInt(r.Den))
	return lhs.Cmp(rhs) >= 0
}

// ParseRate reads "num/den" (decimal integers, no spaces, no sign).
func ParseRate(s string) (Rate, error) {
	n, d, ok := strings.Cut(s, "/")
	if !ok {
		return Rate{}, fmt.Errorf("rate %q: want num/den", s)
	}
	num, err1 := parseCount(n)
	den, err2 := parseCount(d)
	if err1 != nil || err2 != nil {
		return Rate{}, fmt.Errorf("rate %q: want two non-negative decimal integers", s)
	}
	r := Rate{num, den}
	if !r.Valid() {
		return Rate{}, fmt.Errorf("rate %q: need 0 <= num <= den and den > 0", s)
	}
	return r, nil
}

func parseCount(s string) (int64, error) {
	if s == "" || strings.TrimLeft(s, "0123456789") != "" {
		return 0, fmt.Errorf("not a count: %q", s)
	}
	return strconv.ParseInt(s, 10, 64)
}

// Threshold is a minimum written as a short decimal ("0.95", "1"): it prints
// exactly as written and compares exactly as the fraction it denotes.
type Threshold struct {
	text     string
	num, den int64
}

// Percent is the threshold p/100 for p in [0, 100] (clamped), written as a
// short decimal: Percent(85) is "0.85", Percent(100) is "1".
func Percent(p int64) Threshold {
	p = max(0, min(100, p))
	text := strings.TrimRight(strings.TrimRight(fmt.Sprintf("%d.%02d", p/100, p%100), "0"), ".")
	return threshold(text, p, 100)
}

// threshold builds one of this package's constant thresholds.
func threshold(text string, num, den int64) Threshold {
	return Threshold{text: text, num: num, den: den}
}

// ParseThreshold reads a decimal in [0, 1] with at most 9 fractional digits.
func ParseThreshold(dec string) (Threshold, error) {
	whole, frac, _ := strings.Cut(dec, ".")
	if whole == "" || len(frac) > 9 || strings.TrimLeft(whole+frac, "0123456789") != "" {
		return Threshold{}, fmt.Errorf("threshold %q: want a decimal like 0.95", dec)
	}
	den := int64(1)
	for range frac {
		den *= 10
	}
	num, err := strconv.ParseInt(whole+frac, 10, 64)
	if err != nil || num > den {
		return Threshold{}, fmt.Errorf("threshold %q: must lie in [0, 1]", dec)
	}
	return Threshold{text: dec, num: num, den: den}, nil
}

// String prints the threshold as it was written.
func (t Threshold) String() string { return t.text }
