package reviewers

import (
	"sort"
	"strings"
)

// Error is every load or validation error of the registry. Msg is the
// one-line reason shown to operators and placed in ledger rows.
type Error struct {
	Msg string
}

func (e *Error) Error() string { return e.Msg }

func errf(msg string) *Error { return &Error{Msg: msg} }

// pyList renders names the way the original's messages did, as a sorted
// Python list literal: ['a', 'b'].
func pyList(names []string) string {
	s := append([]string(nil), names...)
	sort.Strings(s)
	parts := make([]string, len(s))
	for i, n := range s {
		parts[i] = "'" + n + "'"
	}
	return "[" + strings.Join(parts, ", ") + "]"
}
