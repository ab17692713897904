package forge

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"unicode/utf8"

	"formation/artifact"
	"formation/canon"
	"formation/ident"
	"formation/relparse"
)

// Errors Validate returns instead of a result. A rejected candidate is never
// an error: it is a finding.
var (
	// ErrConfig: the configuration cannot run (no span checker where a
	// citation needs one).
	ErrConfig = errors.New("forge configuration")
	// ErrInvalidInput: the subject id or the bundle cannot be processed at
	// all (text that is not UTF-8 cannot be hashed or quarantined).
	ErrInvalidInput = errors.New("forge input rejected")
)

// Config is everything besides the candidates that Validate depends on.
type Config struct {
	// Allowlist is the subject's allowlist.yaml.
	Allowlist Allowlist
	// IdentityTerms are screened in addition to DefaultIdentityTerms: the
	// identity axes and the safety boundary ids in force.
	IdentityTerms []string
	// Existing are triples already known (the pack and the reviewed
	// knowledge); a new relation equal to one of them (after lower-casing
	// head and tail) is dropped as duplicate_existing.
	Existing []artifact.Triple
	// ExemptTerms are lifted from the identity screen: a pack's own axes
	// and boundary ids when the course ratifies that pack.
	ExemptTerms []string
	// SpanChecker verifies citations that name a text range. It may be nil
	// only when no citation names one.
	SpanChecker SpanChecker
	// Relations are the relations the subject declares beyond the
	// original's 17 (subject.yaml's relations:). R1 accepts exactly the 17
	// and these; the set records them. None is the original's vocabulary.
	Relations []string
	// Progress, when not nil, hears how many candidates have been judged
	// of how many, for a progress display. The result does not depend on it.
	Progress func(done, total int)
}

// Result is the validated set and one finding for every candidate that was
// quarantined, dropped or merged, or accepted on a citation whose span was
// not byte-checked.
type Result struct {
	VTS      artifact.ValidatedTripleSet
	Findings []Finding
}

// Validate is the Forge: it turns a smelted bundle into a validated triple
// set (README.md gives the rules, reason codes and sort orders). It is pure
// apart from cfg.SpanChecker, deterministic, and independent of the order
// of the candidates and of their citations.
func Validate(ctx context.Context, cfg Config, subjectID string, smelted artifact.SmeltedBundle) (Result, error) {
	if err := checkInput(subjectID, smelted); err != nil {
		return Result{}, err
	}
	vocab, err := relparse.NewVocabulary(cfg.Relations)
	if err != nil {
		return Result{}, fmt.Errorf("forge: %w: %v", ErrInvalidInput, err)
	}
	v := &validation{
		typing:   newTyping(vocab),
		screen:   newIdentityScreen(cfg.IdentityTerms, cfg.ExemptTerms),
		existing: existingSet(cfg.Existing),
		allow:    cfg.Allowlist,
		sources:  &sourceChecker{ctx: ctx, allow: cfg.Allowlist, spans: cfg.SpanChecker, memo: map[spanKey]*rejection{}},
		progress: cfg.Progress,
		total:    len(smelted.Relations) + len(smelted.Counters) + len(smelted.Concepts) + len(smelted.OrderingHints),
	}
	// Most candidates leave one finding (an accepted curated citation is
	// one): room for them up front saves copying a growing list.
	v.findings = make([]Finding, 0, v.total)
	vts := artifact.ValidatedTripleSet{SubjectID: subjectID, SchemaVersion: artifact.SchemaVersion, DeclaredRelations: vocab.Declared()}
	// A claim both asserted and denied is settled before the concepts;
	// hints come last: they may only name terms validated before them.
	steps := []func() error{
		func() (err error) {
			vts.Relations, vts.Quarantined, err = v.triples(KindRelation, smelted.Relations)
			return
		},
		func() (err error) { vts.Counters, _, err = v.triples(KindCounter, smelted.Counters); return },
		func() error { v.selfContradictions(&vts); return nil },
		func() error { v.fanout(&vts); return nil },
		func() (err error) { vts.Concepts, err = v.concepts(smelted.Concepts); return },
		func() (err error) {
			vts.OrderingHints, err = v.hints(smelted.OrderingHints, knownTerms(vts, cfg.Existing))
			return
		},
	}
	for _, step := range steps {
		if err := ctx.Err(); err != nil {
			return Result{}, fmt.Errorf("forge: %w", err)
		}
		if err := step(); err != nil {
			return Result{}, err
		}
	}
	slices.SortFunc(v.findings, Finding.compare)
	return Result{VTS: vts, Findings: v.findings}, nil
}

