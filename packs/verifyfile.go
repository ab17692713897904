package packs

import (
	"context"
	"path/filepath"
	"strings"

	"formation/canon"
)

// VerifyPackFile checks the pack read from path (pack is its document) as
// production reads it, and returns the pack's kind (KindOf). A safety or
// identity pack goes through its loader in production mode — every check,
// VerifyRatification included — so the file must be named <pack_id>.json, as
// the runtime finds it; any other pack has its ratification verified. A
// refusal is a *SafetyPackError, *IdentityPackError or *RatificationError;
// ReasonOf names its reason, the one the runtime gives for the same file.
func VerifyPackFile(ctx context.Context, path string, pack *canon.Object) (string, error) {
	id := strings.TrimSuffix(filepath.Base(path), ".json")
	opts := LoadOptions{SearchPaths: []string{filepath.Dir(path)}}
	switch k := KindOf(pack); k {
	case KindSafety:
		_, err := LoadSafetyPack(ctx, id, opts)
		return k, err
	case KindIdentity:
		_, err := LoadIdentityPack(ctx, id, opts)
		return k, err
	}
	_, err := VerifyRatification(ctx, "", id, path, pack)
	return "", err
}
