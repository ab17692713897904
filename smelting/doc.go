// Package smelting is the Smelt stage's pure core: it turns mined ore (an
// artifact.OreBundle plus the text of each entry) into an
// artifact.SmeltedBundle of concept, relation, counter-claim and ordering
// candidates, each citing the exact bytes of the sentence it came from.
//
// Smelting is deterministic rule-based reading with no model, network, clock
// or randomness. There are two smelters. PatternV3, the default, reads the
// main clause of a sentence of real documentation (subject, verb of the
// relation vocabulary or of the subject's declared relations, complement
// cut at its clause boundary) and yields nothing from a sentence it cannot
// read with confidence: a condition, a pronoun or code as the subject, a
// negation that denies no single claim. PatternV2 is the original's
// patterns with their corrections; a subject may pin it, and the
// conformance vectors run against it. README.md states every rule of both,
// the reasons a sentence yields nothing, and the order of the output.
//
// The caller passes each entry's text under TextKey(entry): the entry's
// text_sha, or its source_sha when the source is plain text and its raw
// bytes are the text. Smelt checks that every text hashes to its key, so each
// SourceRef's [start, end) range can be re-read from the store and compared
// byte for byte with its span, as the forge does.
//
// The matchers are hand-written (no regular expressions) because the stage
// must read tens of megabytes of text per second; tests pin PatternV2 to the
// groups the original's expressions capture.
package smelting
