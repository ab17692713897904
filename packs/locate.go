package packs

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"formation/signing"
)

// Pack ids and folder names.
const (
	// DefaultSafetyPackID is the one safety pack the runtime loads.
	DefaultSafetyPackID = "core_safety_axes_v1"
	// DefaultIdentityPackID is the identity pack used when none is named and
	// the fallback when a named one fails to load.
	DefaultIdentityPackID = "default_general_v1"

	// SafetyDir and IdentityDir are the sub-folders of the packs folder.
	SafetyDir   = "safety"
	IdentityDir = "identity"

	// SchemaVersion is the only pack schema this loader understands.
	SchemaVersion = "1.0.0"

	// MaxPackBytes bounds what the loader reads from one pack or report
	// file; real packs are a few kilobytes.
	MaxPackBytes = 1 << 20
)

// Environment variables read by this package, each in exactly one place.
const (
	// EnvPacksDir names the packs folder explicitly (read by FindPacksDir).
	EnvPacksDir = "FORMATION_PACKS_DIR"
	// EnvAllowUnratifiedSafety set to exactly "1" skips the ratification
	// block of safety (and identity) packs; development only.
	EnvAllowUnratifiedSafety = "CORE_ALLOW_UNRATIFIED_SAFETY"
	// EnvAllowUnratifiedIdentity set to exactly "1" skips the ratification
	// block of identity packs only.
	EnvAllowUnratifiedIdentity = "CORE_ALLOW_UNRATIFIED_IDENTITY"
)

// ErrNoPacksDir is wrapped by FindPacksDir when no packs folder exists.
var ErrNoPacksDir = errors.New("packs: no packs folder found")

// FindPacksDir returns the folder holding safety/ and identity/. It tries, in
// order: $FORMATION_PACKS_DIR (which must then exist; it never falls through
// to a guess), then packs/ in the working directory and in each parent up to
// and including the module root (the nearest folder with go.mod). Outside a
// module only the working directory is tried. A candidate counts only if it
// has a safety/ sub-folder.
func FindPacksDir() (string, error) {
	wd, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("%w: working directory: %v", ErrNoPacksDir, err)
	}
	return findPacksDir(os.Getenv(EnvPacksDir), wd)
}

func findPacksDir(explicit, wd string) (string, error) {
	if explicit != "" {
		if !isDir(filepath.Join(explicit, SafetyDir)) {
			return "", fmt.Errorf("%w: %s=%s has no %s/ folder", ErrNoPacksDir, EnvPacksDir, explicit, SafetyDir)
		}
		return filepath.Clean(explicit), nil
	}
	for _, dir := range searchAncestors(wd) {
		candidate := filepath.Join(dir, "packs")
		if isDir(filepath.Join(candidate, SafetyDir)) {
			return candidate, nil
		}
	}
	return "", fmt.Errorf("%w: no packs/%s/ from %s up to the module root; name the folder that holds %s/ with --packs-dir DIR or %s=DIR",
		ErrNoPacksDir, SafetyDir, wd, SafetyDir, EnvPacksDir)
}

// searchAncestors lists wd and its parents up to the module root, or only wd
// when no go.mod lies above it.
func searchAncestors(wd string) []string {
	dirs := []string{}
	for dir := filepath.Clean(wd); ; dir = filepath.Dir(dir) {
		dirs = append(dirs, dir)
		if isFile(filepath.Join(dir, "go.mod")) {
			return dirs
		}
		if filepath.Dir(dir) == dir {
			return dirs[:1]
		}
	}
}

func isDir(path string) bool {
	info, err := os.Stat(path)
	return err == nil && info.IsDir()
}

func isFile(path string) bool {
	info, err := os.Stat(path)
	return err == nil && info.Mode().IsRegular()
}

// Options says where the packs are and which to load; Load reads them.
type Options struct {
	Dir            string // the packs folder; "" means FindPacksDir()
	SafetyPackID   string // "" means DefaultSafetyPackID
	IdentityPackID string // "" means DefaultIdentityPackID
	// AllowUnratifiedSafety and AllowUnratifiedIdentity skip the
	// ratification block. The zero value is production: ratification required.
	AllowUnratifiedSafety   bool
	AllowUnratifiedIdentity bool
	// TrustedPackKeys, when set (production), makes Load refuse (exit 77) a
	// safety or identity pack whose ratification is not signed by one of
	// these keys (`formation pack promote`). Nil checks no pack signature;
	// Loaded.SignaturesChecked then says so.
	TrustedPackKeys *signing.TrustedKeys
}

// OptionsFromEnv is the one place that reads the development overrides.
// CORE_ALLOW_UNRATIFIED_SAFETY=1 relaxes both kinds of pack (the packs this
// project ships are unratified until the pipeline ratifies them, and a
// deployment that tolerates an unratified safety pack gains nothing by
// refusing an unratified identity); CORE_ALLOW_UNRATIFIED_IDENTITY=1 relaxes
// identity packs only, as in the original. Any value other than exactly "1"
// is ignored.
func OptionsFromEnv() Options {
	safety := os.Getenv(EnvAllowUnratifiedSafety) == "1"
	identity := os.Getenv(EnvAllowUnratifiedIdentity) == "1"
	return Options{
		AllowUnratifiedSafety:   safety,
		AllowUnratifiedIdentity: safety || identity,
	}
}
