// Package ledger is the capability ledger: for every domain of
// courses/domains.yaml it states how far the domain has come on a fixed
// ladder, blocked → seeded → grounded → reasoning-capable → audit-passed,
// with the value of every predicate and the reason each unmet one fails.
//
// The ladder is a pure function (Evaluate) over facts gathered from the
// store, the courses folder and the reviewer registry (Gather). The top
// rung is the audit-passed promotion gate (Gate): six checks in a fixed
// order, the first failure naming why. The evidence digest (EvidenceDigest)
// binds a reviewer's signed claim to the exact lane metrics it was made
// over; any later change to those metrics demotes the domain until the
// claim is re-signed. README.md explains the ladder for operators.
package ledger
