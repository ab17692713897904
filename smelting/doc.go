// Package smelting is the Smelt stage's pure core: it turns mined ore (an
// artifact.OreBundle plus the text of each entry) into an
// artifact.SmeltedBundle of concept, relation, counter-claim and ordering
// candidates, each citing the exact bytes of the sentence it came from.
//
// Smelt is deterministic pattern extraction with no model, network, clock or
// randomness. It follows the original smelter's rules with these corrections:
// negated statements never yield the positive claim, counter-claim sentences
// yield only their counter-claim, terms lose their articles, compound
// predicates written in prose are recognised, every distinct definition is
// kept with its own sources, and a blank line ends a sentence. README.md
// states every rule, every difference from the original and the order of the
// output.
//
// The caller passes each entry's text under TextKey(entry): the entry's
// text_sha, or its source_sha when the source is plain text and its raw
// bytes are the text. Smelt checks that every text hashes to its key, so each
// SourceRef's [start, end) range can be re-read from the store and compared
// byte for byte with its span, as the forge does.
//
// The matchers are hand-written (no regular expressions) because the stage
// must read tens of megabytes of text per second; tests pin them to the
// groups the original's expressions capture.
package smelting
