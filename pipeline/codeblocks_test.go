package pipeline_test

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"testing"

	"formation/artifact"
	"formation/mining"
	"formation/smelting"
)

// TestCodeBlocksYieldNothing mines HTML and Markdown documents whose code
// blocks hold claim-shaped lines and smelts them: every candidate cites
// prose, never code, and every cited span is exactly the bytes of the
// extracted text at its range.
func TestCodeBlocksYieldNothing(t *testing.T) {
	docs := []struct{ format, raw string }{
		{"html", "<h1>Lenses</h1><p>A lens is a curved glass.</p>" +
			"<pre>A prism is a wedge of glass.\n\nThe sky is green.</pre>" +
			"<ul><li>A mirror is a reflecting surface.</li></ul><table><tr><td>A shutter is a curtain.</td></tr></table>"},
		{"markdown", "# Lenses\n\nA lens is a curved glass.\n\n```\nA prism is a wedge of glass.\n```\n\n" +
			"    The sky is green.\n\n<!--\nWater is dry.\n-->\n\n- A mirror is a reflecting surface.\n\n| A shutter is a curtain. |\n|---|\n"},
	}
	for _, d := range docs {
		text, err := mining.Extract(d.format, []byte(d.raw))
		if err != nil {
			t.Fatal(err)
		}
		raw := sum(d.raw)
		key := sum(string(text))
		bundle := artifact.OreBundle{SubjectID: "code", SchemaVersion: artifact.SchemaVersion, Entries: []artifact.OreEntry{{
			SourceSHA: raw, TextSHA: key, URL: "file:doc", Adapter: "file", RetrievedAt: "2026-01-01T00:00:00Z", ByteLength: int64(len(d.raw)),
		}}}
		out, err := smelting.Smelt(bundle, map[string][]byte{key: text})
		if err != nil {
			t.Fatal(err)
		}
		var terms []string
		for _, c := range out.Concepts {
			terms = append(terms, c.CanonicalTerm)
			for _, ref := range c.Sources {
				if got := string(text[*ref.Start:*ref.End]); got != ref.Span {
					t.Errorf("%s: span %q is not the text's bytes %q", d.format, ref.Span, got)
				}
			}
		}
		for _, r := range out.Relations {
			if strings.Contains(r.Head, "prism") || strings.Contains(r.Head, "sky") || strings.Contains(r.Head, "water") {
				t.Errorf("%s: relation %v read out of code", d.format, r.Triple())
			}
		}
		if got := strings.Join(terms, ","); got != "lens,mirror,shutter" {
			t.Errorf("%s: concepts %s, want lens,mirror,shutter (each block its own sentence, code never)", d.format, got)
		}
	}
}

func sum(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:])
}
