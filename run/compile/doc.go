// Package compile turns a course (the YAML bytes Compose wrote, named by the
// Course record) into a FormationPlan: typed steps the run stage drives
// through the runtime, and the plan's digest.
//
// Compile reads the stored bytes, not a body kept in memory, so a plan is a
// function of exactly the bytes whose SHA-256 is course_sha256 (checked).
// The compose emitter guarantees those bytes load back, with yaml.v3, to the
// body the template rendered. They are read in one pass by a reader for the
// block YAML the emitter writes (fastyaml.go), which yields yaml.v3's tree
// without yaml.v3's node tree; any input outside that subset is read by
// yaml.v3 itself, so results and errors are always yaml.v3's. The parse is
// strict: one document, a mapping,
// no duplicate keys, and for each template an exact schema: an unknown
// phase, an unknown or missing key, a value of the wrong type, an empty
// triple part, a probe not expecting rejection, or an entry that disagrees
// with the entry that carries it fails with a typed *Error. Nothing is
// skipped: every entry becomes a step or is checked against the step that
// carries it.
//
// Steps come in five blocks, in this order: seed_concept, introduce_relation,
// walk_step, adversarial_probe, replay_assertion. Payloads:
//
//	seed_concept        {canonical_term, definition, utterance "What is <term>?"} (+ axis_id for identity axes)
//	introduce_relation  {head, relation, tail, utterance "<head> <relation> <tail>."}
//	walk_step           {head, relation, tail, utterance "What does <head> <relation>?"}
//	                    (+ step_index for procedural steps; + chain_id,
//	                    composition_kind, edges for composed relations)
//	adversarial_probe   {kind "false_claim", probe_id, head, relation, tail, utterance "<head> <relation> <tail>."}
//	                    {kind "identity_override", probe_id, utterance <prompt>}
//	replay_assertion    {gates [...]}
//
// where <relation> is written with spaces for underscores. The walk
// utterance keeps the original's form, which leaves out the tail: the tail
// travels in the payload, beside the utterance, so the runtime knows what the
// walk must reach, and plans of definition courses keep the original's
// digests apart from the counter probes.
//
// What each template compiles to (the original compiled only the definition
// family and dropped every counter probe):
//
//   - definition: concepts seed; relations introduce; every walk step walks;
//     counter probes are false_claim probes; prompt probes stay
//     identity_override probes; the gate list is one replay step.
//   - composed_relation: as definition; each composed relation is one more
//     walk step from the chain's head by the inferred relation, carrying its
//     constituent edges; chain-break probes are false_claim probes claiming
//     the counter (or spurious) relation between the chain's ends.
//   - procedural: concepts seed; relations introduce; the linear walk's steps
//     walk (with their step_index); transitions and states are checked
//     against the relations and the walk, which carry them.
//   - falsification: concepts seed; supporting relations introduce; each
//     polarity walk carries its pair: the rejected claim becomes a false_claim
//     probe named by the pair id ("pair_0003") and the coherent alternative a
//     walk step; unmatched counters ("unmatched_0000", …) and false-coherent
//     probes are false_claim probes.
//   - identity_anchor: axes seed ("What is <axis>?"); relations introduce;
//     each refusal-walk step ("walk_0002.0": walk id and step index) and each
//     override probe is a false_claim probe.
//
// In every template a relation that is introduced but that no walk visits is
// walked on its own, so every relation of a course is walked at least once;
// a walk over a triple that is not a relation of the course, and a geometric
// dependency that does not name the ends of one, are refused. Prompt probes
// keep the original's kind identity_override, the procedural template's
// canned probes included. The subject and substrate_invariants blocks are
// checked for shape; they are metadata, not steps.
package compile
