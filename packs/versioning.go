package packs

import (
	"cmp"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"formation/canon"
	"formation/internal/exitcode"
)

// Bump is a semantic-version change level.
type Bump int

// The levels, least first.
const (
	BumpNone Bump = iota
	BumpPatch
	BumpMinor
	BumpMajor
)

func (b Bump) String() string {
	return [...]string{"none", "patch", "minor", "major"}[b]
}

// Change is one difference between two versions of a pack and the bump the
// versioning policy requires for it.
type Change struct {
	What string `json:"what"`
	Bump string `json:"bump"`
	bump Bump
}

// VersionCheck is the verdict on a new version of a pack.
type VersionCheck struct {
	PackID      string   `json:"pack_id"`
	NewPackID   string   `json:"new_pack_id"`
	Kind        string   `json:"kind"`
	OldVersion  string   `json:"old_version"`
	NewVersion  string   `json:"new_version"`
	Required    string   `json:"required_bump"`
	Actual      string   `json:"actual_bump"`
	Changes     []Change `json:"changes"`
	Valid       bool     `json:"valid"`
	Reason      Reason   `json:"reason,omitempty"`
	Explanation string   `json:"explanation,omitempty"`
}

// Reasons a version is refused.
const (
	ReasonKindChanged       Reason = "pack_kind_changed"
	ReasonVersionNotSemver  Reason = "version_not_semver"
	ReasonVersionBackwards  Reason = "version_not_increasing"
	ReasonBumpWithoutChange Reason = "bump_without_change"
	ReasonBumpTooSmall      Reason = "bump_too_small"
	ReasonBumpTooLarge      Reason = "bump_too_large"
	ReasonPackIDNotRenamed  Reason = "pack_id_not_renamed"
	ReasonPackIDRenamed     Reason = "pack_id_renamed"
	ReasonPackIDWrongMajor  Reason = "pack_id_wrong_major"
	ReasonSchemaNotBumped   Reason = "schema_version_not_bumped"
)

// VersionError is a refusal of CheckVersion (exit 65).
type VersionError struct{ Check VersionCheck }

func (e *VersionError) Error() string {
	return fmt.Sprintf("pack %s %s → %s: %s: %s", e.Check.PackID, e.Check.OldVersion, e.Check.NewVersion, e.Check.Reason, e.Check.Explanation)
}

// ExitCode is 65: the new version is refused.
func (e *VersionError) ExitCode() int { return exitcode.Rejected }

// CheckVersion enforces the versioning policy on NEW, a new version of the
// pack OLD (both decoded documents; ratification fields are ignored):
//
//	description and other text edits                → patch
//	a boundary added; an identity axis added        → minor
//	a boundary removed; an axis removed; an axis's
//	direction or weight, or any threshold, changed  → major and a new pack id
//	the schema changed                              → major and a new schema_version
//
// The version must move by exactly the largest bump its changes require
// (not at all when nothing changed); a major bump renames the pack (the id's
// "_v<major>" suffix follows the new major), any other keeps its id. The
// error is a *VersionError naming the rule broken.
func CheckVersion(old, new *canon.Object) (VersionCheck, error) {
	vc := VersionCheck{Kind: KindOf(old), Changes: []Change{}}
	vc.PackID, _ = old.String("pack_id")
	vc.NewPackID, _ = new.String("pack_id")
	vc.OldVersion, _ = old.String("version")
	vc.NewVersion, _ = new.String("version")
	if k := KindOf(new); k != vc.Kind || k == "" {
		return vc.refuse(ReasonKindChanged, "OLD is a %q pack and NEW a %q pack; only safety and identity packs are versioned here", vc.Kind, k)
	}
	vc.Changes = changesOf(vc.Kind, old, new)
	required := BumpNone
	for _, c := range vc.Changes {
		required = max(required, c.bump)
	}
	vc.Required = required.String()
	oldV, ok1 := parseSemver(vc.OldVersion)
	newV, ok2 := parseSemver(vc.NewVersion)
	if !ok1 || !ok2 {
		return vc.refuse(ReasonVersionNotSemver, "versions %q and %q must both be MAJOR.MINOR.PATCH", vc.OldVersion, vc.NewVersion)
	}
	actual, ok := bumpBetween(oldV, newV)
	if !ok {
		return vc.refuse(ReasonVersionBackwards, "%s does not come after %s", vc.NewVersion, vc.OldVersion)
	}
	vc.Actual = actual.String()
	if err := vc.checkBump(required, actual); err != nil {
		return vc, err
	}
	if err := vc.checkNames(old, new, required, newV); err != nil {
		return vc, err
	}
	vc.Valid = true
	return vc, nil
}

func (vc *VersionCheck) refuse(r Reason, format string, args ...any) (VersionCheck, error) {
	vc.Reason, vc.Explanation, vc.Valid = r, fmt.Sprintf(format, args...), false
	return *vc, &VersionError{Check: *vc}
}

