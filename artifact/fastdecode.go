package artifact

import "formation/canon"

// decodeDirect reads the two artifacts every large run loads whole — the
// smelted bundle (forge's input) and the validated set (compose's) —
// straight into their structs, without the generic tree and the
// reflection of canon.Unmarshal, which cost more than forge's own work at
// 10,000 relations. It reports false when v is of another type or when
// data is anything but a document Unmarshal reads the same way (see
// canon.Lexer); Decode then falls back to Unmarshal for the reading or the
// typed error. FuzzDecodeDirect holds the two readings equal.
func decodeDirect(data []byte, v any) bool {
	l := canon.NewLexer(data)
	switch p := v.(type) {
	case *SmeltedBundle:
		return readBundle(l, p) && l.End()
	case *ValidatedTripleSet:
		return readValidatedSet(l, p) && l.End()
	}
	return false
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

func readBundle(l *canon.Lexer, b *SmeltedBundle) bool {
	m := members{required: 0b1111}
	return l.Object(func(key []byte) bool {
		switch string(key) {
		case "concepts":
			return m.first(0) && readList(l, &b.Concepts, readConcept)
		case "relations":
			return m.first(1) && readList(l, &b.Relations, readRelation)
		case "counters":
			return m.first(2) && readList(l, &b.Counters, readRelation)
		case "ordering_hints":
			return m.first(3) && readList(l, &b.OrderingHints, readHint)
		}
		return false
	}) && m.complete()
}

func readValidatedSet(l *canon.Lexer, v *ValidatedTripleSet) bool {
	m := members{required: 0b1111111}
	return l.Object(func(key []byte) bool {
		switch string(key) {
		case "subject_id":
			return m.first(0) && readString(l, &v.SubjectID)
		case "concepts":
			return m.first(1) && readList(l, &v.Concepts, readConcept)
		case "relations":
			return m.first(2) && readList(l, &v.Relations, readRelation)
		case "counters":
			return m.first(3) && readList(l, &v.Counters, readRelation)
		case "ordering_hints":
			return m.first(4) && readList(l, &v.OrderingHints, readHint)
		case "quarantined":
			return m.first(5) && readList(l, &v.Quarantined, readRelation)
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
