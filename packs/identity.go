package packs

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"formation/canon"
)

// Bounds of identity pack numbers.
const (
	MaxAxisWeight     = 10.0
	DefaultAxisWeight = 1.0
)

// ValueAxis is one direction the identity holds to. Direction is the grade-1
// vector a·e1 + b·e2 + c·e3 that IdentityCheck lifts into the algebra.
type ValueAxis struct {
	AxisID          string
	Name            string
	Direction       [3]float64
	Weight          float64
	TheologicalNote string
}

// IdentityPack is a loaded, validated identity pack.
type IdentityPack struct {
	PackID              string
	Version             string
	Description         string
	SchemaVersion       string
	MasteryReportSHA256 string
	AlignmentThreshold  float64
	BoundaryIDs         []string // unique, sorted; may be empty
	ValueAxes           []ValueAxis
	SurfacePreferences  SurfacePreferences
	Ratified            bool   // the companion report was verified by this load
	Path                string // the file it was read from; never hashed
}

// LoadIdentityPack loads and validates the identity pack id. Failures are
// *IdentityPackError.
func LoadIdentityPack(ctx context.Context, id string, opts LoadOptions) (*IdentityPack, error) {
	pack, f := loadIdentity(ctx, id, opts)
	if f != nil {
		return nil, f.identity(id)
	}
	return pack, nil
}

func loadIdentity(ctx context.Context, id string, opts LoadOptions) (*IdentityPack, *fault) {
	k := identityKind()
	paths, f := searchPaths(k, id, opts.SearchPaths, IdentityDir)
	if f != nil {
		return nil, f
	}
	env, f := readEnvelope(ctx, k, id, paths, opts.AllowUnratified)
	if f != nil {
		return nil, f
	}
	pack := &IdentityPack{
		PackID:              id,
		Version:             env.version,
		Description:         env.description,
		SchemaVersion:       SchemaVersion,
		MasteryReportSHA256: env.masteryReportSHA256,
		Ratified:            env.ratified,
		Path:                env.path,
	}
	if f := fillIdentity(k, id, env.obj, pack); f != nil {
		return nil, f
	}
	return pack, nil
}

// fillIdentity reads the identity-specific fields into pack.
func fillIdentity(k kind, id string, obj *canon.Object, pack *IdentityPack) *fault {
	raw, _ := obj.Get("alignment_threshold")
	threshold, ok := readNumber(raw)
	if !ok || !inRange(threshold, 0, 1) {
		return newFault(ReasonInvalidThreshold, nil, "identity pack %s: alignment_threshold must be a number in [0, 1]", pyRepr(id))
	}
	pack.AlignmentThreshold = threshold
	var f *fault
	if pack.BoundaryIDs, f = readBoundaryIDs(k, id, obj, true); f != nil {
		return f
	}
	if pack.ValueAxes, f = readAxes(id, obj); f != nil {
		return f
	}
	pack.SurfacePreferences, f = readPreferences(id, obj, pack.ValueAxes)
	return f
}

// readAxes reads value_axes: at least one, each with a unique id.
func readAxes(id string, obj *canon.Object) ([]ValueAxis, *fault) {
	raw, _ := obj.Get("value_axes")
	list, ok := raw.([]any)
	if !ok || len(list) == 0 {
		return nil, axisFault(id, "value_axes must be a non-empty list")
	}
	axes := make([]ValueAxis, 0, len(list))
	seen := map[string]bool{}
	for i, item := range list {
		axis, f := readAxis(id, i, item)
		if f != nil {
			return nil, f
		}
		if seen[axis.AxisID] {
			return nil, axisFault(id, "duplicate axis_id %s", pyRepr(axis.AxisID))
		}
		seen[axis.AxisID] = true
		axes = append(axes, axis)
	}
	return axes, nil
}

func readAxis(id string, i int, item any) (ValueAxis, *fault) {
	obj, ok := item.(*canon.Object)
	if !ok {
		return ValueAxis{}, axisFault(id, "value_axes[%d] must be an object", i)
	}
	name, ok := obj.String("name")
	if !ok || name == "" {
		return ValueAxis{}, axisFault(id, "value_axes[%d].name must be a non-empty string", i)
	}
	axis := ValueAxis{AxisID: name, Name: name, Weight: DefaultAxisWeight}
	if v, present := obj.Get("axis_id"); present {
		s, ok := v.(string)
		if !ok || s == "" {
			return ValueAxis{}, axisFault(id, "value_axes[%d].axis_id must be a non-empty string", i)
		}
		axis.AxisID = s
	}
	dir, ok := readDirection(obj)
	if !ok {
		return ValueAxis{}, axisFault(id, "value_axes[%d].direction must be a list of exactly 3 numbers in [-1, 1]", i)
	}
	axis.Direction = dir
	if v, present := obj.Get("weight"); present {
		w, ok := readNumber(v)
		if !ok || !inRange(w, 0, MaxAxisWeight) {
			return ValueAxis{}, axisFault(id, "value_axes[%d].weight must be a number in [0, 10]", i)
		}
		axis.Weight = w
	}
	if v, present := obj.Get("theological_note"); present {
		s, ok := v.(string)
		if !ok {
			return ValueAxis{}, axisFault(id, "value_axes[%d].theological_note must be a string", i)
		}
		axis.TheologicalNote = s
	}
	return axis, nil
}

func readDirection(obj *canon.Object) ([3]float64, bool) {
	var dir [3]float64
	raw, _ := obj.Get("direction")
	list, ok := raw.([]any)
	if !ok || len(list) != 3 {
		return dir, false
	}
	for i, v := range list {
		x, ok := readNumber(v)
		if !ok || !inRange(x, -1, 1) {
			return dir, false
		}
		dir[i] = x
	}
	return dir, true
}

func axisFault(id, format string, args ...any) *fault {
	return newFault(ReasonInvalidAxes, nil, "identity pack %s: %s", pyRepr(id), fmt.Sprintf(format, args...))
}

// AvailableIdentityPacks lists the ids of the identity packs in the search
// paths (default: the identity folder of FindPacksDir), sorted. Companion
// reports and JSON files that do not look like identity packs (no
// schema_version or value_axes) are skipped; an id found in several folders
// is listed once. Listing does not validate: load a pack to use it.
func AvailableIdentityPacks(ctx context.Context, dirs []string) ([]string, error) {
	paths, f := searchPaths(identityKind(), "*", dirs, IdentityDir)
	if f != nil {
		return nil, f.identity("")
	}
	seen := map[string]bool{}
	for _, dir := range paths {
		entries, err := os.ReadDir(dir)
		if err != nil {
			continue // a missing folder holds no packs
		}
		for _, e := range entries {
			id, ok := identityCandidate(ctx, dir, e)
			if ok {
				seen[id] = true
			}
		}
	}
	ids := make([]string, 0, len(seen))
	for id := range seen {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return ids, ctx.Err()
}

func identityCandidate(ctx context.Context, dir string, e os.DirEntry) (string, bool) {
	name := e.Name()
	if e.IsDir() || !strings.HasSuffix(name, ".json") || IsCompanionReport(name) {
		return "", false
	}
	id := strings.TrimSuffix(name, ".json")
	if !validPackID(id) {
		return "", false
	}
	data, err := readBounded(ctx, filepath.Join(dir, name))
	if err != nil {
		return "", false
	}
	doc, err := canon.DecodeTolerant(data)
	obj, ok := doc.(*canon.Object)
	if err != nil || !ok || !obj.Has("schema_version") || !obj.Has("value_axes") {
		return "", false
	}
	return id, true
}