// checkBump requires the version to move by exactly the required level.
func (vc *VersionCheck) checkBump(required, actual Bump) error {
	first := func(b Bump) string {
		for _, c := range vc.Changes {
			if c.bump == b {
				return c.What
			}
		}
		return ""
	}
	var err error
	switch {
	case required == BumpNone && actual != BumpNone:
		_, err = vc.refuse(ReasonBumpWithoutChange, "the version moved (%s) but nothing the policy versions changed", actual)
	case actual < required:
		_, err = vc.refuse(ReasonBumpTooSmall, "%s needs a %s bump; %s → %s is %s", first(required), required, vc.OldVersion, vc.NewVersion, actual)
	case actual > required:
		_, err = vc.refuse(ReasonBumpTooLarge, "the changes need a %s bump (largest: %s); %s → %s is %s", required, first(required), vc.OldVersion, vc.NewVersion, actual)
	}
	return err
}

// checkNames applies the naming rules of a major and of any other bump.
func (vc *VersionCheck) checkNames(old, new *canon.Object, required Bump, newV [3]int) error {
	var err error
	switch {
	case required == BumpMajor && vc.NewPackID == vc.PackID:
		_, err = vc.refuse(ReasonPackIDNotRenamed, "a major version is a new pack: rename %s (e.g. to its _v%d form)", vc.PackID, newV[0])
	case required != BumpMajor && vc.NewPackID != vc.PackID:
		_, err = vc.refuse(ReasonPackIDRenamed, "a %s bump keeps the pack id %s (NEW is %s)", required, vc.PackID, vc.NewPackID)
	case required == BumpMajor && majorSuffix.MatchString(vc.PackID) && !strings.HasSuffix(vc.NewPackID, "_v"+strconv.Itoa(newV[0])):
		_, err = vc.refuse(ReasonPackIDWrongMajor, "pack ids end in _v<major>: %s at version %s should end in _v%d", vc.NewPackID, vc.NewVersion, newV[0])
	case structureChanged(old, new) && sameString(old, new, "schema_version"):
		_, err = vc.refuse(ReasonSchemaNotBumped, "the pack's fields changed; a schema change needs a new schema_version")
	}
	return err
}

var (
	majorSuffix = regexp.MustCompile(`_v[0-9]+$`)
	semver      = regexp.MustCompile(`^(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)$`)
)

func parseSemver(s string) ([3]int, bool) {
	m := semver.FindStringSubmatch(s)
	if m == nil {
		return [3]int{}, false
	}
	var v [3]int
	for i := range v {
		n, err := strconv.Atoi(m[i+1])
		if err != nil {
			return v, false
		}
		v[i] = n
	}
	return v, true
}

// bumpBetween is the level by which b moves on from a; ok is false when b
// does not come after a (or equal it).
func bumpBetween(a, b [3]int) (Bump, bool) {
	switch c := cmp.Or(cmp.Compare(b[0], a[0]), cmp.Compare(b[1], a[1]), cmp.Compare(b[2], a[2])); {
	case c < 0:
		return BumpNone, false
	case c == 0:
		return BumpNone, true
	case b[0] > a[0]:
		return BumpMajor, true
	case b[1] > a[1]:
		return BumpMinor, true
	}
	return BumpPatch, true
}

// versionFields are what the policy reads as the pack's identity, not its
// content; ratification fields change with every ratification.
var versionFields = map[string]bool{"pack_id": true, "version": true, "mastery_report_sha256": true}

// changesOf lists every difference the policy versions, sorted.
func changesOf(kind string, old, new *canon.Object) []Change {
	var out []Change
	add := func(b Bump, format string, args ...any) {
		out = append(out, Change{What: fmt.Sprintf(format, args...), Bump: b.String(), bump: b})
	}
	if !sameString(old, new, "schema_version") {
		add(BumpMajor, "schema_version changed")
	}
	if !sameString(old, new, "description") {
		add(BumpPatch, "description edited")
	}
	diffIDs(old, new, "boundary_ids", "boundary", add)
	known := map[string]bool{"schema_version": true, "description": true, "boundary_ids": true}
	if kind == KindSafety {
		known["boundary_descriptions"] = true
		diffText(objectField(old, "boundary_descriptions"), objectField(new, "boundary_descriptions"), "boundary description", add)
	} else {
		for _, f := range []string{"value_axes", "alignment_threshold", "surface_preferences"} {
			known[f] = true
		}
		diffAxes(old, new, add)
		if !sameValue(old, new, "alignment_threshold") {
			add(BumpMajor, "alignment_threshold changed")
		}
		diffText(objectField(old, "surface_preferences"), objectField(new, "surface_preferences"), "surface preference", add)
	}
	for _, k := range unionKeys(old, new) {
		if !known[k] && !versionFields[k] && !sameValue(old, new, k) {
			add(BumpMajor, "field %s changed (the policy knows no smaller bump for it)", k)
		}
	}
	slices.SortFunc(out, func(a, b Change) int { return cmp.Or(cmp.Compare(b.bump, a.bump), strings.Compare(a.What, b.What)) })
	return out
}

