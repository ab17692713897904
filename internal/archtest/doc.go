// Package archtest holds tests of the module's shape, nothing else: the code
// map in ARCHITECTURE.md against the imports `go list` reports, and the
// rules that must keep exactly one implementation (a digest check, a
// subject-id check, the closure bound, the review gate, the pack-ratification
// check, the compare-and-swap loop), found by reading syntax trees; and
// that no comment or Markdown file points at a section of a document the
// repository does not hold.
package archtest
