package forge

import (
	"bytes"
	"slices"
	"testing"
)

// FuzzLoadAllowlist: any bytes either load or are refused, never a panic;
// what loads writes back to canonical bytes that load to the same entries
// and exclusions. Its seed corpus lives in testdata/fuzz/FuzzLoadAllowlist.
func FuzzLoadAllowlist(f *testing.F) {
	f.Add([]byte("- source_sha: \"1111111111111111111111111111111111111111111111111111111111111111\"\n  tier: primary\n  label: a\n"))
	f.Add([]byte("- source_sha: aaaa\n  tier: primary\n"))
	f.Add([]byte("- {source_sha: \"2222222222222222222222222222222222222222222222222222222222222222\", tier: llm, label: x, curated: true}\n"))
	f.Add([]byte("[]"))
	f.Add([]byte("- &a {tier: primary}\n- *a\n"))
	f.Add([]byte("sources:\n  - source_sha: \"1111111111111111111111111111111111111111111111111111111111111111\"\n    tier: primary\nexclude:\n  - text_sha: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\n    start: 0\n    end: 12\n    reason: a table header\n"))
	f.Add([]byte("exclude:\n  - {sentence_sha: bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb, reason: misread}\n"))
	f.Add([]byte("sources: []\nexclude: [{text_sha: x, start: 1, end: 0, sentence_sha: y}]\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		a, err := LoadAllowlist(data)
		if err != nil {
			return
		}
		out, err := a.Bytes()
		if err != nil {
			t.Fatalf("a loaded allow-list does not write back: %v", err)
		}
		b, err := LoadAllowlist(out)
		if err != nil {
			t.Fatalf("written allow-list does not load: %v\n%s", err, out)
		}
		sameExclusion := func(x, y Exclusion) bool { return x.sameTarget(y) && x.Reason == y.Reason }
		if !slices.Equal(a.Entries(), b.Entries()) || !slices.EqualFunc(a.Exclusions(), b.Exclusions(), sameExclusion) {
			t.Fatalf("written allow-list loads differently:\n%s", out)
		}
		again, _ := b.Bytes()
		if !bytes.Equal(out, again) {
			t.Fatalf("allow-list bytes not stable:\n%s\n%s", out, again)
		}
	})
}
