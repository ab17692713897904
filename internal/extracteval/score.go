package extracteval

import (
	"slices"
	"strings"

	"formation/artifact"
	"formation/runtime/text"
)

// Class is a kind of extracted item.
type Class int

// The classes measured.
const (
	Relations Class = iota
	Concepts
	Counters
	numClasses
)

func (c Class) String() string {
	return [...]string{"relations", "concepts", "counter-claims"}[c]
}

// Part is the tuning or the held-out part of the set.
type Part int

// The two parts.
const (
	Tuning Part = iota
	HeldOut
	numParts
)

func (p Part) String() string { return [...]string{"tuning", "held-out"}[p] }

// Reasons an extracted reading is false.
const (
	FalseCode    = "code"     // it cites a code unit
	FalseNoClaim = "no_claim" // the sentence states nothing of its class
	FalseMisread = "misread"  // the sentence states something else
)

// Tally counts one class in one part of one scope.
type Tally struct {
	Readings int            // extracted readings: (item, cited sentence) pairs
	Correct  int            // readings equal to a label of a cited sentence
	Labels   int            // labels
	Found    int            // labels some extracted item reads
	False    map[string]int // false readings by reason
}

func (t *Tally) add(o Tally) {
	t.Readings += o.Readings
	t.Correct += o.Correct
	t.Labels += o.Labels
	t.Found += o.Found
	for k, v := range o.False {
		if t.False == nil {
			t.False = map[string]int{}
		}
		t.False[k] += v
	}
}

// Counts are the tallies of one scope: by part and class.
type Counts [numParts][numClasses]Tally

func (c *Counts) add(o Counts) {
	for p := range c {
		for k := range c[p] {
			c[p][k].add(o[p][k])
		}
	}
}

// Error is one false reading or one missed label of the tuning part, for
// the listing that guides tuning.
type Error struct {
	Class  Class
	Reason string   // a False* reason, or "missed"
	Key    []string // the extracted reading, or the label's first reading
	Unit   Unit
}

// Score is the measure of one document at one stage.
type Score struct {
	Counts Counts
	Errors []Error // tuning part only
	Heads  HeadCheck
}

// item is one extracted item of a class: its key and citations.
type item struct {
	key     []string
	sources []artifact.SourceRef
}

func itemsOf(concepts []artifact.ConceptCandidate, relations, counters []artifact.RelationCandidate) [numClasses][]item {
	var out [numClasses][]item
	for _, r := range relations {
		out[Relations] = append(out[Relations], item{[]string{r.Head, r.Relation, r.Tail}, r.Sources})
	}
	for _, c := range concepts {
		out[Concepts] = append(out[Concepts], item{[]string{c.CanonicalTerm, c.Definition}, c.Sources})
	}
	for _, r := range counters {
		out[Counters] = append(out[Counters], item{[]string{r.Head, r.Relation, r.Tail}, r.Sources})
	}
	return out
}

// located is one unit with its byte range in its file's mined text.
type located struct {
	Unit
	span
}

// scoreDocument compares one document's extracted items with its labels.
func scoreDocument(d *Document, ex *Extracted, items [numClasses][]item) (Score, error) {
	units, err := locateAll(d, ex)
	if err != nil {
		return Score{}, err
	}
	var s Score
	for c := Class(0); c < numClasses; c++ {
		s.scoreReadings(c, items[c], units, ex)
		s.scoreLabels(c, items[c], units, ex)
	}
	s.Heads = checkHeads(items, units, ex)
	return s, nil
}

// locateAll locates every unit of the document in its file's mined text.
func locateAll(d *Document, ex *Extracted) (map[string][]located, error) {
	out := map[string][]located{}
	for _, f := range d.Files {
		var units []Unit
		for _, u := range d.Units {
			if u.File == f.Name {
				units = append(units, u)
			}
		}
		spans, err := locate(ex.Texts[f.Name], units)
		if err != nil {
			return nil, errorf("%s: %s: %w", d.ID, f.Name, err)
		}
		for i, u := range units {
			out[f.Name] = append(out[f.Name], located{u, spans[i]})
		}
	}
	return out, nil
}

// cited returns the located units a citation's byte range overlaps.
func cited(ref artifact.SourceRef, units map[string][]located, ex *Extracted) []located {
	if !ref.HasSpanRange() {
		return nil
	}
	var out []located
	start, end := int(*ref.Start), int(*ref.End)
	for _, u := range units[ex.TextFile[ref.TextSHA]] {
		if u.found && u.start < end && start < u.end {
			out = append(out, u)
		}
	}
	return out
}

func labelsOf(u Unit, c Class) [][][]string {
	switch c {
	case Relations:
		return u.Relations
	case Concepts:
		return u.Concepts
	}
	return u.Counters
}

// matches reports whether key equals one of the label's readings after the
// shared normalisation: the labels' own normal form, then the one normal
// form of a term the forge and the runtime's parser share (text.NormalTerm),
// so that a validated item is compared in the form a user reaches it by.
func matches(key []string, label [][]string) bool {
	same := func(a, b string) bool { return text.NormalTerm(Normal(a)) == text.NormalTerm(Normal(b)) }
	for _, r := range label {
		if len(r) == len(key) && slices.EqualFunc(r, key, same) {
			return true
		}
	}
	return false
}