// diffIDs compares two lists of ids: an added one is minor, a removed one major.
func diffIDs(old, new *canon.Object, field, what string, add func(Bump, string, ...any)) {
	a, b := stringList(old, field), stringList(new, field)
	for _, id := range b {
		if !slices.Contains(a, id) {
			add(BumpMinor, "%s %s added", what, id)
		}
	}
	for _, id := range a {
		if !slices.Contains(b, id) {
			add(BumpMajor, "%s %s removed", what, id)
		}
	}
}

// diffAxes compares value axes by axis_id: added → minor; removed, or a
// direction, weight or other non-text field changed → major; a name or note
// edited → patch.
func diffAxes(old, new *canon.Object, add func(Bump, string, ...any)) {
	a, b := axesByID(old), axesByID(new)
	for _, id := range sortedKeys(b) {
		if _, ok := a[id]; !ok {
			add(BumpMinor, "axis %s added", id)
		}
	}
	for _, id := range sortedKeys(a) {
		nb, ok := b[id]
		if !ok {
			add(BumpMajor, "axis %s removed", id)
			continue
		}
		for _, k := range unionKeys(a[id], nb) {
			if sameValue(a[id], nb, k) {
				continue
			}
			switch k {
			case "name", "theological_note", "description":
				add(BumpPatch, "axis %s: %s edited", id, k)
			default:
				add(BumpMajor, "axis %s: %s changed", id, k)
			}
		}
	}
}

// diffText compares two objects of text leaves (nested objects allowed): a
// text edited is a patch, a number-valued text (a threshold) changed is
// major, a key added minor, a key removed major.
func diffText(a, b *canon.Object, what string, add func(Bump, string, ...any)) {
	walkText(a, b, what, add)
}

func walkText(a, b *canon.Object, path string, add func(Bump, string, ...any)) {
	for _, k := range unionKeys(a, b) {
		av, aok := get(a, k)
		bv, bok := get(b, k)
		p := path + " " + k
		switch {
		case !aok:
			add(BumpMinor, "%s added", p)
		case !bok:
			add(BumpMajor, "%s removed", p)
		default:
			ao, aIsObj := av.(*canon.Object)
			bo, bIsObj := bv.(*canon.Object)
			if aIsObj && bIsObj {
				walkText(ao, bo, p, add)
				continue
			}
			if equalValues(av, bv) {
				continue
			}
			if isNumber(av) || isNumber(bv) {
				add(BumpMajor, "%s changed from %v to %v", p, av, bv)
			} else {
				add(BumpPatch, "%s edited", p)
			}
		}
	}
}

// isNumber reports a JSON number, or a string that holds one (packs this
// project ships write their thresholds as strings).
func isNumber(v any) bool {
	switch x := v.(type) {
	case string:
		_, err := strconv.ParseFloat(x, 64)
		return err == nil
	case canon.Float, canon.Number:
		return true
	}
	return false
}

func get(o *canon.Object, k string) (any, bool) {
	if o == nil {
		return nil, false
	}
	return o.Get(k)
}

func objectField(o *canon.Object, k string) *canon.Object {
	v, _ := get(o, k)
	obj, _ := v.(*canon.Object)
	return obj
}

func stringList(o *canon.Object, k string) []string {
	v, _ := get(o, k)
	list, _ := v.([]any)
	var out []string
	for _, x := range list {
		if s, ok := x.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

func axesByID(o *canon.Object) map[string]*canon.Object {
	v, _ := get(o, "value_axes")
	list, _ := v.([]any)
	out := map[string]*canon.Object{}
	for _, x := range list {
		if ax, ok := x.(*canon.Object); ok {
			if id, ok := ax.String("axis_id"); ok {
				out[id] = ax
			}
		}
	}
	return out
}

func unionKeys(a, b *canon.Object) []string {
	var keys []string
	for _, o := range []*canon.Object{a, b} {
		if o != nil {
			keys = append(keys, o.Keys()...)
		}
	}
	slices.Sort(keys)
	return slices.Compact(keys)
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func sameString(a, b *canon.Object, k string) bool {
	x, _ := a.String(k)
	y, _ := b.String(k)
	return x == y
}

func sameValue(a, b *canon.Object, k string) bool {
	x, xok := get(a, k)
	y, yok := get(b, k)
	return xok == yok && equalValues(x, y)
}

// equalValues compares decoded documents by their source bytes (floats as
// written), so that key order never matters.
func equalValues(a, b any) bool {
	x, err1 := appendSource(nil, a)
	y, err2 := appendSource(nil, b)
	return err1 == nil && err2 == nil && string(x) == string(y)
}

// structureChanged reports top-level fields added or removed.
func structureChanged(a, b *canon.Object) bool {
	return !slices.Equal(a.SortedKeys(), b.SortedKeys())
}
