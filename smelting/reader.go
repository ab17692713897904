package smelting

import "formation/relparse"

// noteFunc learns what one sentence of a text yielded: the sentence's byte
// range, its hits, and why it yielded nothing (a reason code; "" when it
// yielded something).
type noteFunc func(start, end int, yielded []hit, reason string)

// textReader appends the hits of every sentence of text, in text order, to
// hits (a buffer reused from one text to the next) and, when note is not
// nil, tells note about every sentence.
type textReader func(text string, hits []hit, note noteFunc) []hit

// newTextReader returns the reader of the smelter id (one of Extractors),
// with the subject's declared relations for PatternV3.
func newTextReader(id string, relations []string) textReader {
	if id == PatternV2 {
		return readV2
	}
	return newReaderV3(relations).text
}

// readV2 is PatternV2's reader: the original's sentence splitter and
// patterns, with the corrections README.md lists.
func readV2(text string, hits []hit, note noteFunc) []hit {
	forEachSentence(text, func(start, end int, spaced bool) {
		flat := text[start:end]
		if spaced {
			flat = relparse.CollapseSpace(flat)
		}
		before := len(hits)
		hits = extractSentence(flat, start, end, hits)
		if note != nil {
			reason := ""
			if len(hits) == before {
				reason = ReasonNoPattern
			}
			note(start, end, hits[before:], reason)
		}
	})
	return hits
}
