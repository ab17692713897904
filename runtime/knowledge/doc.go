// Package knowledge is what the runtime may answer from: concepts (term,
// definition, cited sources) and typed (head, relation, tail) triples, each
// with an epistemic status, plus the counter-claims the Forge recorded as
// false.
//
// A Knowledge is an index built once (NewKnowledge, LoadKnowledgeVTS, FromVTS)
// and never changed afterwards, so any number of sessions may read one
// concurrently. What a conversation asserts or contests lives in that
// session's Overlay and dies with it; only the promote stage writes persisted
// knowledge.
//
// Normal forms. Terms are lower-cased and tokenised, possessives and
// contractions expanded (text.Term: "Focal Point" → "focal point", "Go's
// runtime" → "go runtime"); relation names become underscore-joined words
// (text.Relation: "belongs to" → "belongs_to").
//
// Vocabulary. The relations a question may use are those of the records
// and those the knowledge's subjects declared beyond the original's 17
// (WithRelations; FromVTS takes them from each set's declared_relations).
// A declaration adds words to read, never records. Records that normalise to the
// same term or triple are merged: their citations are united and sorted, and
// the merged status is the more doubtful of the two (a duplicate never raises
// trust). A concept's distinct definitions are all kept, sorted by text.
//
// Contradiction, precisely. Within the knowledge, a triple that is also one
// of its counter-claims is contradicted, and both records are Contested from
// the start. Within a session (Overlay.Assess) an asserted claim
// (h, r, t, negated) is contradicted when
//
//  1. it is positive and (h, r, t) is a counter-claim of the knowledge;
//  2. it is negated ("h does not r t") and (h, r, t) is a held triple;
//  3. the session already holds the opposite polarity of the same triple as
//     an earlier assertion.
//
// A contradiction makes both sides Contested in the session: the asserted
// claim and the triple, counter-claim or earlier assertion it contradicts.
// Contested triples stop being load-bearing for the rest of the session (they
// no longer confirm or take part in walks); the shared Knowledge is untouched.
//
// No record here has, or may ever get, a final, frozen, axiom or permanent
// flag: every claim stays revisable (a test reflects over the types).
package knowledge
