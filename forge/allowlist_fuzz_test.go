package forge

import (
	"bytes"
	"testing"
)

// FuzzLoadAllowlist: any bytes either load or are refused, never a panic;
// what loads writes back to canonical bytes that load to the same entries.
func FuzzLoadAllowlist(f *testing.F) {
	f.Add([]byte("- source_sha: \"1111111111111111111111111111111111111111111111111111111111111111\"\n  tier: primary\n  label: a\n"))
	f.Add([]byte("- source_sha: aaaa\n  tier: primary\n"))
	f.Add([]byte("- {source_sha: \"2222222222222222222222222222222222222222222222222222222222222222\", tier: llm, label: x, curated: true}\n"))
	f.Add([]byte("[]"))
	f.Add([]byte("- &a {tier: primary}\n- *a\n"))
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
		again, _ := b.Bytes()
		if !bytes.Equal(out, again) {
			t.Fatalf("allow-list bytes not stable:\n%s\n%s", out, again)
		}
	})
}
