package packs

import (
	"testing"

	"formation/canon"
)

func TestReadNumber(t *testing.T) {
	good := []struct {
		in   any
		want float64
	}{
		{canon.Number("0"), 0},
		{canon.Number("-3"), -3},
		{canon.Float("0.45"), 0.45},
		{canon.Float("-0.0"), 0},
		{canon.Float("1e-3"), 0.001},
		{"0.45", 0.45},
		{"0.450", 0.45},
		{"-0", 0},
		{"10", 10},
		{"-0.7", -0.7},
	}
	for _, c := range good {
		got, ok := readNumber(c.in)
		if !ok || got != c.want {
			t.Errorf("readNumber(%#v) = %v, %v; want %v", c.in, got, ok, c.want)
		}
	}
	bad := []any{
		nil, true, []any{}, "", "-", ".5", "5.", "05", "1e3", "0x1p-2", "NaN", "Inf", "+1", " 1", "1 ", "1_0",
		canon.Float("1e400"), canon.Float("-1e400"),
	}
	for _, in := range bad {
		if got, ok := readNumber(in); ok {
			t.Errorf("readNumber(%#v) accepted as %v", in, got)
		}
	}
}

func TestFormatDecimal(t *testing.T) {
	for in, want := range map[float64]string{
		0.45: "0.45", 1: "1", 0: "0", -0.7: "-0.7", 1e-7: "0.0000001", 10: "10",
	} {
		if got := formatDecimal(in); got != want {
			t.Errorf("formatDecimal(%v) = %q, want %q", in, got, want)
		}
	}
	a, b := 0.1, 0.2 // variables, so the sum is rounded at run time
	if got := formatDecimal(a + b); got != "0.30000000000000004" {
		t.Errorf("shortest round-trip text lost: %q", got)
	}
}

func TestPyRepr(t *testing.T) {
	for in, want := range map[string]string{
		"abc":              `'abc'`,
		"it's":             `"it's"`,
		`it's "x"`:         `'it\'s "x"'`,
		`a\b`:              `'a\\b'`,
		"a\nb\tc\r":        `'a\nb\tc\r'`,
		"\x00\x7f":         `'\x00\x7f'`,
		"é\u200b":          `'é\u200b'`,
		"\xff":             `'\xff'`,
		"../../etc/passwd": `'../../etc/passwd'`,
	} {
		if got := pyRepr(in); got != want {
			t.Errorf("pyRepr(%q) = %s, want %s", in, got, want)
		}
	}
	if got := pyList([]string{"a", "b"}); got != "['a', 'b']" {
		t.Errorf("pyList = %s", got)
	}
	if got := pyList(nil); got != "[]" {
		t.Errorf("pyList(nil) = %s", got)
	}
}

func TestPrefix(t *testing.T) {
	if got := prefix("ééééé", 3); got != "ééé" {
		t.Errorf("prefix = %q", got)
	}
	if got := prefix("ab", 12); got != "ab" {
		t.Errorf("prefix = %q", got)
	}
}
