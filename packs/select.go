package packs

import (
	"context"
	"fmt"
	"path/filepath"
)

// IdentityFallback records that a named identity pack failed to load and the
// default was used instead. It is returned, never printed: the caller decides
// where warnings go (stderr, the TurnEvent log, an audit record).
type IdentityFallback struct {
	RequestedID string
	LoadedID    string
	Cause       *IdentityPackError
}

// String is the warning text.
func (w *IdentityFallback) String() string {
	return fmt.Sprintf("identity pack %s could not be loaded (%s: %s); using %s instead",
		pyRepr(w.RequestedID), w.Cause.Reason, w.Cause.Detail, pyRepr(w.LoadedID))
}

// SelectIdentity loads the identity pack requested ("" means the default).
// When a named pack other than the default fails, the default is loaded and
// the failure comes back as an IdentityFallback (the rule the original
// documented; its code raised instead). When the default itself fails there is nothing to fall
// back to and the error is returned.
func SelectIdentity(ctx context.Context, requested string, opts LoadOptions) (*IdentityPack, *IdentityFallback, error) {
	if requested == "" {
		requested = DefaultIdentityPackID
	}
	pack, f := loadIdentity(ctx, requested, opts)
	if f == nil {
		return pack, nil, nil
	}
	if requested == DefaultIdentityPackID || f.reason == ReasonCanceled {
		return nil, nil, f.identity(requested)
	}
	def, err := LoadIdentityPack(ctx, DefaultIdentityPackID, opts)
	if err != nil {
		return nil, nil, err
	}
	return def, &IdentityFallback{RequestedID: requested, LoadedID: DefaultIdentityPackID, Cause: f.identity(requested)}, nil
}

// Loaded is what the runtime starts with.
type Loaded struct {
	Safety   *SafetyPack
	Identity *IdentityPack
	Manifold *Manifold
	Fallback *IdentityFallback // nil unless the requested identity pack failed
	// SignaturesChecked is set when both packs' signed ratifications were
	// verified against Options.TrustedPackKeys.
	SignaturesChecked bool
}

// Load is the runtime's start-up sequence: the safety pack (fail-closed; a
// *SafetyPackError means do not start), then the identity pack with fallback,
// then the composed manifold.
func Load(ctx context.Context, opts Options) (*Loaded, error) {
	dir := opts.Dir
	safetyID := opts.SafetyPackID
	if safetyID == "" {
		safetyID = DefaultSafetyPackID
	}
	if dir == "" {
		found, err := FindPacksDir()
		if err != nil {
			return nil, &SafetyPackError{Reason: ReasonNotFound, PackID: safetyID, Err: err,
				Detail: fmt.Sprintf("safety pack %s not found: %v%s", pyRepr(safetyID), err, safetyKind().notFoundSuffix)}
		}
		dir = found
	}
	safety, err := LoadSafetyPack(ctx, safetyID, LoadOptions{
		SearchPaths:     []string{filepath.Join(dir, SafetyDir)},
		AllowUnratified: opts.AllowUnratifiedSafety,
	})
	if err != nil {
		return nil, err
	}
	identity, fallback, err := SelectIdentity(ctx, opts.IdentityPackID, LoadOptions{
		SearchPaths:     []string{filepath.Join(dir, IdentityDir)},
		AllowUnratified: opts.AllowUnratifiedIdentity,
	})
	if err != nil {
		return nil, err
	}
	if opts.TrustedPackKeys != nil {
		for _, path := range []string{safety.Path, identity.Path} {
			doc, err := readPackDoc(path)
			if err != nil {
				return nil, err
			}
			if err := VerifyPackSignature(path, doc, *opts.TrustedPackKeys); err != nil {
				return nil, err
			}
		}
	}
	m, err := Compose(identity, safety)
	if err != nil {
		return nil, err
	}
	return &Loaded{Safety: safety, Identity: identity, Manifold: m, Fallback: fallback, SignaturesChecked: opts.TrustedPackKeys != nil}, nil
}
