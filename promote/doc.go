// Package promote is the curator's stage: it takes a ratified, self-sealed
// MasteryReport and applies the course's validated knowledge to the
// persisted reviewed knowledge store through one reviewed teaching path,
// records the course in the mastered-courses index and signs the promotion.
//
// It is the only code that writes the ref knowledge/reviewed (a test scans
// the module's sources to keep it so). Every check runs before anything is
// written: a broken seal (exit 77), an unratified report (3), missing
// prerequisites, a validated set that is not the report's, a candidate the
// review gate refuses, or a signing key outside the trusted keys refuse the
// whole promotion, with an audit record, and change nothing else.
//
// The signature is an in-toto Statement v1 (predicate type PredicateType) in
// a DSSE envelope signed with the curator's ed25519 key; VerifyEnvelope and
// VerifyEnvelopeFile check it offline against a trusted-keys file. README.md
// documents every file and object format and every reason code.
package promote
