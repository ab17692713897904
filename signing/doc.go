// Package signing holds Formation's signatures: ed25519 curator and reviewer
// keys (key files, trusted-keys files, key ids), DSSE envelopes and their
// pre-authentication encoding (PAE). It knows nothing of what is signed:
// promotion statements (package reviewed), audit claims (package reviewers)
// and lane evidence bring their own payload types.
//
// Every refusal is an *Error with a stable reason code and the exit code it
// maps to; a signature, envelope or trusted-keys problem is exit 77.
package signing
