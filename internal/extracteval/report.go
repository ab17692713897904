package extracteval

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
)

// Report is the evaluation of the whole set.
type Report struct {
	Docs []DocReport // in set.json order
}

// DocReport is one document's evaluation: what forge validated, and what
// smelt proposed before forge.
type DocReport struct {
	Doc       *Document
	Validated Score
	Smelted   Score
}

// Evaluate extracts every document and scores it.
func Evaluate(ctx context.Context, set *Set) (*Report, error) {
	r := &Report{}
	for i := range set.Documents {
		d := &set.Documents[i]
		ex, err := Extract(ctx, set, d)
		if err != nil {
			return nil, err
		}
		v := ex.Validated
		validated, err := scoreDocument(d, ex, itemsOf(v.Concepts, v.Relations, v.Counters))
		if err != nil {
			return nil, err
		}
		sm := ex.Smelted
		smelted, err := scoreDocument(d, ex, itemsOf(sm.Concepts, sm.Relations, sm.Counters))
		if err != nil {
			return nil, err
		}
		r.Docs = append(r.Docs, DocReport{Doc: d, Validated: validated, Smelted: smelted})
	}
	return r, nil
}

// scope is a named sum of documents' counts.
type scope struct {
	name   string
	counts Counts
	heads  HeadCheck
}

// scopes returns one scope per document, one per kind of text (in order of
// first appearance) and one for the whole set, for the validated or the
// smelted items.
func (r *Report) scopes(validated bool) []scope {
	var docs, kinds []scope
	all := scope{name: "all"}
	for _, dr := range r.Docs {
		s := dr.Smelted
		if validated {
			s = dr.Validated
		}
		docs = append(docs, scope{name: dr.Doc.ID, counts: s.Counts, heads: s.Heads})
		k := slices.IndexFunc(kinds, func(x scope) bool { return x.name == "kind "+dr.Doc.Kind })
		if k < 0 {
			kinds = append(kinds, scope{name: "kind " + dr.Doc.Kind})
			k = len(kinds) - 1
		}
		kinds[k].counts.add(s.Counts)
		kinds[k].heads.add(s.Heads)
		all.counts.add(s.Counts)
		all.heads.add(s.Heads)
	}
	return slices.Concat(docs, kinds, []scope{all})
}

// Write prints the report: precision and recall per class, part and scope
// for the validated items, their false readings by reason and missed
// labels, the head check, the same precision and recall before forge, and
// (verbose) every error of the tuning part.
func (r *Report) Write(w io.Writer, verbose bool) error {
	var b strings.Builder
	b.WriteString("Validated items (mine → smelt → forge), labelled documents allow-listed as primary.\n")
	b.WriteString("precision = correct readings / readings (a reading is an item with one sentence it cites); recall = labels read / labels\n\n")
	writeFigures(&b, r.scopes(true))
	b.WriteString("\nFalse readings by reason (code: cites a code unit; no_claim: the sentence states nothing of the class; misread: it states something else) and missed labels\n\n")
	writeErrors(&b, r.scopes(true))
	b.WriteString("\nHeads and concept terms of validated items that are pronouns, clause fragments or code\n\n")
	writeHeads(&b, r.scopes(true))
	b.WriteString("\nCandidates before forge (smelt's proposals), same measure\n\n")
	writeFigures(&b, r.scopes(false))
	if verbose {
		b.WriteString("\nErrors of the tuning part, validated items (held-out sentences are never listed)\n\n")
		r.writeTuningErrors(&b, true)
		b.WriteString("\nErrors of the tuning part, candidates before forge\n\n")
		r.writeTuningErrors(&b, false)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func ratio(num, den int) string {
	if den == 0 {
		return "–"
	}
	return fmt.Sprintf("%d/%d %5.1f%%", num, den, 100*float64(num)/float64(den))
}

func writeFigures(b *strings.Builder, scopes []scope) {
	tw := tabwriter.NewWriter(b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "scope\tpart\trelations P\trelations R\tconcepts P\tconcepts R\tcounter-claims P\tcounter-claims R")
	for _, s := range scopes {
		for p := Part(0); p < numParts; p++ {
			name := s.name
			if p > 0 {
				name = ""
			}
			fmt.Fprintf(tw, "%s\t%s", name, p)
			for c := Class(0); c < numClasses; c++ {
				t := s.counts[p][c]
				fmt.Fprintf(tw, "\t%s\t%s", ratio(t.Correct, t.Readings), ratio(t.Found, t.Labels))
			}
			fmt.Fprintln(tw)
		}
	}
	tw.Flush()
}

func writeErrors(b *strings.Builder, scopes []scope) {
	tw := tabwriter.NewWriter(b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "scope\tpart\trelations\tconcepts\tcounter-claims")
	for _, s := range scopes {
		for p := Part(0); p < numParts; p++ {
			name := s.name
			if p > 0 {
				name = ""
			}
			fmt.Fprintf(tw, "%s\t%s", name, p)
			for c := Class(0); c < numClasses; c++ {
				t := s.counts[p][c]
				fmt.Fprintf(tw, "\tcode %d, no_claim %d, misread %d; missed %d",
					t.False[FalseCode], t.False[FalseNoClaim], t.False[FalseMisread], t.Labels-t.Found)
			}
			fmt.Fprintln(tw)
		}
	}
	tw.Flush()
}

func writeHeads(b *strings.Builder, scopes []scope) {
	tw := tabwriter.NewWriter(b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "scope\tbad of N\tpronoun\tclause\tcode\t(single letter)")
	for _, s := range scopes {
		h := s.heads
		fmt.Fprintf(tw, "%s\t%d of %d\t%d\t%d\t%d\t%d\n", s.name, h.Bad(), h.N, h.Pronoun, h.Clause, h.Code, h.Single)
	}
	tw.Flush()
	all := scopes[len(scopes)-1].heads
	for _, e := range all.Examples {
		fmt.Fprintf(b, "  %s\n", e)
	}
}

func (r *Report) writeTuningErrors(b *strings.Builder, validated bool) {
	for _, dr := range r.Docs {
		errs := dr.Smelted.Errors
		if validated {
			errs = dr.Validated.Errors
		}
		for _, e := range errs {
			fmt.Fprintf(b, "%s #%d %s %s %q\n    %s\n", dr.Doc.ID, e.Unit.N, e.Class, e.Reason, e.Key, e.Unit.Text)
		}
	}
}

func errorf(format string, args ...any) error { return fmt.Errorf("extracteval: "+format, args...) }
