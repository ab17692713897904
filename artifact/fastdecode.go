package artifact

import (
	"bytes"
	"runtime"
	"sync/atomic"

	"formation/canon"
)

// decodeDirect reads the two artifacts every large run loads whole — the
// smelted bundle (forge's input) and the validated set (compose's) —
// straight into their structs, without the generic tree and the
// reflection of canon.Unmarshal, which cost more than forge's own work at
// 10,000 relations. It reports false when v is of another type or when
// data is anything but a document Unmarshal reads the same way (see
// canon.Lexer); Decode then falls back to Unmarshal for the reading or the
// typed error. FuzzDecodeDirect holds the two readings equal. A large
// document, on more than one CPU, has the second half of its longest
// relation list read on a second goroutine (relationTail); checkSplits
// holds that reading to the one without, wherever the half is guessed to
// start.
func decodeDirect(data []byte, v any) bool {
	at := -1
	if len(data) >= splitFrom && runtime.GOMAXPROCS(0) > 1 {
		at = relationSplit(data)
	}
	return decodeSplit(data, v, at)
}

// splitFrom is the document size from which decodeDirect reads the tail
// of a relation list on a second goroutine: the 6.5 MB bundle of 10,000
// relations takes over 20 ms to read on one.
const splitFrom = 1 << 20

// relationSplit guesses where a relation list's second half starts: the
// first relation object that follows another at or after the middle of
// the document (relations are the longest lists, and the last but few
// keys of both artifacts), or -1. A wrong guess costs only the fork's
// work: see relationTail.
func relationSplit(data []byte) int {
	mid := len(data) / 2
	if i := bytes.Index(data[mid:], []byte(`,{"head":`)); i >= 0 {
		return mid + i + 1
	}
	return -1
}

// decodeSplit is decodeDirect with the tail of a relation list from at
// read on a second goroutine (none when at < 0).
func decodeSplit(data []byte, v any, at int) bool {
	l := canon.NewLexer(data)
	t := forkTail(l, at)
	defer t.end()
	switch p := v.(type) {
	case *SmeltedBundle:
		return readBundle(l, p, t) && l.End()
	case *ValidatedTripleSet:
		return readValidatedSet(l, p, t) && l.End()
	}
	return false
}

// relationTail is a relation list's tail read by a fork of the document's
// Lexer while the Lexer reads up to it. The Lexer takes it only if its own
// reading meets a relation at the tail's offset in a relation list
// (canon.Lexer.ArrayUntil); otherwise the fork is stopped and its work
// dropped. So the direct reader's result never depends on the guess.
type relationTail struct {
	at    int
	fork  *canon.Lexer
	elems []RelationCandidate
	ok    bool
	taken bool        // a list took the tail (read by the reading goroutine only)
	stop  atomic.Bool // the fork's work is no longer wanted
	done  chan struct{}
}

// forkTail starts reading a relation list's tail from at, or returns nil
// for at < 0.
func forkTail(l *canon.Lexer, at int) *relationTail {
	if at < 0 {
		return nil
	}
	t := &relationTail{at: at, fork: l.Fork(at), done: make(chan struct{})}
	go func() {
		defer close(t.done)
		t.ok = t.fork.ArrayTail(func() bool {
			var r RelationCandidate
			if t.stop.Load() || !readRelation(t.fork, &r) {
				return false
			}
			t.elems = append(t.elems, r)
			return true
		})
	}()
	return t
}

// end stops the fork, unless a list took its tail, and waits for it.
func (t *relationTail) end() {
	if t != nil {
		t.stop.Store(true)
		<-t.done
	}
}

// readRelations reads a relation list as readList does, taking its tail
// from t when the list's reading meets t's offset.
func readRelations(l *canon.Lexer, dst *[]RelationCandidate, t *relationTail) bool {
	if t == nil || t.taken {
		return readList(l, dst, readRelation)
	}
	out := []RelationCandidate{}
	stopped, ok := l.ArrayUntil(t.at, func() bool {
		var r RelationCandidate
		if !readRelation(l, &r) {
			return false
		}
		out = append(out, r)
		return true
	})
	if stopped {
		t.taken = true
		<-t.done
		ok = t.ok && l.Join(t.fork)
		out = append(out, t.elems...)
	}
	*dst = out
	return ok
}

// members tracks an object's keys by field number: a key seen twice is a
// duplicate (which Decode refuses), and the object is complete when every
// required field came.
type members struct{ seen, required uint32 }

func (m *members) first(field uint) bool {
	bit := uint32(1) << field
	if m.seen&bit != 0 {
		return false
	}
	m.seen |= bit
	return true
}

func (m *members) complete() bool { return m.seen&m.required == m.required }

func readBundle(l *canon.Lexer, b *SmeltedBundle, t *relationTail) bool {
	m := members{required: 0b1111}
	return l.Object(func(key []byte) bool {
		switch string(key) {
		case "concepts":
			return m.first(0) && readList(l, &b.Concepts, readConcept)
		case "relations":
			return m.first(1) && readRelations(l, &b.Relations, t)
		case "counters":
			return m.first(2) && readRelations(l, &b.Counters, t)
		case "ordering_hints":
			return m.first(3) && readList(l, &b.OrderingHints, readHint)
		}
		return false
	}) && m.complete()
}

