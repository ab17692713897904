package ident

import (
	"strings"
	"testing"
)

func TestDigest(t *testing.T) {
	good := strings.Repeat("0123456789abcdef", 4)
	if d, err := ParseDigest(good); err != nil || d.String() != good {
		t.Fatalf("%v %v", d, err)
	}
	for _, bad := range []string{"", good[:63], good + "0", strings.ToUpper(good), strings.Repeat("g", 64), good[:63] + " "} {
		if ValidDigest(bad) {
			t.Errorf("%q accepted", bad)
		}
		if _, err := ParseDigest(bad); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
}

func TestID(t *testing.T) {
	for _, good := range []string{"optics", "course.optics.definition.1.0.0", "a_b-c", "A", strings.Repeat("x", MaxIDLen)} {
		if err := CheckID(good); err != nil {
			t.Errorf("%q: %v", good, err)
		}
	}
	for _, bad := range []string{"", ".hidden", "a..b", "..", "a/b", "a b", "é", "a\x00", strings.Repeat("x", MaxIDLen+1)} {
		if _, err := ParseSubjectID(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

func FuzzCheckID(f *testing.F) {
	for _, s := range []string{"optics", ".x", "a..b", "a/b", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		err := CheckID(s)
		safe := s != "" && len(s) <= MaxIDLen && s[0] != '.' && !strings.Contains(s, "..") &&
			strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") == ""
		if (err == nil) != safe {
			t.Fatalf("CheckID(%q) = %v", s, err)
		}
	})
}
