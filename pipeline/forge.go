package pipeline

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"formation/artifact"
	"formation/audit"
	"formation/forge"
	"formation/internal/exitcode"
	"formation/stage"
	"formation/store"
)

// Forge validates the subject's smelted candidates into a ValidatedTripleSet.
func (p *Pipeline) Forge(ctx context.Context, subject string) (stage.Result, error) {
	s, err := p.Subject(ctx, subject)
	if err != nil {
		return stage.Result{}, err
	}
	smeltedDigest, err := p.Env.ResolveRef(ctx, subject, "smelt")
	if err != nil {
		return stage.Result{}, err
	}
	// The bundle is read beside the preparation below; a cache hit, which
	// does not need it, lets the read go.
	bundleRead := stage.Fetch[artifact.SmeltedBundle](ctx, p.Env.Store, smeltedDigest)
	defer bundleRead.Stop()
	allowRaw, allowDigest, err := p.readSubjectFile(ctx, s, "allowlist.yaml")
	if err != nil {
		return stage.Result{}, err
	}
	allow, err := forge.LoadAllowlist(allowRaw)
	if err != nil {
		return stage.Result{}, exitcode.With(exitcode.Rejected, fmt.Errorf("forge: %s/allowlist.yaml: %w", subject, err))
	}
	allow, allowDigest, taught, err := p.withProposalSources(ctx, s, allow, allowDigest)
	if err != nil {
		return stage.Result{}, err
	}
	loaded, err := p.loadPacks(ctx)
	if err != nil {
		return stage.Result{}, err
	}
	snap, err := p.reviewedState(ctx, "forge", subject)
	if err != nil {
		return stage.Result{}, err
	}
	declared := s.Vocabulary().Declared()
	existing, existingDigest, smelted, err := p.existingFor(ctx, snap, subject, smeltedDigest, bundleRead, declared)
	if err != nil {
		return stage.Result{}, err
	}
	cfg := forge.Config{
		Progress:      func(done, total int) { p.progress("forge", "candidates", int64(done), int64(total)) },
		Allowlist:     allow,
		IdentityTerms: identityTerms(loaded.Manifold.AxisIDs(), loaded.Manifold.BoundaryIDs()),
		Existing:      existing,
		SpanChecker:   NewStoreTexts(p.Env.Store),
		Relations:     declared,
	}
	spec := forgeSpec(subject, ForgeParams{Subject: Spec(s), IdentityTerms: cfg.IdentityTerms, Manifold: loaded.Manifold.Hash(), Relations: declared},
		ForgeInputs{Smelted: smeltedDigest, Allowlist: allowDigest, Reviewed: orAbsent(existingDigest)})
	return p.Env.Run(ctx, spec, func(ctx context.Context) (stage.Output, error) {
		if smelted == nil {
			bundle, err := bundleRead.Wait().Take(ctx, p.Env, spec)
			if err != nil {
				return stage.Output{}, err
			}
			smelted = &bundle
		}
		if err := checkProposalsSmelted(taught, *smelted); err != nil {
			return stage.Output{}, err
		}
		res, err := forge.Validate(ctx, cfg, subject, *smelted)
		if err != nil {
			if errors.Is(err, forge.ErrInvalidInput) {
				return stage.Output{}, &stage.Halt{Code: exitcode.Rejected, Reason: "forge_input_rejected", Detail: err.Error()}
			}
			return stage.Output{}, err
		}
		p.logf("forge %s: %d concepts, %d relations, %d counters validated; %d quarantined; %d findings",
			subject, len(res.VTS.Concepts), len(res.VTS.Relations), len(res.VTS.Counters), len(res.VTS.Quarantined), len(res.Findings))
		recs := findingRecords(res.Findings)
		if v := res.VTS; len(v.Concepts)+len(v.Relations)+len(v.Counters) == 0 {
			return stage.Output{}, nothingToTeach(smelted, res, recs)
		}
		return stage.Output{Artifact: res.VTS, Audit: recs}, nil
	})
}

// ReasonNothingToTeach halts a forge that validated no concept, relation
// or counter-claim (and ratify refuses such a course with the same reason).
const ReasonNothingToTeach = "nothing_to_teach"

