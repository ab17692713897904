// Package mining is the mine stage's core: it reads the sources a subject
// file lists and produces the OreBundle, storing every source's raw bytes,
// and every extracted text, as content-addressed objects.
//
// Sources are data only. Nothing a source contains is ever executed, paths
// that leave the subject folder and symlinks anywhere on a path are refused,
// every file is bounded by a size limit, snapshots must hash to their pinned
// SHA-256 and the network is never touched. A refused source halts the whole
// mine: Mine returns a *RefusedError naming every refused source with a
// reason code, and no bundle (the command exits 65 and audits each one).
//
// Work runs on a bounded pool (Options.Jobs). Files are streamed one at a
// time per worker, never a whole folder at once, and the bundle's entries are
// sorted before hashing, so the bundle and its digest (source_bundle_sha) are
// byte-identical whatever the pool size or the order workers finish in.
//
// Extraction (HTML and Markdown to text) is pinned: ExtractorVersion names
// the extractors' behaviour and belongs in the stage cache key.
package mining
