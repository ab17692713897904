package runtime

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"formation/runtime/admissibility"
	"formation/runtime/algebra"
	"formation/runtime/epistemic"
	"formation/runtime/identity"
	"formation/runtime/knowledge"
	"formation/runtime/text"
	"formation/teaching"
)

// Dialogue roles.
const (
	roleAssert    = "assert"
	roleElaborate = "elaborate"
	roleRefute    = "refute"
)

// SpeculativeMarker prefixes an answer that rests on a claim not yet
// reviewed for coherence.
const SpeculativeMarker = "(speculative, not yet reviewed) "

const (
	surfaceRecorded = "I recorded it as a teaching proposal for a curator to review; nothing I know changes until then."
	surfaceEmpty    = "I didn't receive any words to respond to."
	surfaceOverride = "I can't do that: it would change my identity, my review path or my operators, and nothing said in a conversation can change those."
)

// hardBlockSurface says why a flagged turn was refused under the
// identity hard-block policy, naming the words that moved the identity.
func hardBlockSurface(score identity.Score) string {
	return fmt.Sprintf("I can't answer that: it would move my identity (%s), and this runtime refuses such turns (identity hard-block policy).",
		strings.Join(score.Movers, ", "))
}

func malformedSurface(input string) string {
	if !utf8.ValidString(input) {
		return "I can't read that input: it is not valid UTF-8 text."
	}
	return fmt.Sprintf("I can't read that input: it is longer than %d bytes.", MaxInputBytes)
}

func limitSurface() string {
	return fmt.Sprintf("I can't record more teaching proposals in this conversation: it already recorded %d, the most one conversation may.", teaching.MaxPerSession)
}

// unknownClaimSurface is the verdict on a claim whose terms the knowledge
// does not have.
func unknownClaimSurface(c knowledge.Claim) string {
	return fmt.Sprintf("I can't confirm that: my knowledge has nothing on whether %s.", sentence(c.Key))
}

// definitionVerdictSurface is the verdict on a definition the knowledge
// does not hold: others it holds, or none.
func definitionVerdictSurface(term string, others []string) string {
	if len(others) == 0 {
		return fmt.Sprintf("My knowledge has no definition of %s.", term)
	}
	return fmt.Sprintf("My knowledge defines %s otherwise: %s.", term, strings.Join(trimmed(others), "; "))
}

func trimmed(defs []string) []string {
	out := make([]string, len(defs))
	for i, d := range defs {
		out[i] = strings.TrimSuffix(d, ".")
	}
	return out
}

func confirmDefinitionSurface(term, def string) string {
	return "Yes: " + term + " is " + strings.TrimSuffix(def, ".") + "."
}

func closureSurface(condition float64) string {
	return fmt.Sprintf("I cannot proceed: this turn's field state left versor closure (condition %s, bound %g). Nothing was repaired; this conversation is halted.",
		formatCondition(condition), algebra.ClosureBound)
}

func haltedSurface(haltedAt int) string {
	return fmt.Sprintf("This conversation is halted: its field state left versor closure at turn %d.", haltedAt)
}

func exhaustedSurface(head, rel string, ee *admissibility.ExhaustionError) string {
	return fmt.Sprintf("I can't answer that: no admissible step remains for what %s %s (%s at step %d of region %s).",
		head, text.Spaced(rel), ee.Reason, ee.StepIndex, ee.RegionLabel)
}

func noEdgeSurface(head, rel string) string {
	return fmt.Sprintf("I can't answer that: my knowledge holds no %q relation from %s.", text.Spaced(rel), head)
}

func contestedEdgesSurface(head, rel string) string {
	return fmt.Sprintf("I can't answer that: every %q relation from %s is contested in this conversation.", text.Spaced(rel), head)
}

func ungroundedSurface(c knowledge.Claim) string {
	if c.Negated {
		return fmt.Sprintf("I can't confirm that: my knowledge holds nothing about whether %s.", sentence(c.Key))
	}
	return fmt.Sprintf("I can't confirm that: my knowledge does not hold that %s.", sentence(c.Key))
}

func contradictedSurface(c knowledge.Claim, a knowledge.Assessment) string {
	switch {
	case !a.HasRecord:
		return fmt.Sprintf("That contradicts what this conversation asserted earlier about whether %s; both claims are now contested here.", sentence(c.Key))
	case len(a.Contested) == 0:
		return fmt.Sprintf("I can't confirm that: the claim that %s is contested in this conversation.", sentence(a.Record.Key()))
	case c.Negated:
		return fmt.Sprintf("That contradicts my knowledge, which holds that %s; both claims are now contested in this conversation.", sentence(a.Record.Key()))
	}
	return fmt.Sprintf("That contradicts my knowledge, which records that %s is false; both claims are now contested in this conversation.", quoted(a.Record.Key()))
}

