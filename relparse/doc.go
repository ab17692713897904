// Package relparse is the relation parser: it reads one plain sentence of the
// form "<head> <relation> <tail>" and returns the typed triple, or nothing.
//
// It reproduces the original system's parse_triple exactly (the conformance
// vectors in vectors/parse_triple.json pin every case), because both the
// smelter (extraction) and the forge (well-typedness) must agree with it:
//
//  1. Trim; drop at most one leading discourse marker ("actually", "no,",
//     "no", "indeed", "really", "in fact", "rather", "instead") when it is
//     followed by a space, or by "," or ";" (then the text is left-trimmed);
//     collapse each whitespace run to one space; delete a trailing run of
//     ".?!,;:"; lower-case; trim.
//  2. For each relation in priority order (Relations), take its first
//     whole-word occurrence. Head and tail are the trimmed text on either
//     side, each with one leading and one trailing article ("a", "an", "the")
//     removed. If either side ends up empty the next relation is tried, never
//     a later occurrence of the same one.
//
// "Whitespace", "word character" and "lower-case" follow Python's Unicode
// rules rather than Go's (IsSpace, IsWordRune, Lower), since the original ran
// on Python's str and re. The exported helpers exist so later stages share
// these exact definitions instead of re-deriving them. The character tables
// are Go's (Unicode 15); the original ran on Unicode 14, so only characters
// assigned between the two versions can be classified differently.
//
// The parser uses no regular expressions: the smelter calls it on every
// sentence of every source and must sustain tens of megabytes per second.
// Input that is not valid UTF-8 never parses (Python strings cannot hold it,
// so there is no original behaviour to follow, and guessing would be unsafe).
package relparse
