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
func coverageGate(vts artifact.ValidatedTripleSet, runs [2]artifact.RunOutput) verdict {
	needed := map[artifact.Triple]bool{}
	for _, r := range vts.Relations {
		needed[r.Triple()] = true
	}
	n := len(needed)
	var missing, extra, walks [2]int
	for i, run := range runs {
		walked := walkedTriples(run)
		walks[i] = len(walked)
		for t := range needed {
			if !walked[t] {
				missing[i]++
			}
		}
		for t := range walked {
			if !needed[t] {
				extra[i]++
			}
		}
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

// walkedTriples is the set of (head, relation, tail) of a run's walk steps
// whose three payload fields are strings.
func walkedTriples(run artifact.RunOutput) map[artifact.Triple]bool {
	out := map[artifact.Triple]bool{}
	for _, res := range run.Results {
		if res.StepType != artifact.StepWalk {
			continue
		}
		h, okH := res.Payload["head"].(string)
		r, okR := res.Payload["relation"].(string)
		t, okT := res.Payload["tail"].(string)
		if okH && okR && okT {
			out[artifact.Triple{Head: h, Relation: r, Tail: t}] = true
		}
	}
	return out
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
