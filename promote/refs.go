package promote

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"formation/artifact"
	"formation/internal/exitcode"
	"formation/store"
)

// Ref names. Each holds the 64-hex digest of a canonical JSON object.
const (
	// KnowledgeRef points at the ReviewedKnowledge object; only promote moves it.
	KnowledgeRef = "knowledge/reviewed"
	// IndexRef points at the MasteredCoursesIndex object.
	IndexRef = "index/mastered-courses"
	// PromotionsPrefix + course_id points at the DSSE envelope of the
	// course's current promotion.
	PromotionsPrefix = "index/promotions/"
	// ValidatedPrefix + validated_set_sha points at a ValidatedTripleSet
	// object whose compose projection has that digest.
	ValidatedPrefix = "index/validated/"
)

// maxCASAttempts bounds compare-and-swap retries under contention.
const maxCASAttempts = 16

// PromotionRef is the ref of a course's current promotion envelope.
func PromotionRef(courseID string) string { return PromotionsPrefix + courseID }

// ValidatedRef is the lookup ref from a validated_set_sha to its set.
func ValidatedRef(validatedSetSHA string) string { return ValidatedPrefix + validatedSetSHA }

// LoadReviewed returns the reviewed knowledge (empty before the first
// promotion) and the digest of its object ("" when there is none).
func LoadReviewed(ctx context.Context, s store.Store) (ReviewedKnowledge, string, error) {
	k, digest, _, found, err := loadRefObject[ReviewedKnowledge](ctx, s, KnowledgeRef)
	if err != nil || !found {
		return emptyKnowledge(), "", err
	}
	return k, digest, nil
}

// LoadIndex returns the mastered-courses index (empty before the first
// promotion) and the digest of its object ("" when there is none).
func LoadIndex(ctx context.Context, s store.Store) (artifact.MasteredCoursesIndex, string, error) {
	idx, digest, _, found, err := loadRefObject[artifact.MasteredCoursesIndex](ctx, s, IndexRef)
	if err != nil || !found {
		return emptyIndex(), "", err
	}
	return idx, digest, nil
}

func emptyIndex() artifact.MasteredCoursesIndex {
	return artifact.MasteredCoursesIndex{Entries: []artifact.MasteredCourseEntry{}, SchemaVersion: artifact.SchemaVersion}
}

// RecordValidatedSet makes a stored validated set findable by its
// validated_set_sha (ref index/validated/<sha>) and returns that sha. The
// caller that stores a set a report will name (compose's command or the
// orchestrator) calls it. An existing entry is kept: any set with the same
// projection digest serves promote equally.
func RecordValidatedSet(ctx context.Context, s store.Store, vtsDigest string) (string, error) {
	raw, err := s.Get(ctx, vtsDigest)
	if err != nil {
		return "", fmt.Errorf("promote: read validated set %s: %w", vtsDigest, err)
	}
	vts, err := artifact.Decode[artifact.ValidatedTripleSet](raw)
	if err != nil {
		return "", refuse(exitcode.Rejected, ReasonUndecodableVTS, "%s: %v", vtsDigest, err)
	}
	sha, err := artifact.ValidatedSetSHA(vts)
	if err != nil {
		return "", refuse(exitcode.Rejected, ReasonUndecodableVTS, "%s: %v", vtsDigest, err)
	}
	if _, err := s.SetRef(ctx, ValidatedRef(sha), "", []byte(vtsDigest)); err != nil && !errors.Is(err, store.ErrPrecondition) {
		return "", fmt.Errorf("promote: record %s: %w", ValidatedRef(sha), err)
	}
	return sha, nil
}

// readDigestRef returns the digest a ref holds, or found=false.
func readDigestRef(ctx context.Context, s store.Store, ref string) (digest, version string, found bool, err error) {
	val, version, err := s.GetRef(ctx, ref)
	if errors.Is(err, store.ErrNotFound) {
		return "", "", false, nil
	}
	if err != nil {
		return "", "", false, fmt.Errorf("promote: read %s: %w", ref, err)
	}
	d := strings.TrimSpace(string(val))
	if !isDigest(d) {
		return "", "", false, refuse(exitcode.Rejected, ReasonUndecodableState, "ref %s holds %q, not a digest", ref, d)
	}
	return d, version, true, nil
}