func readValidatedSet(l *canon.Lexer, v *ValidatedTripleSet, t *relationTail) bool {
	m := members{required: 0b1111111}
	return l.Object(func(key []byte) bool {
		switch string(key) {
		case "subject_id":
			return m.first(0) && readString(l, &v.SubjectID)
		case "concepts":
			return m.first(1) && readList(l, &v.Concepts, readConcept)
		case "relations":
			return m.first(2) && readRelations(l, &v.Relations, t)
		case "counters":
			return m.first(3) && readRelations(l, &v.Counters, t)
		case "ordering_hints":
			return m.first(4) && readList(l, &v.OrderingHints, readHint)
		case "quarantined":
			return m.first(5) && readRelations(l, &v.Quarantined, t)
		case "schema_version":
			return m.first(6) && readString(l, &v.SchemaVersion)
		case "declared_relations":
			return m.first(7) && readList(l, &v.DeclaredRelations, readString)
		}
		return false
	}) && m.complete()
}

func readConcept(l *canon.Lexer, c *ConceptCandidate) bool {
	m := members{required: 0b11111}
	return l.Object(func(key []byte) bool {
		switch string(key) {
		case "canonical_term":
			return m.first(0) && readString(l, &c.CanonicalTerm)
		case "definition":
			return m.first(1) && readString(l, &c.Definition)
		case "sources":
			return m.first(2) && readList(l, &c.Sources, readSourceRef)
		case "state":
			return m.first(3) && readShared(l, &c.State)
		case "rejection_reason":
			return m.first(4) && readString(l, &c.RejectionReason)
		}
		return false
	}) && m.complete()
}

func readRelation(l *canon.Lexer, r *RelationCandidate) bool {
	m := members{required: 0b111111}
	return l.Object(func(key []byte) bool {
		switch string(key) {
		case "head":
			return m.first(0) && readString(l, &r.Head)
		case "relation":
			return m.first(1) && readShared(l, &r.Relation)
		case "tail":
			return m.first(2) && readString(l, &r.Tail)
		case "sources":
			return m.first(3) && readList(l, &r.Sources, readSourceRef)
		case "state":
			return m.first(4) && readShared(l, &r.State)
		case "rejection_reason":
			return m.first(5) && readString(l, &r.RejectionReason)
		}
		return false
	}) && m.complete()
}

func readHint(l *canon.Lexer, h *OrderingHint) bool {
	m := members{required: 0b111}
	return l.Object(func(key []byte) bool {
		switch string(key) {
		case "before":
			return m.first(0) && readString(l, &h.Before)
		case "after":
			return m.first(1) && readString(l, &h.After)
		case "sources":
			return m.first(2) && readList(l, &h.Sources, readSourceRef)
		}
		return false
	}) && m.complete()
}

func readSourceRef(l *canon.Lexer, r *SourceRef) bool {
	m := members{required: 0b1111}
	return l.Object(func(key []byte) bool {
		switch string(key) {
		case "source_sha":
			return m.first(0) && readShared(l, &r.SourceSHA)
		case "span":
			return m.first(1) && readString(l, &r.Span)
		case "adapter":
			return m.first(2) && readShared(l, &r.Adapter)
		case "retrieved_at":
			return m.first(3) && readShared(l, &r.RetrievedAt)
		case "text_sha":
			return m.first(4) && readShared(l, &r.TextSHA)
		case "start":
			return m.first(5) && readOffset(l, &r.Start)
		case "end":
			return m.first(6) && readOffset(l, &r.End)
		case "extractor":
			return m.first(7) && readShared(l, &r.Extractor)
		}
		return false
	}) && m.complete()
}

// readList reads an array into a new slice, empty but not nil for [], as
// Unmarshal makes it.
func readList[T any](l *canon.Lexer, dst *[]T, elem func(*canon.Lexer, *T) bool) bool {
	out := []T{}
	ok := l.Array(func() bool {
		var v T
		if !elem(l, &v) {
			return false
		}
		out = append(out, v)
		return true
	})
	*dst = out
	return ok
}

// readShared reads a string that repeats across the document (a source's
// digest, adapter or date, a relation name, a state) as one shared value
// (canon.Lexer.SharedString).
func readShared[S ~string](l *canon.Lexer, dst *S) bool {
	s, ok := l.SharedString()
	*dst = S(s)
	return ok
}

func readString[S ~string](l *canon.Lexer, dst *S) bool {
	s, ok := l.String()
	*dst = S(s)
	return ok
}

// readOffset reads a byte offset: null leaves it absent, as Unmarshal does.
func readOffset(l *canon.Lexer, dst **int64) bool {
	if l.Null() {
		*dst = nil
		return true
	}
	i, ok := l.Int64()
	if ok {
		*dst = &i
	}
	return ok
}
