package smelting

import (
	"slices"
	"strings"

	"formation/artifact"
	"formation/relparse"
)

// SentenceReport is what one sentence of a mined text yielded.
type SentenceReport struct {
	TextSHA string  `json:"text_sha"`
	URL     string  `json:"url"` // the smallest URL of the entries carrying the text
	Start   int     `json:"start"`
	End     int     `json:"end"`
	Text    string  `json:"text"` // the sentence, white space collapsed
	Yielded []Yield `json:"yielded"`
	Reason  string  `json:"reason,omitempty"` // why it yielded nothing (a Reason* code)
}

// Yield is one candidate a sentence yielded: its kind (concept, relation,
// counter, hint) and its key (term and definition; head, relation and
// tail; before and after).
type Yield struct {
	Kind string   `json:"kind"`
	Key  []string `json:"key"`
}

// Sentences reports every sentence of every text of the bundle, texts in
// digest order and sentences in text order, with what each yielded under
// opts or why it yielded nothing. It refuses what SmeltWith refuses.
func Sentences(bundle artifact.OreBundle, texts map[string][]byte, opts Options) ([]SentenceReport, error) {
	id, err := opts.extractor()
	if err != nil {
		return nil, err
	}
	groups, err := groupEntries(bundle.Entries, texts)
	if err != nil {
		return nil, err
	}
	read := newTextReader(id, opts.Relations)
	var out []SentenceReport
	for _, g := range groups {
		url := g.entries[0].URL
		for _, e := range g.entries {
			url = min(url, e.URL)
		}
		read(g.text, nil, func(start, end int, yielded []hit, reason string) {
			r := SentenceReport{TextSHA: g.key, URL: url, Start: start, End: end,
				Text: relparse.CollapseSpace(g.text[start:end]), Yielded: []Yield{}, Reason: reason}
			for _, h := range yielded {
				r.Yielded = append(r.Yielded, h.yield())
			}
			slices.SortFunc(r.Yielded, func(a, b Yield) int {
				return strings.Compare(a.Kind+"\x00"+strings.Join(a.Key, "\x00"), b.Kind+"\x00"+strings.Join(b.Key, "\x00"))
			})
			r.Yielded = slices.CompactFunc(r.Yielded, func(a, b Yield) bool { return a.Kind == b.Kind && slices.Equal(a.Key, b.Key) })
			out = append(out, r)
		})
	}
	return out, nil
}

// yield names a hit as a report does.
func (h hit) yield() Yield {
	switch h.kind {
	case kindConcept:
		return Yield{Kind: "concept", Key: []string{h.a, h.b}}
	case kindHint:
		return Yield{Kind: "hint", Key: []string{h.a, h.b}}
	case kindCounter:
		return Yield{Kind: "counter", Key: []string{h.a, h.b, h.c}}
	}
	return Yield{Kind: "relation", Key: []string{h.a, h.b, h.c}}
}
