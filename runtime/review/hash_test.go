package review

import (
	"bytes"
	"strings"
	"testing"

	"formation/canon"
)

// The review hash's direct encoding is canon.Marshal's of the same map,
// byte for byte, whatever the strings hold.
func TestReviewHashIsCanon(t *testing.T) {
	texts := []string{"", "What is light?", "a \"quoted\" word\\", "tab\tline\nctrl\x01", "café 日本語 🙂", "bad\xffutf8", "\u2028"}
	for _, u := range texts {
		for _, v := range texts[:6] {
			o := Outcome{Outcome: v, Rule: "rule." + v, Evidence: v + u}
			if !utf8Valid(o.Outcome) || !utf8Valid(o.Rule) || !utf8Valid(o.Evidence) {
				continue // verdict fields come from the gate's own rules, always valid
			}
			want, err := canon.Marshal(map[string]string{"utterance": toValid(u), "outcome": o.Outcome, "rule": o.Rule, "evidence": o.Evidence})
			if err != nil {
				t.Fatal(err)
			}
			got, err := appendReviewed(nil, u, o)
			if err != nil || !bytes.Equal(got, want) {
				t.Fatalf("utterance %q, outcome %+v:\ndirect %s (%v)\ncanon  %s", u, o, got, err, want)
			}
		}
	}
}

func utf8Valid(s string) bool { return toValid(s) == s }

func toValid(s string) string { return strings.ToValidUTF8(s, "\uFFFD") }
