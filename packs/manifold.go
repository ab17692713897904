package packs

import (
	"crypto/sha256"
	"encoding/hex"
	"slices"

	"formation/canon"
)

// Manifold is the identity the runtime runs with: the identity pack's axes,
// threshold and surface preferences, and the union of the identity and safety
// boundaries. It is immutable: its fields are unexported and set once by
// Compose, and every accessor returns a copy, so nothing a turn does can
// change it. Its hash is therefore computed once, by Compose, and read by
// every turn (twice each) without re-encoding.
type Manifold struct {
	identityPackID string
	safetyPackID   string
	axes           []ValueAxis
	boundaries     []string
	threshold      float64
	prefs          SurfacePreferences
	hash           string // set by Compose, never written after
}

// Compose builds the manifold: safety contributes boundaries only; identity
// contributes axes, threshold, preferences and may add boundaries. Neither can
// remove a boundary of the other.
func Compose(identity *IdentityPack, safety *SafetyPack) (*Manifold, error) {
	if safety == nil || len(safety.BoundaryIDs) == 0 {
		return nil, &SafetyPackError{Reason: ReasonPackMissing, Detail: "compose manifold: no safety pack with boundaries"}
	}
	if identity == nil {
		return nil, &IdentityPackError{Reason: ReasonPackMissing, Detail: "compose manifold: no identity pack"}
	}
	m := &Manifold{
		identityPackID: identity.PackID,
		safetyPackID:   safety.PackID,
		axes:           slices.Clone(identity.ValueAxes),
		boundaries:     sortedUnique(append(slices.Clone(identity.BoundaryIDs), safety.BoundaryIDs...)),
		threshold:      identity.AlignmentThreshold,
		prefs:          clonePreferences(identity.SurfacePreferences),
	}
	if _, err := m.CanonicalJSON(); err != nil {
		return nil, &IdentityPackError{Reason: ReasonInvalidField, PackID: identity.PackID,
			Detail: "compose manifold: not canonicalisable: " + err.Error(), Err: err}
	}
	m.hash = m.computeHash()
	return m, nil
}

func clonePreferences(p SurfacePreferences) SurfacePreferences {
	p.AxisHedges = slices.Clone(p.AxisHedges)
	if p.AxisHedges == nil {
		p.AxisHedges = []AxisHedge{}
	}
	return p
}

// IdentityPackID is the id of the identity pack the manifold came from.
func (m *Manifold) IdentityPackID() string { return m.identityPackID }

// SafetyPackID is the id of the safety pack the manifold came from.
func (m *Manifold) SafetyPackID() string { return m.safetyPackID }

// ValueAxes returns a copy of the axes, in the pack's order.
func (m *Manifold) ValueAxes() []ValueAxis { return slices.Clone(m.axes) }

// AxisIDs returns the axis ids in the pack's order.
func (m *Manifold) AxisIDs() []string {
	ids := make([]string, len(m.axes))
	for i, a := range m.axes {
		ids[i] = a.AxisID
	}
	return ids
}

// BoundaryIDs returns the sorted union of identity and safety boundaries.
func (m *Manifold) BoundaryIDs() []string { return slices.Clone(m.boundaries) }

// HasBoundary reports whether id is one of the manifold's boundaries.
func (m *Manifold) HasBoundary(id string) bool {
	_, found := slices.BinarySearch(m.boundaries, id)
	return found
}

// AlignmentThreshold is the identity pack's threshold in [0, 1].
func (m *Manifold) AlignmentThreshold() float64 { return m.threshold }

// SurfacePreferences returns a copy of the identity pack's preferences.
func (m *Manifold) SurfacePreferences() SurfacePreferences { return clonePreferences(m.prefs) }

// Hash is the lowercase hex SHA-256 of CanonicalJSON, computed once by
// Compose. A Manifold that did not come from Compose (a zero value) is hashed
// on each call, without caching, so concurrent readers never race.
func (m *Manifold) Hash() string {
	if m.hash != "" {
		return m.hash
	}
	return m.computeHash()
}

