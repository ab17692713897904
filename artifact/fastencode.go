package artifact

import (
	"runtime"
	"strconv"

	"formation/canon"
)

// encodeDirect writes the canonical bytes of the smelted bundle and the
// validated set without reflection: the two artifacts a stage writes whole
// whose size grows with the subject. It reports false for any other type,
// and when a string cannot be encoded (invalid UTF-8), so that Encode
// returns canon.Marshal's error. FuzzEncodeDirect holds the bytes equal to
// canon.Marshal's. A large artifact, on more than one CPU, has the tail of
// its relation list written on a second goroutine (encodedTail).
func encodeDirect(v any) ([]byte, bool) {
	from := splitFrom
	if runtime.GOMAXPROCS(0) == 1 {
		from = -1
	}
	return encodeSplit(v, from)
}

// encodeSplit is encodeDirect with the tail of the relation list written
// on a second goroutine when the artifact's estimated size is at least
// from bytes (never when from < 0).
func encodeSplit(v any, from int) ([]byte, bool) {
	var b *SmeltedBundle
	var vts *ValidatedTripleSet
	switch a := v.(type) {
	case SmeltedBundle:
		b = &a
	case *SmeltedBundle:
		b = a
	case ValidatedTripleSet:
		vts = &a
	case *ValidatedTripleSet:
		vts = a
	default:
		return nil, false
	}
	var w writer
	if b != nil {
		size := bundleSize(b)
		w.buf = make([]byte, 0, size)
		w.bundle(b, splitTail(b.Relations, size, from))
	} else {
		size := validatedSetSize(vts)
		w.buf = make([]byte, 0, size)
		w.validatedSet(vts, splitTail(vts.Relations, size, from))
	}
	return w.buf, w.err == nil
}

// encodedTail is the encoding of a relation list's last elements, each
// with the comma before it, written on another goroutine while the writer
// writes everything before them: a relation's encoding depends on nothing
// around it, so the two parts joined are the one encoding.
type encodedTail struct {
	first int // index of the first relation in the tail
	buf   []byte
	err   error
	done  chan struct{}
}

// splitTail starts writing the tail of rels when the artifact's estimated
// size is at least from bytes: the last relations, about half the
// artifact's bytes (or all but the first relation), or nil.
func splitTail(rels []RelationCandidate, size, from int) *encodedTail {
	if from < 0 || size < from || len(rels) < 2 {
		return nil
	}
	first, tail := len(rels), 0
	for first > 1 && tail < size/2 {
		first--
		tail += relationSize(&rels[first]) + 1
	}
	t := &encodedTail{first: first, done: make(chan struct{})}
	go func() {
		defer close(t.done)
		w := writer{buf: make([]byte, 0, tail)}
		for i := first; i < len(rels); i++ {
			w.buf = append(w.buf, ',')
			w.relation(&rels[i])
		}
		t.buf, t.err = w.buf, w.err
	}()
	return t
}

// relations writes a relation list, its tail from t when there is one.
func (w *writer) relations(rels []RelationCandidate, t *encodedTail) {
	if t == nil {
		list(w, rels, (*writer).relation)
		return
	}
	w.buf = append(w.buf, '[')
	for i := range rels[:t.first] {
		if i > 0 {
			w.buf = append(w.buf, ',')
		}
		w.relation(&rels[i])
	}
	<-t.done
	if w.err == nil {
		w.err = t.err
	}
	w.buf = append(w.buf, t.buf...)
	w.buf = append(w.buf, ']')
}

// The sizes below are the encoded length when no string needs escaping
// (an escaped string grows the buffer once more): the strings' bytes plus
// each object's keys, quotes and punctuation, offsets at 20 digits.

func bundleSize(b *SmeltedBundle) int {
	return 64 + listSize(b.Concepts, conceptSize) + listSize(b.Relations, relationSize) +
		listSize(b.Counters, relationSize) + listSize(b.OrderingHints, hintSize)
}

func validatedSetSize(v *ValidatedTripleSet) int {
	n := 160 + len(v.SubjectID) + len(v.SchemaVersion) + listSize(v.Concepts, conceptSize) +
		listSize(v.Relations, relationSize) + listSize(v.Counters, relationSize) +
		listSize(v.Quarantined, relationSize) + listSize(v.OrderingHints, hintSize)
	for _, r := range v.DeclaredRelations {
		n += len(r) + 3
	}
	return n
}

func listSize[T any](items []T, size func(*T) int) int {
	n := 2
	for i := range items {
		n += size(&items[i]) + 1
	}
	return n
}

func conceptSize(c *ConceptCandidate) int {
	return 80 + len(c.CanonicalTerm) + len(c.Definition) + len(c.RejectionReason) + len(c.State) + listSize(c.Sources, refSize)
}

func relationSize(r *RelationCandidate) int {
	return 80 + len(r.Head) + len(r.Relation) + len(r.Tail) + len(r.RejectionReason) + len(r.State) + listSize(r.Sources, refSize)
}