// advance counts n more candidates judged.
func (v *validation) advance(n int) {
	v.done += n
	if v.progress != nil {
		v.progress(v.done, v.total)
	}
}

// validation is the state of one Validate call.
type validation struct {
	typing      *typing
	progress    func(done, total int)
	done, total int
	screen      identityScreen
	existing    map[artifact.Triple]bool
	allow       Allowlist
	sources     *sourceChecker
	findings    []Finding
}

func (v *validation) note(kind, key string, r *rejection, spanChecked bool) {
	v.findings = append(v.findings, Finding{Kind: kind, Key: key, ReasonCode: r.code, Detail: r.detail, SpanChecked: spanChecked})
}

// existingSet indexes known triples with heads and tails in the normal
// form candidates get.
func existingSet(ts []artifact.Triple) map[artifact.Triple]bool {
	m := make(map[artifact.Triple]bool, len(ts))
	for _, t := range ts {
		m[normalTriple(t)] = true
	}
	return m
}

// keyJSON names a candidate in a finding: a JSON array of its parts.
func keyJSON(parts ...string) string {
	if key, ok := plainKeyJSON(parts); ok {
		return key
	}
	b, err := canon.Marshal(parts)
	if err != nil { // unreachable: checkInput admitted only valid UTF-8
		return fmt.Sprintf("%q", parts)
	}
	return string(b)
}

// plainKeyJSON writes keyJSON's array directly when no part needs an escape
// (printable ASCII without '"' or '\\'), which canonical JSON copies as is;
// ok is false otherwise.
func plainKeyJSON(parts []string) (string, bool) {
	n := 1 + len(parts)*3
	for _, p := range parts {
		for i := 0; i < len(p); i++ {
			if c := p[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' {
				return "", false
			}
		}
		n += len(p)
	}
	b := make([]byte, 0, n)
	b = append(b, '[')
	for i, p := range parts {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, '"')
		b = append(b, p...)
		b = append(b, '"')
	}
	b = append(b, ']')
	return string(b), true
}

// checkInput refuses what cannot be processed at all: a subject id that is
// not a safe name, and text that is not UTF-8 (canonical JSON cannot carry
// it, so it could be neither validated nor quarantined).
func checkInput(subjectID string, b artifact.SmeltedBundle) error {
	if ident.CheckID(subjectID) != nil {
		return fmt.Errorf("forge: %w: subject id %s must match [A-Za-z0-9._-]+, not start with '.' and not contain '..'", ErrInvalidInput, escapeUntrusted(subjectID))
	}
	for i, c := range b.Concepts {
		if !validText(c.CanonicalTerm, c.Definition) || !validRefs(c.Sources) {
			return fmt.Errorf("forge: %w: concept %d holds text that is not UTF-8", ErrInvalidInput, i)
		}
	}
	for _, list := range []struct {
		kind string
		cs   []artifact.RelationCandidate
	}{{KindRelation, b.Relations}, {KindCounter, b.Counters}} {
		for i, c := range list.cs {
			if !validText(c.Head, c.Relation, c.Tail) || !validRefs(c.Sources) {
				return fmt.Errorf("forge: %w: %s %d holds text that is not UTF-8", ErrInvalidInput, list.kind, i)
			}
		}
	}
	for i, h := range b.OrderingHints {
		if !validText(h.Before, h.After) || !validRefs(h.Sources) {
			return fmt.Errorf("forge: %w: ordering hint %d holds text that is not UTF-8", ErrInvalidInput, i)
		}
	}
	return nil
}

func validRefs(refs []artifact.SourceRef) bool {
	for _, r := range refs {
		if !validText(r.SourceSHA, r.Span, r.Adapter, r.RetrievedAt, r.TextSHA, r.Extractor) {
			return false
		}
	}
	return true
}

func validText(ss ...string) bool {
	for _, s := range ss {
		if !utf8.ValidString(s) {
			return false
		}
	}
	return true
}