// nothingToTeach is the halt of a forge that validated nothing to teach: a
// set without knowledge must not go on to be composed and ratified. Every
// finding is audited with it, so the records say why each candidate fell.
func nothingToTeach(smelted *artifact.SmeltedBundle, res forge.Result, recs []audit.Record) *stage.Halt {
	n := len(smelted.Concepts) + len(smelted.Relations) + len(smelted.Counters)
	reasons := map[string]int{}
	for _, f := range res.Findings {
		reasons[f.ReasonCode]++
	}
	codes := make([]string, 0, len(reasons))
	for c, k := range reasons {
		codes = append(codes, fmt.Sprintf("%s: %d", c, k))
	}
	slices.Sort(codes)
	detail := fmt.Sprintf("forge validated no concept, relation or counter-claim from %d candidate(s); findings: %s",
		n, strings.Join(codes, ", "))
	if n == 0 {
		detail = "the smelter found no candidate in the subject's sources"
	}
	recs = append(recs, audit.Record{Kind: audit.KindHalt, ReasonCode: ReasonNothingToTeach, Detail: detail})
	return &stage.Halt{Code: exitcode.Rejected, Reason: ReasonNothingToTeach, Detail: detail, Audit: recs}
}

// findingRecords turns the forge's findings into audit records.
func findingRecords(fs []forge.Finding) []audit.Record {
	out := make([]audit.Record, 0, len(fs))
	for _, f := range fs {
		kind := audit.KindRejection
		switch f.ReasonCode {
		case forge.ReasonDuplicateMerged, forge.ReasonDuplicateExisting:
			kind = audit.KindDrop
		case forge.ReasonSpanNotByteChecked, forge.ReasonCitationExcluded:
			kind = audit.KindNote
		}
		out = append(out, audit.Record{Kind: kind, ReasonCode: f.ReasonCode, Key: f.Kind + " " + f.Key, Detail: f.Detail})
	}
	return out
}

func identityTerms(lists ...[]string) []string {
	var out []string
	for _, l := range lists {
		out = append(out, l...)
	}
	return out
}

// textCacheBytes bounds the texts one StoreTexts keeps: enough for every
// text of a subject at the default per-file limit many times over, small
// against a stage's memory budget.
const textCacheBytes = 256 << 20

// StoreTexts checks citation spans against the text objects in the store.
// It keeps the texts it has read, up to textCacheBytes, so that a large
// source cited by thousands of candidates is read and verified once rather
// than once per citation (which made forge quadratic in the source). One
// StoreTexts serves one Validate call; it is not safe for concurrent use.
type StoreTexts struct {
	Store store.Store
	texts map[string][]byte
	order []string // digests in the order they were kept, oldest first
	bytes int
}

// NewStoreTexts returns a span checker over s with an empty text cache.
func NewStoreTexts(s store.Store) *StoreTexts {
	return &StoreTexts{Store: s, texts: map[string][]byte{}}
}

// text returns the verified bytes of a text object, from the cache when
// they were read before. A failed read is not kept.
func (t *StoreTexts) text(ctx context.Context, digest string) ([]byte, error) {
	if b, ok := t.texts[digest]; ok {
		return b, nil
	}
	b, err := t.Store.Get(ctx, digest)
	if err != nil || len(b) > textCacheBytes {
		return b, err
	}
	for t.bytes+len(b) > textCacheBytes && len(t.order) > 0 {
		t.bytes -= len(t.texts[t.order[0]])
		delete(t.texts, t.order[0])
		t.order = t.order[1:]
	}
	t.texts[digest] = b
	t.order = append(t.order, digest)
	t.bytes += len(b)
	return b, nil
}

// Check implements forge.SpanChecker.
func (t *StoreTexts) Check(ctx context.Context, ref artifact.SourceRef) error {
	text, err := t.text(ctx, ref.TextSHA)
	switch {
	case errors.Is(err, store.ErrNotFound), errors.Is(err, store.ErrCorrupt):
		return fmt.Errorf("%w: text object %s: %v", forge.ErrSpanUnverifiable, ref.TextSHA, err)
	case err != nil:
		return err
	}
	start, end := *ref.Start, *ref.End
	if start < 0 || end > int64(len(text)) || start >= end {
		return fmt.Errorf("%w: range [%d,%d) outside a text of %d bytes", forge.ErrSpanUnverifiable, start, end, len(text))
	}
	if !bytes.Equal(text[start:end], []byte(ref.Span)) {
		return fmt.Errorf("%w: bytes [%d,%d) of %s are not the cited span", forge.ErrSpanMismatch, start, end, ref.TextSHA[:12])
	}
	return nil
}