// scoreReadings counts every (item, citation) reading of class c as
// correct or false, in the part of the units it cites (held out when any
// of them is).
func (s *Score) scoreReadings(c Class, items []item, units map[string][]located, ex *Extracted) {
	for _, it := range items {
		for _, ref := range it.sources {
			us := cited(ref, units, ex)
			if len(us) == 0 {
				continue // outside the labelled text (no such file here)
			}
			part, reason := Tuning, FalseNoClaim
			for _, u := range us {
				if u.HeldOut() {
					part = HeldOut
				}
				switch {
				case u.Kind == KindCode:
					reason = FalseCode
				case reason != FalseCode && len(labelsOf(u.Unit, c)) > 0:
					reason = FalseMisread
				}
				for _, label := range labelsOf(u.Unit, c) {
					if matches(it.key, label) {
						reason = ""
					}
				}
			}
			t := &s.Counts[part][c]
			t.Readings++
			if reason == "" {
				t.Correct++
				continue
			}
			if t.False == nil {
				t.False = map[string]int{}
			}
			t.False[reason]++
			if part == Tuning {
				s.Errors = append(s.Errors, Error{Class: c, Reason: reason, Key: it.key, Unit: us[0].Unit})
			}
		}
	}
}

// scoreLabels counts every label of class c as found when an item of that
// class reads it and cites the label's file.
func (s *Score) scoreLabels(c Class, items []item, units map[string][]located, ex *Extracted) {
	for file, us := range units {
		var inFile []item
		for _, it := range items {
			if slices.ContainsFunc(it.sources, func(r artifact.SourceRef) bool { return ex.TextFile[r.TextSHA] == file }) {
				inFile = append(inFile, it)
			}
		}
		for _, u := range us {
			part := Tuning
			if u.HeldOut() {
				part = HeldOut
			}
			for _, label := range labelsOf(u.Unit, c) {
				t := &s.Counts[part][c]
				t.Labels++
				if slices.ContainsFunc(inFile, func(it item) bool { return matches(it.key, label) }) {
					t.Found++
				} else if part == Tuning {
					s.Errors = append(s.Errors, Error{Class: c, Reason: "missed", Key: label[0], Unit: u.Unit})
				}
			}
		}
	}
}

// HeadCheck counts validated heads (of relations and counter-claims) and
// concept terms that no reader would accept as the subject of a claim.
type HeadCheck struct {
	N        int // heads and terms checked
	Pronoun  int // a bare pronoun or deictic
	Clause   int // a conditional, subordinate or connective fragment
	Code     int // code, or cited from a code unit
	Single   int // a single letter
	Examples []string
}

func (h *HeadCheck) add(o HeadCheck) {
	h.N += o.N
	h.Pronoun += o.Pronoun
	h.Clause += o.Clause
	h.Code += o.Code
	h.Single += o.Single
	h.Examples = append(h.Examples, o.Examples...)
}

// Bad is the number of heads that are pronouns, clause fragments or code.
func (h HeadCheck) Bad() int { return h.Pronoun + h.Clause + h.Code }

func checkHeads(items [numClasses][]item, units map[string][]located, ex *Extracted) HeadCheck {
	var h HeadCheck
	for _, it := range slices.Concat(items[Relations], items[Concepts], items[Counters]) {
		h.N++
		fromCode := false
		for _, ref := range it.sources {
			for _, u := range cited(ref, units, ex) {
				fromCode = fromCode || u.Kind == KindCode
			}
		}
		problem := HeadProblem(it.key[0])
		if problem == "" && fromCode {
			problem = "code"
		}
		switch problem {
		case "pronoun":
			h.Pronoun++
		case "clause":
			h.Clause++
		case "code":
			h.Code++
		case "single letter":
			h.Single++
		}
		if problem != "" && problem != "single letter" {
			h.Examples = append(h.Examples, problem+": "+it.key[0])
		}
	}
	return h
}

// HeadProblem says why a head or term is not a noun phrase a reader would
// accept as what a claim is about: "pronoun" (a bare pronoun or deictic),
// "clause" (it opens with a conditional, subordinating or connective
// word), "code" (it holds program syntax or a path) or "single letter";
// "" when none applies. The word lists are the ones the extraction rules
// name; this check is the evaluation's own, independent of the extractor.
func HeadProblem(head string) string {
	h := Normal(head)
	words := strings.Fields(h)
	switch {
	case len(words) == 0:
		return "pronoun"
	case len(words) == 1 && slices.Contains(deictics(), words[0]):
		return "pronoun"
	case slices.Contains(openers(), words[0]) || strings.HasPrefix(h, "for example"):
		return "clause"
	case strings.ContainsAny(h, "()[]{}<>=;*&|$#\\\"`/") || strings.HasPrefix(h, "-"):
		return "code"
	case len([]rune(h)) == 1:
		return "single letter"
	}
	return ""
}

func deictics() []string {
	return []string{"it", "this", "that", "these", "those", "there", "here", "they", "we", "you", "one", "such", "which", "what", "following"}
}

func openers() []string {
	return []string{"if", "when", "whenever", "unless", "whether", "otherwise", "although", "though", "because", "since",
		"while", "where", "but", "and", "or", "so", "then", "thus", "hence", "however", "also"}
}
