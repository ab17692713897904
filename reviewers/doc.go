// Package reviewers is the reviewer registry (reviewers.yaml): who may review
// what, and the signed audit-passed claims that let the capability ledger
// promote a domain.
//
// Two schema versions load. Version 1 is the original's format, read with the
// same schema and the same validation errors, in the same order; its claims
// carry no signature, so none of them can ever pass the promotion gate.
// Version 2 adds an ed25519 public_key (standard base64 of the 32 key bytes)
// to every reviewer and a signature to every claim: a DSSE envelope whose
// payload is the claim's canonical JSON (ClaimPayload) and whose signature is
// made with the signer's key. Only a claim whose envelope verifies against
// the key of the reviewer it names, and whose payload equals its own fields
// byte for byte, can pass.
//
// Loading is strict and fails closed. YAML is read with yaml.v3 into nodes;
// a duplicate mapping key, an anchor or alias, or more than one document is a
// parse error (the original's YAML 1.1 reader silently kept the last of two
// duplicate keys; refusing is the safer reading). The first problem found
// aborts the load with an *Error; callers that must keep going use Empty(),
// which grants nothing.
package reviewers
