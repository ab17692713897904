package extracteval

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"formation/relparse"
)

// Unit kinds of the label files.
const (
	KindProse   = "prose"
	KindHeading = "heading"
	KindCode    = "code"
	KindOther   = "other"
)

// Set is the labelled set: its documents, in set.json order.
type Set struct {
	Dir       string
	Documents []Document
}

// Document is one labelled document: one or more files mined together.
type Document struct {
	ID        string   `json:"id"`
	Kind      string   `json:"kind"`
	Title     string   `json:"title"`
	Files     []File   `json:"files"`
	Relations []string `json:"relations"`
	Origin    string   `json:"origin"`
	Licence   string   `json:"licence"`
	Units     []Unit   `json:"-"`
}

// File is one file of a document under docs/, with the format it is mined in.
type File struct {
	Name   string `json:"name"`
	Format string `json:"format"`
}

// Unit is one labelled unit of a document's mined text.
type Unit struct {
	File      string       `json:"file"`
	N         int          `json:"n"`
	Kind      string       `json:"kind"`
	Text      string       `json:"text"`
	Relations [][][]string `json:"relations,omitempty"`
	Concepts  [][][]string `json:"concepts,omitempty"`
	Counters  [][][]string `json:"counters,omitempty"`
	Note      string       `json:"note,omitempty"`
}

// HeldOut reports whether the unit belongs to the held-out part: every
// unit whose position is a multiple of 4.
func (u Unit) HeldOut() bool { return u.N%4 == 0 }

// Load reads set.json and every document's labels from dir.
func Load(dir string) (*Set, error) {
	raw, err := os.ReadFile(filepath.Join(dir, "set.json"))
	if err != nil {
		return nil, fmt.Errorf("extracteval: %w", err)
	}
	var manifest struct {
		Documents []Document `json:"documents"`
	}
	if err := decodeManifest(raw, &manifest); err != nil {
		return nil, fmt.Errorf("extracteval: set.json: %w", err)
	}
	set := &Set{Dir: dir, Documents: manifest.Documents}
	for i := range set.Documents {
		d := &set.Documents[i]
		units, err := loadUnits(filepath.Join(dir, "labels", d.ID+".jsonl"))
		if err != nil {
			return nil, err
		}
		d.Units = units
		if err := d.check(); err != nil {
			return nil, fmt.Errorf("extracteval: %s: %w", d.ID, err)
		}
	}
	return set, nil
}

// decodeManifest decodes set.json, refusing unknown fields except the
// top-level description of the held-out rule.
func decodeManifest(raw []byte, into any) error {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(raw, &top); err != nil {
		return err
	}
	delete(top, "heldout")
	docs, ok := top["documents"]
	if !ok || len(top) != 1 {
		return fmt.Errorf("want the keys heldout and documents")
	}
	dec := json.NewDecoder(bytes.NewReader([]byte(`{"documents":` + string(docs) + `}`)))
	dec.DisallowUnknownFields()
	return dec.Decode(into)
}

func loadUnits(path string) ([]Unit, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("extracteval: %w", err)
	}
	defer f.Close()
	var units []Unit
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 1<<16), 1<<20)
	for line := 1; sc.Scan(); line++ {
		var u Unit
		dec := json.NewDecoder(bytes.NewReader(sc.Bytes()))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&u); err != nil {
			return nil, fmt.Errorf("extracteval: %s:%d: %w", path, line, err)
		}
		units = append(units, u)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("extracteval: %s: %w", path, err)
	}
	return units, nil
}

