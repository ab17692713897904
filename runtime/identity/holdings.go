package identity

import (
	"slices"
	"strings"

	"formation/runtime/algebra"
	"formation/runtime/text"
)

// What the manifold's own text weighs, per mille: an axis's id or name
// touches that axis fully; a word of its note touches it lightly; a word of a
// boundary id touches every axis, a word of a boundary's description lightly.
const (
	axisNameHold     = full
	axisNoteHold     = 200
	boundaryIDHold   = 600
	boundaryTextHold = 200
)

// hold is how much a word touches what the manifold holds fixed, and which
// axis it touches (-1: the manifold as a whole).
type hold struct {
	weight int
	axis   int
}

// holdings merges the base holdings with what the manifold declares: its
// axes (ids, names, notes) and its boundaries (ids, descriptions). A word
// named twice keeps its heaviest touch; between equal weights the first
// declaration wins (axes in order, then boundaries by id), so the table never
// depends on map order.
func (g *Geometry) holdings(axes []Axis, boundaries []Boundary) map[string]hold {
	out := map[string]hold{}
	add := func(words []string, h hold) {
		for _, w := range words {
			if g.lex.stop.Has(w) || len(w) < 3 || g.lex.push[w] > 0 {
				continue // a word of the act ("override") is not what is held
			}
			if cur, ok := out[w]; !ok || h.weight > cur.weight {
				out[w] = h
			}
		}
	}
	for i, a := range axes {
		add(text.RelationWords(a.ID+" "+a.Name), hold{axisNameHold, i})
	}
	for i, a := range axes {
		add(text.RelationWords(a.Note), hold{axisNoteHold, i})
	}
	bs := slices.Clone(boundaries)
	slices.SortFunc(bs, func(a, b Boundary) int { return strings.Compare(a.ID, b.ID) })
	for _, b := range bs {
		add(text.RelationWords(b.ID), hold{boundaryIDHold, -1})
	}
	for _, b := range bs {
		add(text.RelationWords(b.Description), hold{boundaryTextHold, -1})
	}
	base := make([]string, 0, len(g.lex.baseHold))
	for w := range g.lex.baseHold {
		base = append(base, w)
	}
	slices.Sort(base)
	for _, w := range base {
		if cur, ok := out[w]; !ok || g.lex.baseHold[w] > cur.weight {
			out[w] = hold{g.lex.baseHold[w], -1}
		}
	}
	return out
}

// rotationPlanes returns, for each axis, the unit bivector of the plane
// that carries it out of the span (the axis wedged with e4: the axes live in
// e1..e3, so e4 is orthogonal to every one of them), and the plane of the
// axes' mean direction.
func rotationPlanes(axes []Axis) (planes []algebra.MV, general algebra.MV) {
	e4, _ := algebra.Blade(4, 1)
	plane := func(d [3]float64) algebra.MV {
		n := algebra.Norm(algebra.LiftVector(d))
		if !(n > 0) {
			return algebra.MV{}
		}
		u := algebra.Scale(algebra.LiftVector(d), 1/n)
		return algebra.GradeProject(algebra.Mul(u, e4), 2)
	}
	var mean [3]float64
	for _, a := range axes {
		planes = append(planes, plane(a.Direction))
		n := algebra.Norm(algebra.LiftVector(a.Direction))
		for k := range mean {
			mean[k] += a.Direction[k] / n
		}
	}
	general = plane(mean)
	if general == (algebra.MV{}) && len(planes) > 0 {
		general = planes[0] // the axes cancel out: the first one stands for all
	}
	return planes, general
}
