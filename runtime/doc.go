// Package runtime is Formation's deterministic chat runtime: the thing `chat`
// serves and the `run` stage drives, one turn at a time.
//
// A Runtime is built once from a knowledge index and the loaded packs (the
// safety pack and the composed identity manifold) and is shared, read-only, by
// any number of Sessions. A Session is one conversation: its field state in
// Cl(4,1) (package field), its vault of the conversation's own turns (package
// vault) and its knowledge overlay (package knowledge) — all of which die with
// it.
//
// One turn (Session.Turn):
//
//  1. the input is checked (valid UTF-8, bounded length) and read against the
//     knowledge's vocabulary (package parse), or typed by the StepHint the run
//     stage passes beside the utterance;
//  2. the field advances (the prompt rotor conjugates the committed state);
//     a state at or above versor_condition algebra.ClosureBound (1e-6) is
//     refused, never repaired,
//     and halts the session;
//  3. the review gate screens the utterance for identity overrides; with
//     the identity hard-block policy on (Config.IdentityHardBlock), a turn
//     whose identity trajectory flags is refused here too
//     (identity_hard_block);
//  4. a composer answers from the knowledge — definition, relation
//     confirmation, transitive walk (constrained by the configured
//     admissibility mode) — with citations, or refuses with a typed reason,
//     or, when the knowledge does not ground the input at all, returns the
//     unknown-domain surface;
//  5. the safety check of every boundary of the manifold with this turn's
//     evidence is computed (a violated boundary turns the answer into a
//     refusal naming it), then the identity score: the identity check over
//     the trajectory the turn's tokens draw against the manifold (package
//     identity), flagged also by a violated boundary, never folded into the
//     trace hash;
//  6. the trace hash is computed and exactly one TurnEvent is emitted.
//
// Teaching (NewTeachingSession, `formation chat` only): a statement the
// knowledge does not confirm is recorded as a teaching proposal through the
// session's Teacher (never into the knowledge), and later answers of the same
// conversation may rest on it, marked speculative, through the session's own
// overlay. The status in the store of the proposals an answer rests on is
// folded into its trace hash (teaching_epistemic_status, only when there is
// one), so a replay after a curator's review hashes differently.
//
// Selection policy (runtime contract, ChatResponse): surface equals
// articulation_surface unless the unknown-domain gate fired, in which case
// surface is UnknownDomainSurface and vault_hits is 0; walk_surface always
// carries the evidence of what the answer walked. A refused turn always has a
// RefusalReason from the closed set of package refusal and a non-empty
// surface. The unknown-domain disclosure is not a refusal: it has no reason.
//
// Determinism: the same knowledge, packs, configuration and sequence of
// inputs produce byte-identical responses, trace hashes and events; there is
// no clock, randomness or map-order dependence anywhere on the turn path.
package runtime