func hintSize(h *OrderingHint) int {
	return 40 + len(h.Before) + len(h.After) + listSize(h.Sources, refSize)
}

func refSize(r *SourceRef) int {
	return 140 + len(r.Adapter) + len(r.RetrievedAt) + len(r.SourceSHA) + len(r.Span) + len(r.TextSHA) + len(r.Extractor)
}

// writer appends canonical JSON; the first string that cannot be encoded
// stops it.
type writer struct {
	buf []byte
	err error
}

// key writes an object's opening or separating byte and a key that needs
// no escaping, given whole (`{"head":`, `,"tail":`): one append, where a
// byte at a time was four, each a store the collector's write barrier
// sees while it marks.
func (w *writer) key(k string) {
	w.buf = append(w.buf, k...)
}

// field writes a key given as key takes it and a string value.
func (w *writer) field(k, v string) {
	w.key(k)
	w.str(v)
}

func (w *writer) str(s string) {
	if w.err == nil {
		w.buf, w.err = canon.AppendString(w.buf, s)
	}
}

// list writes items with one writer function, [] for none (a nil slice
// included, as canon.Marshal does).
func list[T any](w *writer, items []T, item func(*writer, *T)) {
	w.buf = append(w.buf, '[')
	for i := range items {
		if i > 0 {
			w.buf = append(w.buf, ',')
		}
		item(w, &items[i])
	}
	w.buf = append(w.buf, ']')
}

// Keys are written in code-point order, the canonical order.

// bundle and validatedSet take the tail of the relation list from t when
// it is not nil.

func (w *writer) bundle(b *SmeltedBundle, t *encodedTail) {
	w.key(`{"concepts":`)
	list(w, b.Concepts, (*writer).concept)
	w.key(`,"counters":`)
	list(w, b.Counters, (*writer).relation)
	w.key(`,"ordering_hints":`)
	list(w, b.OrderingHints, (*writer).hint)
	w.key(`,"relations":`)
	w.relations(b.Relations, t)
	w.buf = append(w.buf, '}')
}

func (w *writer) validatedSet(v *ValidatedTripleSet, t *encodedTail) {
	w.key(`{"concepts":`)
	list(w, v.Concepts, (*writer).concept)
	w.key(`,"counters":`)
	list(w, v.Counters, (*writer).relation)
	if len(v.DeclaredRelations) > 0 {
		w.key(`,"declared_relations":`)
		list(w, v.DeclaredRelations, func(w *writer, s *string) { w.str(*s) })
	}
	w.key(`,"ordering_hints":`)
	list(w, v.OrderingHints, (*writer).hint)
	w.key(`,"quarantined":`)
	list(w, v.Quarantined, (*writer).relation)
	w.key(`,"relations":`)
	w.relations(v.Relations, t)
	w.field(`,"schema_version":`, v.SchemaVersion)
	w.field(`,"subject_id":`, v.SubjectID)
	w.buf = append(w.buf, '}')
}

func (w *writer) concept(c *ConceptCandidate) {
	w.key(`{"canonical_term":`)
	w.str(c.CanonicalTerm)
	w.field(`,"definition":`, c.Definition)
	w.field(`,"rejection_reason":`, c.RejectionReason)
	w.key(`,"sources":`)
	list(w, c.Sources, (*writer).sourceRef)
	w.field(`,"state":`, string(c.State))
	w.buf = append(w.buf, '}')
}

func (w *writer) relation(r *RelationCandidate) {
	w.key(`{"head":`)
	w.str(r.Head)
	w.field(`,"rejection_reason":`, r.RejectionReason)
	w.field(`,"relation":`, r.Relation)
	w.key(`,"sources":`)
	list(w, r.Sources, (*writer).sourceRef)
	w.field(`,"state":`, string(r.State))
	w.field(`,"tail":`, r.Tail)
	w.buf = append(w.buf, '}')
}

func (w *writer) hint(h *OrderingHint) {
	w.key(`{"after":`)
	w.str(h.After)
	w.field(`,"before":`, h.Before)
	w.key(`,"sources":`)
	list(w, h.Sources, (*writer).sourceRef)
	w.buf = append(w.buf, '}')
}

func (w *writer) sourceRef(r *SourceRef) {
	w.key(`{"adapter":`)
	w.str(r.Adapter)
	if r.End != nil {
		w.key(`,"end":`)
		w.buf = strconv.AppendInt(w.buf, *r.End, 10)
	}
	if r.Extractor != "" {
		w.field(`,"extractor":`, r.Extractor)
	}
	w.field(`,"retrieved_at":`, r.RetrievedAt)
	w.field(`,"source_sha":`, r.SourceSHA)
	w.field(`,"span":`, r.Span)
	if r.Start != nil {
		w.key(`,"start":`)
		w.buf = strconv.AppendInt(w.buf, *r.Start, 10)
	}
	if r.TextSHA != "" {
		w.field(`,"text_sha":`, r.TextSHA)
	}
	w.buf = append(w.buf, '}')
}