// confirmLessonSurface confirms a claim the session proposed itself (the
// answer is marked speculative by its status).
func confirmLessonSurface(c knowledge.Claim) string {
	if c.Negated {
		return fmt.Sprintf("As this conversation proposed: it is not true that %s.", sentence(c.Key))
	}
	return "As this conversation proposed: " + sentence(c.Key) + "."
}

func confirmSurface(c knowledge.Claim, a knowledge.Assessment) string {
	if c.Negated {
		return fmt.Sprintf("Correct: my knowledge records that %s is false.", quoted(a.Record.Key()))
	}
	return "Yes: " + sentence(a.Record.Key()) + "."
}

func definitionSurface(term string, defs []string) string {
	var b strings.Builder
	b.WriteString(capitalize(term) + " is " + strings.TrimSuffix(defs[0], "."))
	for _, d := range defs[1:] {
		b.WriteString("; it is also " + strings.TrimSuffix(d, "."))
	}
	b.WriteString(".")
	return b.String()
}

func edgesOnlySurface(term string, edges []knowledge.Triple) string {
	return fmt.Sprintf("%s: no definition is recorded; my knowledge holds that %s.", capitalize(term), joinEdges(edges))
}

func countersOnlySurface(term string, counters []knowledge.Triple) string {
	parts := make([]string, len(counters))
	for i, c := range counters {
		parts[i] = quoted(c.Key())
	}
	return fmt.Sprintf("%s appears in my knowledge only in claims recorded as false: %s.", capitalize(term), strings.Join(parts, "; "))
}

// walkSurfaceText is the answer of a transitive walk: the tails in walk
// order, and for every tail reached beyond the first hop, the path to it.
// A long walk lists hundreds of tails and paths, so the text is written
// into one builder rather than joined from a string per tail and a slice
// per path (TestWalkSurfacesAreJoined holds it to the joined form).
func walkSurfaceText(head, rel string, res walkResult) string {
	var b strings.Builder
	b.Grow(len(head) + len(rel) + 16 + 24*len(res.tails))
	b.WriteString(capitalize(head))
	b.WriteByte(' ')
	b.WriteString(text.Spaced(rel))
	b.WriteByte(' ')
	for i, t := range res.tails {
		switch {
		case i == 0:
		case i == len(res.tails)-1:
			b.WriteString(" and ")
		default:
			b.WriteString(", ")
		}
		b.WriteString(t)
	}
	var path []int // the nodes between head and a tail, the last first
	open := false
	for i, t := range res.tails {
		if res.from[i] < 0 {
			continue // reached from the head
		}
		if open {
			b.WriteString("; ")
		} else {
			b.WriteString(" (")
			open = true
		}
		b.WriteString(t)
		b.WriteString(" via ")
		path = path[:0]
		for n := res.from[i]; n >= 0; n = res.from[n] {
			path = append(path, n)
		}
		for j := len(path) - 1; j >= 0; j-- {
			b.WriteString(res.tails[path[j]])
			if j > 0 {
				b.WriteString(" → ")
			}
		}
	}
	if open {
		b.WriteByte(')')
	}
	b.WriteByte('.')
	return b.String()
}

// joinEdges writes each edge as a sentence, "; " between them.
func joinEdges(edges []knowledge.Triple) string {
	var b strings.Builder
	n := 0
	for _, e := range edges {
		n += len(e.Head) + len(e.Relation) + len(e.Tail) + 4 // a relation spaced is as long, give or take
	}
	b.Grow(n)
	rel, spaced := "", "" // a walk's edges share their relation: spaced once
	for i, e := range edges {
		if i > 0 {
			b.WriteString("; ")
		}
		if i == 0 || e.Relation != rel {
			rel, spaced = e.Relation, text.Spaced(e.Relation)
		}
		b.WriteString(e.Head)
		b.WriteByte(' ')
		b.WriteString(spaced)
		b.WriteByte(' ')
		b.WriteString(e.Tail)
	}
	return b.String()
}

func sentence(k knowledge.Key) string { return k.Head + " " + text.Spaced(k.Relation) + " " + k.Tail }

func quoted(k knowledge.Key) string { return "\"" + sentence(k) + "\"" }

func capitalize(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	if r == utf8.RuneError {
		return s
	}
	return string(unicode.ToUpper(r)) + s[n:]
}

// marked prefixes the speculative marker when the answer rests on a
// speculative claim.
func marked(status epistemic.Status, s string) string {
	if status == epistemic.Speculative {
		return SpeculativeMarker + s
	}
	return s
}
