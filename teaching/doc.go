// Package teaching holds the records of the reviewed teaching loop and its
// one review rule.
//
// A statement a user makes in chat that the knowledge does not confirm — a
// relation, a definition or a counter-claim — becomes a Proposal (the
// contract's PackMutationProposal): what was proposed, the user's words, the
// trace hash of the turn, the session and the turn index, and the status
// Speculative. A proposal is named by the SHA-256 of its canonical JSON.
//
// A curator decides a proposal by its coherence with the reviewed knowledge
// and nothing else: Judge computes it (Contested when a reviewed counter-claim
// denies the proposal, when the proposal denies a reviewed triple, or when it
// defines a term differently from a reviewed definition; Falsified when such
// contradicting claims come from at least two distinct sources; Coherent
// otherwise), and Decide takes one reason from a closed set of coherence
// arguments — no source authority, popularity or credentials, and no
// "other". A decision never changes the proposal it decides: it is a new
// record, the proposal's copy by WithStatus with the signed Decision added
// (the contract's ReviewedTeachingExample).
//
// Nothing here touches a store: package teaching/queue keeps the records
// under the proposals/ refs, and the only way an accepted proposal reaches
// knowledge is the proposals mining adapter and promote, like any source.
package teaching
