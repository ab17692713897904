package smelting

import (
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"testing"

	"formation/artifact"
	"formation/relparse"
)

const testDate = "2026-05-16T00:00:00Z"

// digest is the SHA-256 of s, as mining names objects.
func digest(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

// plainEntry is a plain-text entry: its raw bytes are its text, so it has
// no text_sha.
func plainEntry(text, adapter string) artifact.OreEntry {
	return artifact.OreEntry{SourceSHA: digest(text), URL: "file:" + digest(text)[:8] + ".txt", Adapter: adapter,
		RetrievedAt: testDate, ByteLength: int64(len(text))}
}

// smeltV2 smelts with PatternV2, the smelter the conformance vectors and
// the tests of the original's rules run against.
func smeltV2(bundle artifact.OreBundle, texts map[string][]byte) (artifact.SmeltedBundle, error) {
	return SmeltWith(bundle, texts, Options{Extractor: PatternV2})
}

// smeltPlain smelts plain-text sources, one entry each, with PatternV2.
func smeltPlain(t testing.TB, texts ...string) artifact.SmeltedBundle {
	t.Helper()
	bundle := artifact.OreBundle{SubjectID: "subject.test", SchemaVersion: artifact.SchemaVersion}
	m := map[string][]byte{}
	for _, s := range texts {
		bundle.Entries = append(bundle.Entries, plainEntry(s, "file"))
		m[digest(s)] = []byte(s)
	}
	out, err := smeltV2(bundle, m)
	if err != nil {
		t.Fatalf("Smelt: %v", err)
	}
	return out
}

// forEachRef calls fn with every SourceRef of the bundle.
func forEachRef(b artifact.SmeltedBundle, fn func(artifact.SourceRef)) {
	for _, c := range b.Concepts {
		for _, r := range c.Sources {
			fn(r)
		}
	}
	for _, list := range [][]artifact.RelationCandidate{b.Relations, b.Counters} {
		for _, c := range list {
			for _, r := range c.Sources {
				fn(r)
			}
		}
	}
	for _, h := range b.OrderingHints {
		for _, r := range h.Sources {
			fn(r)
		}
	}
}

// checkRef asserts the span contract: the ref names the text by digest,
// carries this smelter's id, and its span is exactly text[start:end], a
// sentence with no surrounding whitespace.
func checkRef(t testing.TB, ref artifact.SourceRef, text string) {
	t.Helper()
	if !ref.HasSpanRange() || !slices.Contains(Extractors(), ref.Extractor) {
		t.Fatalf("ref without a byte range or extractor: %+v", ref)
	}
	if ref.TextSHA != digest(text) {
		t.Fatalf("ref names text %s, but the text hashes to %s", ref.TextSHA, digest(text))
	}
	start, end := *ref.Start, *ref.End
	if start < 0 || end <= start || end > int64(len(text)) {
		t.Fatalf("range [%d, %d) outside the %d-byte text", start, end, len(text))
	}
	if got := text[start:end]; got != ref.Span {
		t.Fatalf("span %q, but text[%d:%d] is %q", ref.Span, start, end, got)
	}
	if relparse.TrimSpace(ref.Span) != ref.Span {
		t.Fatalf("span %q has surrounding whitespace", ref.Span)
	}
}

// keys returns the candidates of a bundle as short readable lines, without
// sources: "concept term = definition", "relation (h r t)", "counter (h r
// t)", "hint before < after".
func keys(b artifact.SmeltedBundle) []string {
	var out []string
	for _, c := range b.Concepts {
		out = append(out, "concept "+c.CanonicalTerm+" = "+c.Definition)
	}
	for _, r := range b.Relations {
		out = append(out, "relation ("+r.Head+" "+r.Relation+" "+r.Tail+")")
	}
	for _, r := range b.Counters {
		out = append(out, "counter ("+r.Head+" "+r.Relation+" "+r.Tail+")")
	}
	for _, h := range b.OrderingHints {
		out = append(out, "hint "+h.Before+" < "+h.After)
	}
	return out
}

// smeltPlainWith smelts plain-text sources, one entry each, with opts.
func smeltPlainWith(t testing.TB, opts Options, texts ...string) artifact.SmeltedBundle {
	t.Helper()
	bundle := artifact.OreBundle{SubjectID: "subject.test", SchemaVersion: artifact.SchemaVersion}
	m := map[string][]byte{}
	for _, s := range texts {
		bundle.Entries = append(bundle.Entries, plainEntry(s, "file"))
		m[digest(s)] = []byte(s)
	}
	out, err := SmeltWith(bundle, m, opts)
	if err != nil {
		t.Fatalf("Smelt: %v", err)
	}
	return out
}
