// Package reviewed owns Formation's reviewed state: the reviewed knowledge
// (every fact a curator promoted, with the contribution of each course), the
// mastered-courses index, the signed promotion envelope of each course, and
// the lookup from a validated_set_sha to its validated triple set.
//
// # One state, one ref
//
// Everything a promotion changes is named by one state object under the ref
// knowledge/state:
//
//	{"schema_version", "seq", "previous", "knowledge", "index", "promotions": {course_id: envelope}}
//
// knowledge, index and each envelope are object digests. Commit stores every
// object first and then moves the ref by one compare-and-swap (store.UpdateRef),
// so a reader (ask, chat, eval, ledger, ratify's G2, forge) that reads the ref
// once sees the state before a promotion or after it, never a mix, whenever
// the promotion was interrupted.
//
// # An append-only chain
//
// Each state names the digest of the state it replaced (previous; "" for
// the first, seq 0), and seq counts up by one. VerifyChain walks the chain
// from the head and checks every link, and CheckHead compares the head with
// a digest an operator pinned: a rollback of everything at once to an older,
// valid state is then a different head (exit 77).
//
// # Stores written before the state object
//
// Earlier versions kept three kinds of ref instead (knowledge/reviewed,
// index/mastered-courses and index/promotions/<course_id>). Load reads such a
// store as if it held state 0 made of those refs, without writing; the first
// Commit, or Migrate (run by `formation check`), writes that state 0 and chains
// the next state to it. Nothing writes the old refs any more.
//
// Validated sets are found by their compose-projection digest through the
// create-only refs index/validated/<validated_set_sha> (RecordValidatedSet).
package reviewed
