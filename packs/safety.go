package packs

import (
	"context"
	"path/filepath"
	"slices"
	"sort"

	"formation/canon"
)

// SafetyPack is a loaded, validated safety pack.
type SafetyPack struct {
	PackID              string `json:"pack_id"`
	Version             string `json:"version"`
	Description         string `json:"description"`
	SchemaVersion       string `json:"schema_version"`
	MasteryReportSHA256 string `json:"mastery_report_sha256"`
	// BoundaryIDs are unique, non-empty and sorted by code point.
	BoundaryIDs []string `json:"boundary_ids"`
	// BoundaryDescriptions has one entry per boundary: the declared text, or
	// "" when the pack gives none. Keys not naming a boundary are dropped.
	BoundaryDescriptions map[string]string `json:"boundary_descriptions"`
	// Ratified is true only when this load verified the companion report.
	// A pack loaded under the development override is never Ratified, even
	// if it declares a report digest (the original set the flag from the
	// digest alone).
	Ratified bool `json:"ratified"`
	// Path is the file the pack was read from; for messages, never hashed.
	Path string `json:"-"`
}

// LoadOptions controls one pack load.
type LoadOptions struct {
	// SearchPaths are folders holding <pack_id>.json; the first that has the
	// file wins. Empty means the kind's sub-folder of FindPacksDir().
	SearchPaths []string
	// AllowUnratified skips the ratification block (declared digest,
	// companion report, seal, ratified flag). The zero value is production.
	// Set it from OptionsFromEnv, never from user input.
	AllowUnratified bool
}

// LoadSafetyPack loads and validates the safety pack id. Every failure is a
// *SafetyPackError: the caller must refuse to start, not continue.
func LoadSafetyPack(ctx context.Context, id string, opts LoadOptions) (*SafetyPack, error) {
	k := safetyKind()
	paths, f := searchPaths(k, id, opts.SearchPaths, SafetyDir)
	if f != nil {
		return nil, f.safety(id)
	}
	env, f := readEnvelope(ctx, k, id, paths, opts.AllowUnratified)
	if f != nil {
		return nil, f.safety(id)
	}
	ids, f := readBoundaryIDs(k, id, env.obj, false)
	if f != nil {
		return nil, f.safety(id)
	}
	descriptions, f := readDescriptions(id, env.obj, ids)
	if f != nil {
		return nil, f.safety(id)
	}
	return &SafetyPack{
		PackID:               id,
		Version:              env.version,
		Description:          env.description,
		SchemaVersion:        SchemaVersion,
		MasteryReportSHA256:  env.masteryReportSHA256,
		BoundaryIDs:          ids,
		BoundaryDescriptions: descriptions,
		Ratified:             env.ratified,
		Path:                 env.path,
	}, nil
}

// searchPaths returns the caller's folders or, when there are none, the
// kind's sub-folder of the packs folder.
func searchPaths(k kind, id string, given []string, sub string) ([]string, *fault) {
	if len(given) > 0 {
		return append([]string(nil), given...), nil
	}
	dir, err := FindPacksDir()
	if err != nil {
		return nil, newFault(ReasonNotFound, err, "%s pack %s not found in []%s (%v)", k.name, pyRepr(id), k.notFoundSuffix, err)
	}
	return []string{filepath.Join(dir, sub)}, nil
}

// readBoundaryIDs checks boundary_ids and returns them sorted. Safety packs
// need at least one; identity packs may declare none. Duplicates are refused
// in both (the original let identity duplicates through; a set with a repeat
// is an authoring mistake either way).
func readBoundaryIDs(k kind, id string, obj *canon.Object, allowEmpty bool) ([]string, *fault) {
	raw, _ := obj.Get("boundary_ids")
	list, ok := raw.([]any)
	if !ok || (len(list) == 0 && !allowEmpty) {
		what := "a non-empty list"
		if allowEmpty {
			what = "a list"
		}
		return nil, newFault(ReasonInvalidBoundaries, nil, "%s pack %s: boundary_ids must be %s", k.name, pyRepr(id), what)
	}
	seen := make(map[string]bool, len(list))
	ids := make([]string, 0, len(list))
	for i, item := range list {
		b, ok := item.(string)
		if !ok || b == "" {
			return nil, newFault(ReasonInvalidBoundaries, nil, "%s pack %s: boundary_ids[%d] must be a non-empty string", k.name, pyRepr(id), i)
		}
		if seen[b] {
			return nil, newFault(ReasonDuplicateBoundary, nil, "%s pack %s: duplicate boundary_id %s", k.name, pyRepr(id), pyRepr(b))
		}
		seen[b] = true
		ids = append(ids, b)
	}
	sort.Strings(ids)
	return ids, nil
}

// readDescriptions reads boundary_descriptions (absent means none). Each
// declared boundary gets its text or ""; other keys are ignored.
func readDescriptions(id string, obj *canon.Object, ids []string) (map[string]string, *fault) {
	out := make(map[string]string, len(ids))
	raw, present := obj.Get("boundary_descriptions")
	if !present {
		raw = canon.NewObject()
	}
	descs, ok := raw.(*canon.Object)
	if !ok {
		return nil, newFault(ReasonInvalidDescriptions, nil, "safety pack %s: boundary_descriptions must be a dict", pyRepr(id))
	}
	for _, b := range ids {
		v, present := descs.Get(b)
		if !present {
			out[b] = ""
			continue
		}
		s, ok := v.(string)
		if !ok {
			return nil, newFault(ReasonInvalidDescriptions, nil, "safety pack %s: boundary_descriptions[%s] must be a string", pyRepr(id), pyRepr(b))
		}
		out[b] = s
	}
	return out, nil
}

// HasBoundary reports whether the pack declares boundary id.
func (p *SafetyPack) HasBoundary(id string) bool {
	return slices.Contains(p.BoundaryIDs, id)
}
