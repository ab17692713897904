package ratify

import (
	"fmt"
	"slices"
	"strings"

	"formation/artifact"
)

// coverageGate (G6): in each run, every relation of the validated set is
// walked, and nothing outside the set is. The worse run decides. A set with
// no relation (a course of concepts, an identity pack's axes) and runs with
// no walk leave nothing to measure: the gate passes saying so,
// "n/a:no_relations", never as a plain n/a.
func (g *Gauge) coverageGate() verdict {
	needed := make(map[artifact.Triple]struct{}, len(g.in.ValidatedSet.Relations))
	for _, r := range g.in.ValidatedSet.Relations {
		needed[r.Triple()] = struct{}{}
	}
	n := len(needed)
	var missing, extra, walks [2]int
	for i, p := range g.passes {
		walkedNeeded := 0
		for tr := range p.walked { // a count: the order does not matter
			if _, ok := needed[tr]; ok {
				walkedNeeded++
			}
		}
		missing[i] = n - walkedNeeded
		extra[i] = len(p.walked) - walkedNeeded
		walks[i] = len(p.walked)
	}
	switch {
	case n == 0 && walks[0] == 0 && walks[1] == 0:
		return pass(GateCoverage, naBecause(AbsentRelations))
	case max(missing[0], missing[1]) > 0:
		m := max(missing[0], missing[1])
		return fail(GateCoverage, ratio(n-m, n), fmt.Sprintf("%s:%d", CodeUnwalkedRelations, m))
	case max(extra[0], extra[1]) > 0:
		return fail(GateCoverage, ratio(n, n), fmt.Sprintf("%s:%d", CodeWalkOutsideSet, max(extra[0], extra[1])))
	}
	return pass(GateCoverage, ratio(n, n))
}

// priorGate (G2): every mastered course, re-run now, still passes.
func priorGate(priors []PriorCourse) verdict {
	if len(priors) == 0 {
		return pass(GatePrior, DeferredNoPriorCourses)
	}
	sorted := slices.Clone(priors)
	slices.SortFunc(sorted, func(a, b PriorCourse) int { return strings.Compare(a.CourseID, b.CourseID) })
	var regressed []string
	for _, p := range sorted {
		if !p.Passed {
			gates := slices.Sorted(slices.Values(p.FailedGates))
			regressed = append(regressed, p.CourseID+"("+strings.Join(gates, ",")+")")
		}
	}
	m := ratio(len(sorted)-len(regressed), len(sorted))
	if len(regressed) > 0 {
		return fail(GatePrior, m, CodePriorRegressed+":"+strings.Join(regressed, ","))
	}
	return pass(GatePrior, m)
}