// check verifies a document's labels: consecutive positions, known kinds
// and files, readings of the right shape in normal form, relations from
// the vocabulary and the document's declared relations, labels on prose
// units only.
func (d *Document) check() error {
	files := map[string]bool{}
	for _, f := range d.Files {
		files[f.Name] = true
	}
	vocab := map[string]bool{}
	for _, r := range append(relparse.Relations(), d.Relations...) {
		vocab[r] = true
	}
	for i, u := range d.Units {
		if u.N != i+1 {
			return fmt.Errorf("unit %d has n %d", i+1, u.N)
		}
		if !files[u.File] {
			return fmt.Errorf("unit %d: unknown file %q", u.N, u.File)
		}
		if !slices.Contains([]string{KindProse, KindHeading, KindCode, KindOther}, u.Kind) {
			return fmt.Errorf("unit %d: unknown kind %q", u.N, u.Kind)
		}
		labelled := len(u.Relations)+len(u.Concepts)+len(u.Counters) > 0
		if labelled && u.Kind != KindProse {
			return fmt.Errorf("unit %d: a %s unit carries labels", u.N, u.Kind)
		}
		for _, group := range []struct {
			labels [][][]string
			width  int
		}{{u.Relations, 3}, {u.Counters, 3}, {u.Concepts, 2}} {
			for _, label := range group.labels {
				if err := checkLabel(label, group.width, vocab); err != nil {
					return fmt.Errorf("unit %d: %w", u.N, err)
				}
			}
		}
	}
	return nil
}

func checkLabel(readings [][]string, width int, vocab map[string]bool) error {
	if len(readings) == 0 {
		return fmt.Errorf("a label without readings")
	}
	for _, r := range readings {
		if len(r) != width {
			return fmt.Errorf("reading %q: want %d fields", r, width)
		}
		for i, f := range r {
			if width == 3 && i == 1 {
				if !vocab[f] {
					return fmt.Errorf("reading %q: relation %q is not in the document's vocabulary", r, f)
				}
				continue
			}
			if f == "" || Normal(f) != f {
				return fmt.Errorf("reading %q: %q is not in normal form (%q)", r, f, Normal(f))
			}
		}
	}
	return nil
}

// Normal is the form labels and validated items are compared in: the
// forge's normal form of a head or tail (lower-cased as Python lower-cases,
// white space collapsed and trimmed, trailing ".?!,;:" removed, one leading
// and one trailing article removed), applied to terms and definitions too.
func Normal(s string) string {
	s = relparse.TrimSpace(relparse.CollapseSpace(relparse.Lower(s)))
	s = relparse.TrimSpace(strings.TrimRight(s, ".?!,;:"))
	return relparse.StripArticles(s)
}

// span is a unit's byte range [start, end) in its file's mined text; a
// unit the miner kept out of the text has found == false.
type span struct {
	start, end int
	found      bool
}

// locate finds each unit of one file in that file's mined text, in order:
// a unit's text must occur, all white space ignored, where the previous
// unit ended (only white space between them). Code and other units may be
// missing (the miner may leave them out); prose and heading units may not.
func locate(text string, units []Unit) ([]span, error) {
	squeezed, offsets := squeeze(text)
	out := make([]span, len(units))
	at := 0
	for i, u := range units {
		want, _ := squeeze(u.Text)
		if strings.HasPrefix(squeezed[at:], want) && want != "" {
			out[i] = span{start: offsets[at], end: offsets[at+len(want)-1] + 1, found: true}
			at += len(want)
			continue
		}
		if u.Kind == KindCode || u.Kind == KindOther {
			continue
		}
		return nil, fmt.Errorf("unit %d (%s) not found where the text continues with %q", u.N, u.Kind, clip(squeezed[at:], 60))
	}
	if at != len(squeezed) {
		return nil, fmt.Errorf("the mined text goes on after the last unit: %q", clip(squeezed[at:], 60))
	}
	return out, nil
}

// squeeze returns s without white space and, for every byte of the result,
// its offset in s.
func squeeze(s string) (string, []int) {
	var b strings.Builder
	offsets := make([]int, 0, len(s))
	for i, r := range s {
		if unicode.IsSpace(r) || relparse.IsSpace(r) {
			continue
		}
		n := utf8.RuneLen(r)
		if r == utf8.RuneError {
			n = 1
		}
		for k := 0; k < n; k++ {
			offsets = append(offsets, i+k)
		}
		b.WriteString(s[i : i+n])
	}
	return b.String(), offsets
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}
