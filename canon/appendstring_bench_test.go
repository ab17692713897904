package canon

import (
	"strings"
	"testing"
)

// BenchmarkAppendString appends the strings of a run's turn events (short
// keys and statuses, digests, and sentences): the run stage writes tens of
// megabytes of them through AppendString.
func BenchmarkAppendString(b *testing.B) {
	strs := []string{"speculative", "definition", "term4711", strings.Repeat("ab12", 16),
		"(speculative, from the curated notes) term4711 is a thing4711 — as the source words it, and so on",
		"what is term4711?", "accepted", "G1_replay_determinism", "1.0", strings.Repeat("word ", 40)}
	n := 0
	for _, s := range strs {
		n += len(s) + 2
	}
	b.SetBytes(int64(n))
	buf := make([]byte, 0, 1<<20)
	for b.Loop() {
		buf = buf[:0]
		for _, s := range strs {
			var err error
			if buf, err = AppendString(buf, s); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// AppendString writes what Marshal writes for a string, and refuses what
// Marshal refuses with the same error, leaving dst as it was.
func TestAppendStringIsMarshal(t *testing.T) {
	pieces := []string{"plain", "digest0123456789abcdef", "\"", "\\", "\n", "\x01", "\x7f", "é", "→", "\xff", "\xe2\x86", " "}
	r := uint32(1)
	for range 20000 {
		var sb strings.Builder
		r = r*1664525 + 1013904223
		for k := int(r>>28) + 0; k > 0; k-- {
			r = r*1664525 + 1013904223
			sb.WriteString(pieces[int(r>>16)%len(pieces)])
		}
		s := sb.String()
		want, werr := Marshal(s)
		got, gerr := AppendString([]byte("dst"), s)
		if (werr == nil) != (gerr == nil) || (werr != nil && werr.Error() != gerr.Error()) {
			t.Fatalf("%q: AppendString error %v, Marshal's %v", s, gerr, werr)
		}
		if gerr != nil {
			if string(got) != "dst" {
				t.Fatalf("%q: a refused string left %q", s, got)
			}
			continue
		}
		if string(got) != "dst"+string(want) {
			t.Fatalf("%q: AppendString wrote %q, Marshal %q", s, got[3:], want)
		}
	}
}