// loadRefObject reads the object a ref points at and decodes it strictly.
func loadRefObject[T any](ctx context.Context, s store.Store, ref string) (v T, digest, version string, found bool, err error) {
	digest, version, found, err = readDigestRef(ctx, s, ref)
	if err != nil || !found {
		return v, "", "", found, err
	}
	raw, err := s.Get(ctx, digest)
	if err != nil {
		return v, "", "", false, fmt.Errorf("promote: read %s → %s: %w", ref, digest, err)
	}
	if v, err = artifact.Decode[T](raw); err != nil {
		return v, "", "", false, refuse(exitcode.Rejected, ReasonUndecodableState, "%s → %s: %v", ref, digest, err)
	}
	return v, digest, version, true, nil
}

// updateRef moves a ref to the object update derives from the current one,
// by compare-and-swap, re-reading and re-deriving after a lost race. When
// update reports no change, the ref stays and its digest is returned.
func updateRef[T any](ctx context.Context, s store.Store, ref string, empty T, update func(T) (T, bool, error)) (string, error) {
	for attempt := 0; attempt < maxCASAttempts; attempt++ {
		cur, digest, version, found, err := loadRefObject[T](ctx, s, ref)
		if err != nil {
			return "", err
		}
		if !found {
			cur = empty
		}
		next, changed, err := update(cur)
		if err != nil || !changed {
			return digest, err
		}
		body, err := artifact.Encode(next)
		if err != nil {
			return "", fmt.Errorf("promote: encode %s: %w", ref, err)
		}
		d, err := s.Put(ctx, body)
		if err != nil {
			return "", fmt.Errorf("promote: store %s: %w", ref, err)
		}
		if _, err = s.SetRef(ctx, ref, version, []byte(d)); err == nil {
			return d, nil
		} else if !errors.Is(err, store.ErrPrecondition) {
			return "", fmt.Errorf("promote: move %s: %w", ref, err)
		}
	}
	return "", refuse(exitcode.Unavailable, ReasonConcurrentChange, "lost the race on %s %d times; retry", ref, maxCASAttempts)
}

// indexEntry finds a course in the index.
func indexEntry(idx artifact.MasteredCoursesIndex, courseID string) (artifact.MasteredCourseEntry, bool) {
	i := slices.IndexFunc(idx.Entries, func(e artifact.MasteredCourseEntry) bool { return e.CourseID == courseID })
	if i < 0 {
		return artifact.MasteredCourseEntry{}, false
	}
	return idx.Entries[i], true
}

// addEntry records a promotion in the index: a new course, the same report
// again (no change), or the replacement of exactly the report it supersedes.
func addEntry(idx artifact.MasteredCoursesIndex, e artifact.MasteredCourseEntry, replaces string) (artifact.MasteredCoursesIndex, bool, error) {
	old, found := indexEntry(idx, e.CourseID)
	switch {
	case found && old.ReportSHA256 == e.ReportSHA256:
		return idx, false, nil
	case found && old.ReportSHA256 != replaces:
		return idx, false, refuse(exitcode.Unavailable, ReasonConcurrentChange,
			"course %s is now promoted under report %s (this promotion expected %q); retry", e.CourseID, old.ReportSHA256, replaces)
	case !found && replaces != "":
		return idx, false, refuse(exitcode.Unavailable, ReasonConcurrentChange,
			"course %s left the index while this promotion superseded %s; retry", e.CourseID, replaces)
	}
	next := artifact.MasteredCoursesIndex{SchemaVersion: artifact.SchemaVersion, Entries: []artifact.MasteredCourseEntry{}}
	for _, x := range idx.Entries {
		if x.CourseID != e.CourseID {
			next.Entries = append(next.Entries, x)
		}
	}
	next.Entries = append(next.Entries, e)
	slices.SortFunc(next.Entries, func(a, b artifact.MasteredCourseEntry) int { return strings.Compare(a.CourseID, b.CourseID) })
	return next, true, nil
}
