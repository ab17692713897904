package packs

import (
	"fmt"
	"unicode/utf8"

	"formation/canon"
)

// Claim strengths a pack may ask for.
const (
	ClaimBalanced    = "balanced"
	ClaimQualified   = "qualified"
	ClaimAffirmative = "affirmative"
)

// MaxHedgeChars bounds every hedge and qualifier phrase.
const MaxHedgeChars = 64

// AxisHedge holds the phrases that replace the generic hedges when the named
// axis is the one deviating.
type AxisHedge struct {
	AxisID    string
	Strong    string
	Soft      string
	Qualifier string
}

// SurfacePreferences drive hedging in the runtime's sentence assembly: an
// alignment below HedgeThresholdStrong gets the strong hedge, below
// HedgeThresholdSoft the soft one, and in [soft, QualifiedBandHigh) with
// ClaimStrength "qualified" the qualifier.
type SurfacePreferences struct {
	HedgeThresholdStrong float64
	HedgeThresholdSoft   float64
	QualifiedBandHigh    float64
	PreferredHedgeStrong string
	PreferredHedgeSoft   string
	PreferredQualifier   string
	ClaimStrength        string
	AxisHedges           []AxisHedge // sorted by axis id
}

// DefaultSurfacePreferences are the values used for fields a pack omits.
func DefaultSurfacePreferences() SurfacePreferences {
	return SurfacePreferences{
		HedgeThresholdStrong: 0.40,
		HedgeThresholdSoft:   0.50,
		QualifiedBandHigh:    0.75,
		PreferredHedgeStrong: "It seems that",
		PreferredHedgeSoft:   "Perhaps",
		PreferredQualifier:   "In some cases,",
		ClaimStrength:        ClaimBalanced,
		AxisHedges:           []AxisHedge{},
	}
}

// readPreferences reads the optional surface_preferences object; missing
// fields keep their defaults.
func readPreferences(id string, obj *canon.Object, axes []ValueAxis) (SurfacePreferences, *fault) {
	prefs := DefaultSurfacePreferences()
	raw, present := obj.Get("surface_preferences")
	if !present {
		return prefs, nil
	}
	p, ok := raw.(*canon.Object)
	if !ok {
		return prefs, prefFault(id, "surface_preferences must be an object")
	}
	for _, step := range []func() *fault{
		func() *fault { return readUnit(id, p, "hedge_threshold_strong", &prefs.HedgeThresholdStrong) },
		func() *fault { return readUnit(id, p, "hedge_threshold_soft", &prefs.HedgeThresholdSoft) },
		func() *fault { return readUnit(id, p, "qualified_band_high", &prefs.QualifiedBandHigh) },
		func() *fault { return readPhrase(id, p, "preferred_hedge_strong", &prefs.PreferredHedgeStrong) },
		func() *fault { return readPhrase(id, p, "preferred_hedge_soft", &prefs.PreferredHedgeSoft) },
		func() *fault { return readPhrase(id, p, "preferred_qualifier", &prefs.PreferredQualifier) },
		func() *fault { return readClaimStrength(id, p, &prefs.ClaimStrength) },
	} {
		if f := step(); f != nil {
			return prefs, f
		}
	}
	if !(prefs.HedgeThresholdStrong <= prefs.HedgeThresholdSoft && prefs.HedgeThresholdSoft <= prefs.QualifiedBandHigh) {
		return prefs, prefFault(id, "surface_preferences must order hedge_threshold_strong <= hedge_threshold_soft <= qualified_band_high")
	}
	hedges, f := readAxisHedges(id, p, axes)
	if f != nil {
		return prefs, f
	}
	prefs.AxisHedges = hedges
	return prefs, nil
}

func readUnit(id string, p *canon.Object, field string, dst *float64) *fault {
	v, present := p.Get(field)
	if !present {
		return nil
	}
	x, ok := readNumber(v)
	if !ok || !inRange(x, 0, 1) {
		return prefFault(id, "surface_preferences.%s must be a number in [0, 1]", field)
	}
	*dst = x
	return nil
}

func readPhrase(id string, p *canon.Object, field string, dst *string) *fault {
	v, present := p.Get(field)
	if !present {
		return nil
	}
	s, ok := phrase(v)
	if !ok {
		return prefFault(id, "surface_preferences.%s must be a string of 1 to %d characters", field, MaxHedgeChars)
	}
	*dst = s
	return nil
}

func phrase(v any) (string, bool) {
	s, ok := v.(string)
	n := utf8.RuneCountInString(s)
	return s, ok && n >= 1 && n <= MaxHedgeChars
}

func readClaimStrength(id string, p *canon.Object, dst *string) *fault {
	v, present := p.Get("claim_strength")
	if !present {
		return nil
	}
	s, _ := v.(string)
	switch s {
	case ClaimBalanced, ClaimQualified, ClaimAffirmative:
		*dst = s
		return nil
	}
	return prefFault(id, "surface_preferences.claim_strength must be one of %s", pyList([]string{ClaimBalanced, ClaimQualified, ClaimAffirmative}))
}

// readAxisHedges reads axis_hedges, each keyed by a declared axis id.
func readAxisHedges(id string, p *canon.Object, axes []ValueAxis) ([]AxisHedge, *fault) {
	raw, present := p.Get("axis_hedges")
	if !present {
		return []AxisHedge{}, nil
	}
	m, ok := raw.(*canon.Object)
	if !ok {
		return nil, prefFault(id, "surface_preferences.axis_hedges must be an object")
	}
	known := map[string]bool{}
	for _, a := range axes {
		known[a.AxisID] = true
	}
	hedges := make([]AxisHedge, 0, m.Len())
	for _, axisID := range m.SortedKeys() { // sorted, so the result is too
		if !known[axisID] {
			return nil, prefFault(id, "surface_preferences.axis_hedges[%s] names no value axis", pyRepr(axisID))
		}
		v, _ := m.Get(axisID)
		h, f := readAxisHedge(id, axisID, v)
		if f != nil {
			return nil, f
		}
		hedges = append(hedges, h)
	}
	return hedges, nil
}

func readAxisHedge(id, axisID string, v any) (AxisHedge, *fault) {
	obj, ok := v.(*canon.Object)
	if !ok {
		return AxisHedge{}, prefFault(id, "surface_preferences.axis_hedges[%s] must be an object", pyRepr(axisID))
	}
	h := AxisHedge{AxisID: axisID}
	for _, part := range []struct {
		key string
		dst *string
	}{{"strong", &h.Strong}, {"soft", &h.Soft}, {"qualifier", &h.Qualifier}} {
		raw, _ := obj.Get(part.key)
		s, ok := phrase(raw)
		if !ok {
			return AxisHedge{}, prefFault(id, "surface_preferences.axis_hedges[%s].%s must be a string of 1 to %d characters",
				pyRepr(axisID), part.key, MaxHedgeChars)
		}
		*part.dst = s
	}
	return h, nil
}

func prefFault(id, format string, args ...any) *fault {
	return newFault(ReasonInvalidPreferences, nil, "identity pack %s: %s", pyRepr(id), fmt.Sprintf(format, args...))
}