// computeHash hashes the canonical form. Compose has already proven the
// manifold canonicalisable; should that ever stop holding, it returns a
// non-hex marker that can never equal a real hash, so a before/after
// comparison reports the change instead of skipping it.
func (m *Manifold) computeHash() string {
	b, err := m.CanonicalJSON()
	if err != nil {
		return "unhashable: " + err.Error()
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// CanonicalJSON is the manifold in canonical JSON. Canonical JSON carries no
// floats, so every number is written as its shortest round-tripping decimal
// string ("0.45", "1", "-0.7").
func (m *Manifold) CanonicalJSON() ([]byte, error) {
	return canon.Marshal(m.document())
}

type manifoldDoc struct {
	AlignmentThreshold string    `json:"alignment_threshold"`
	BoundaryIDs        []string  `json:"boundary_ids"`
	IdentityPackID     string    `json:"identity_pack_id"`
	SafetyPackID       string    `json:"safety_pack_id"`
	SurfacePreferences prefsDoc  `json:"surface_preferences"`
	ValueAxes          []axisDoc `json:"value_axes"`
}

type axisDoc struct {
	AxisID          string    `json:"axis_id"`
	Direction       [3]string `json:"direction"`
	Name            string    `json:"name"`
	TheologicalNote string    `json:"theological_note"`
	Weight          string    `json:"weight"`
}

type prefsDoc struct {
	AxisHedges           map[string]hedgeDoc `json:"axis_hedges"`
	ClaimStrength        string              `json:"claim_strength"`
	HedgeThresholdSoft   string              `json:"hedge_threshold_soft"`
	HedgeThresholdStrong string              `json:"hedge_threshold_strong"`
	PreferredHedgeSoft   string              `json:"preferred_hedge_soft"`
	PreferredHedgeStrong string              `json:"preferred_hedge_strong"`
	PreferredQualifier   string              `json:"preferred_qualifier"`
	QualifiedBandHigh    string              `json:"qualified_band_high"`
}

type hedgeDoc struct {
	Qualifier string `json:"qualifier"`
	Soft      string `json:"soft"`
	Strong    string `json:"strong"`
}

func (m *Manifold) document() manifoldDoc {
	axes := make([]axisDoc, len(m.axes))
	for i, a := range m.axes {
		axes[i] = axisDoc{
			AxisID:          a.AxisID,
			Direction:       [3]string{formatDecimal(a.Direction[0]), formatDecimal(a.Direction[1]), formatDecimal(a.Direction[2])},
			Name:            a.Name,
			TheologicalNote: a.TheologicalNote,
			Weight:          formatDecimal(a.Weight),
		}
	}
	hedges := make(map[string]hedgeDoc, len(m.prefs.AxisHedges))
	for _, h := range m.prefs.AxisHedges {
		hedges[h.AxisID] = hedgeDoc{Qualifier: h.Qualifier, Soft: h.Soft, Strong: h.Strong}
	}
	p := m.prefs
	return manifoldDoc{
		AlignmentThreshold: formatDecimal(m.threshold),
		BoundaryIDs:        m.boundaries,
		IdentityPackID:     m.identityPackID,
		SafetyPackID:       m.safetyPackID,
		SurfacePreferences: prefsDoc{
			AxisHedges:           hedges,
			ClaimStrength:        p.ClaimStrength,
			HedgeThresholdSoft:   formatDecimal(p.HedgeThresholdSoft),
			HedgeThresholdStrong: formatDecimal(p.HedgeThresholdStrong),
			PreferredHedgeSoft:   p.PreferredHedgeSoft,
			PreferredHedgeStrong: p.PreferredHedgeStrong,
			PreferredQualifier:   p.PreferredQualifier,
			QualifiedBandHigh:    formatDecimal(p.QualifiedBandHigh),
		},
		ValueAxes: axes,
	}
}
