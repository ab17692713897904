// Package promote is the curator's stage: it takes a ratified, self-sealed
// MasteryReport and moves the reviewed state (package reviewed) to one that
// holds the course's validated knowledge, applied through the one reviewed
// teaching path, the course in the mastered-courses index, and the signed
// promotion. Every check runs before anything is written: a broken seal
// (exit 77), an unratified report (3), missing prerequisites, a validated set
// that is not the report's, a candidate the review gate refuses, knowledge
// that contradicts what is reviewed, a supersede that would remove facts
// without AllowRemoval, or a signing key outside the trusted keys refuse the
// whole promotion, with an audit record, and change nothing else.
//
// The signature is an in-toto Statement v1 in a DSSE envelope signed with the
// curator's ed25519 key (package signing); the state object names it, so the
// knowledge, the index and the envelope move together. README.md documents
// every object format and every reason code.
package promote
