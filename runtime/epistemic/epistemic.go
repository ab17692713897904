// Package epistemic names where a claim stands in the revision graph.
//
// A status is a position, not a trust tier: it is computed from coherence with
// what is already known, never from who said it. There are exactly four, and
// none of them is final: every claim stays revisable. The package has no
// frozen, final, axiom or permanent marker and must never get one.
package epistemic

import "fmt"

// Status is one of the four epistemic statuses, serialised by its value.
type Status string

// The four statuses.
const (
	// Speculative: proposed, not yet reviewed for coherence; admissible only
	// as a candidate. Every claim starts here.
	Speculative Status = "speculative"
	// Coherent: fits the reviewed field; no incoherence detected at admission.
	Coherent Status = "coherent"
	// Contested: incoherent with at least one other claim; review pending;
	// not load-bearing.
	Contested Status = "contested"
	// Falsified: incoherent under accumulated evidence; kept for provenance,
	// never admissible.
	Falsified Status = "falsified"
)

// All lists the statuses in a fixed order.
func All() []Status { return []Status{Coherent, Contested, Speculative, Falsified} }

// Parse reads a status. The empty string is Speculative (the default at
// creation); any other unknown text is an error rather than a guess.
func Parse(s string) (Status, error) {
	switch Status(s) {
	case "":
		return Speculative, nil
	case Speculative, Coherent, Contested, Falsified:
		return Status(s), nil
	}
	return "", fmt.Errorf("epistemic: unknown status %q", s)
}

// Valid reports whether s is one of the four statuses.
func (s Status) Valid() bool {
	switch s {
	case Speculative, Coherent, Contested, Falsified:
		return true
	}
	return false
}

// LoadBearing reports whether a claim with this status may ground an answer:
// Speculative and Coherent claims may (an answer says which), Contested and
// Falsified ones may not.
func (s Status) LoadBearing() bool { return s == Speculative || s == Coherent }

// doubt orders statuses by how little they may be relied on; merging two
// records of one claim keeps the more doubtful status, so a duplicate never
// raises trust.
func (s Status) doubt() int {
	switch s {
	case Coherent:
		return 0
	case Speculative:
		return 1
	case Contested:
		return 2
	case Falsified:
		return 3
	}
	return 4
}

// MoreDoubtful returns whichever of a and b may be relied on less.
func MoreDoubtful(a, b Status) Status {
	if b.doubt() > a.doubt() {
		return b
	}
	return a
}

// Passes applies the vault's min-status filter: Falsified never passes; a
// minimum of Coherent admits only Coherent; any other minimum admits only that
// exact status. An empty minimum admits everything except Falsified.
func Passes(s, min Status) bool {
	if s == Falsified {
		return false
	}
	if min == "" {
		return true
	}
	return s == min
}
