// Package packs loads the two kinds of pack that shape the chat runtime and
// checks the boundaries they declare.
//
// A safety pack lists the boundaries the runtime never crosses. Exactly one is
// loaded, it is never swapped, and a missing or invalid one is fatal: the
// loader returns a *SafetyPackError, and callers must stop rather than catch
// it and continue. In production the pack must be ratified: it names the
// SHA-256 of a companion mastery report that sits beside it, whose self-seal
// verifies and which says ratified=true.
//
// An identity pack carries who the runtime is: value axes, an alignment
// threshold, surface preferences and, optionally, further boundaries. It is
// selected by id and may be swapped; a named pack that fails to load falls back
// to the default pack with a warning the caller receives as a value.
//
// Compose joins the two into a Manifold (identity axes, threshold and
// preferences; the union of both boundary sets) whose Hash is the SHA-256 of
// its canonical JSON. SafetyCheck evaluates every boundary of a pack or a
// manifold against plain evidence from one turn and returns a SafetyVerdict.
//
// Pack files are untrusted input. They are read with canon.DecodeTolerant
// because the original's identity packs hold floats; numbers may also be
// written as decimal strings ("0.45"), which is how the packs this project
// ships are written, so that they stay canonicalisable.
package packs
