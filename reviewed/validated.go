package reviewed

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"formation/artifact"
	"formation/internal/exitcode"
	"formation/store"
)

// ValidatedPrefix + validated_set_sha is a create-only ref to a stored
// ValidatedTripleSet whose compose projection has that digest.
const ValidatedPrefix = "index/validated/"

// ReasonUndecodableVTS: the object is not a validated triple set (65).
const ReasonUndecodableVTS = "undecodable_validated_set"

// ValidatedRef is the lookup ref of a validated_set_sha.
func ValidatedRef(validatedSetSHA string) string { return ValidatedPrefix + validatedSetSHA }

// RecordValidatedSet makes a stored validated set findable by its
// validated_set_sha and returns that sha. The caller that stores a set a
// report will name (compose's frame, pack ratification) calls it. An existing
// entry is kept: any set with the same projection serves equally.
func RecordValidatedSet(ctx context.Context, s store.Store, vtsDigest string) (string, error) {
	raw, err := s.Get(ctx, vtsDigest)
	if err != nil {
		return "", fmt.Errorf("reviewed: read validated set %s: %w", vtsDigest, err)
	}
	vts, err := artifact.Decode[artifact.ValidatedTripleSet](raw)
	if err != nil {
		return "", refuse(exitcode.Rejected, ReasonUndecodableVTS, "%s: %v", vtsDigest, err)
	}
	sha, err := artifact.ValidatedSetSHA(vts)
	if err != nil {
		return "", refuse(exitcode.Rejected, ReasonUndecodableVTS, "%s: %v", vtsDigest, err)
	}
	return sha, IndexValidatedSet(ctx, s, sha, vtsDigest)
}

// IndexValidatedSet records the stored validated set vtsDigest under its
// validated_set_sha when the caller has that sha already, computed from the
// very set (compose does, as part of the course), so the set need not be
// read and decoded again. An existing entry is kept.
func IndexValidatedSet(ctx context.Context, s store.Store, validatedSetSHA, vtsDigest string) error {
	if _, err := store.CreateRef(ctx, s, ValidatedRef(validatedSetSHA), []byte(vtsDigest)); err != nil {
		return fmt.Errorf("reviewed: %w", err)
	}
	return nil
}

// FindValidatedSet returns the object digest recorded for a
// validated_set_sha, or found == false.
func FindValidatedSet(ctx context.Context, s store.Store, validatedSetSHA string) (digest string, found bool, err error) {
	val, _, err := s.GetRef(ctx, ValidatedRef(validatedSetSHA))
	switch {
	case errors.Is(err, store.ErrNotFound):
		return "", false, nil
	case err != nil:
		return "", false, fmt.Errorf("reviewed: read %s: %w", ValidatedRef(validatedSetSHA), err)
	}
	d := strings.TrimSpace(string(val))
	if !store.ValidDigest(d) {
		return "", false, refuse(exitcode.Rejected, ReasonUndecodableState, "ref %s holds %q, not a digest", ValidatedRef(validatedSetSHA), d)
	}
	return d, true, nil
}
