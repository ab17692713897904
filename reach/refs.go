package reach

import (
	"fmt"
	"strings"

	"formation/canon"
	"formation/ident"
	"formation/reviewed"
)

// Role is what a ref is to garbage collection.
type Role int

// The roles.
const (
	// Root: kept, with everything it names (stage refs, the reviewed state,
	// lanes, audit, packs, proposals, cache/last and cache/runs notes, refs of
	// namespaces this package does not know).
	Root Role = iota
	// CacheRecord: cache/<stage>/<key>, kept only while it is the latest
	// record of some subject's stage (cache/last/<subject>/<stage>).
	CacheRecord
	// ValidatedLookup: index/validated/<validated_set_sha>, kept while a
	// kept object names that validated_set_sha.
	ValidatedLookup
	// Lock: locks/…, the lock protocol's own refs, never followed.
	Lock
)

// Ref prefixes with a role of their own.
const (
	ValidatedPrefix = "index/validated/"
	LastPrefix      = "cache/last/"
	RunsPrefix      = "cache/runs/"
	LockPrefix      = "locks/"
)

// RoleOf returns a ref's role.
func RoleOf(name string) Role {
	switch {
	case strings.HasPrefix(name, LockPrefix):
		return Lock
	case strings.HasPrefix(name, ValidatedPrefix):
		return ValidatedLookup
	case strings.HasPrefix(name, LastPrefix), strings.HasPrefix(name, RunsPrefix):
		return Root
	case strings.HasPrefix(name, "cache/"):
		return CacheRecord
	}
	return Root
}

// StageKind is the kind of a stage's output.
func StageKind(stage string) Kind {
	switch stage {
	case "mine":
		return OreBundle
	case "smelt":
		return SmeltedBundle
	case "forge":
		return ValidatedSet
	case "compose":
		return Course
	case "run":
		return RunRecord
	case "ratify":
		return Report
	}
	return Unknown
}

// OfRef returns what a ref's value names. A value gc cannot read is an
// error: it might name objects that must stay.
func OfRef(name string, val []byte) (Names, error) {
	var n Names
	segs := strings.Split(name, "/")
	last := segs[len(segs)-1]
	switch {
	case segs[0] == "audit", segs[0] == "locks":
		return n, nil
	case segs[0] == "cache":
		return n, cacheRecord(name, last, val, &n)
	case segs[0] == "subjects" && len(segs) == 3:
		return n, digestRef(name, val, StageKind(last), &n)
	case name == reviewed.StateRef:
		return n, digestRef(name, val, State, &n)
	case segs[0] == "knowledge": // knowledge/reviewed, of a store written before the state object
		return n, digestRef(name, val, Knowledge, &n)
	case name == "index/mastered-courses":
		return n, digestRef(name, val, Index, &n)
	case strings.HasPrefix(name, "index/promotions/"):
		return n, digestRef(name, val, Envelope, &n)
	case strings.HasPrefix(name, ValidatedPrefix):
		return n, digestRef(name, val, ValidatedSet, &n)
	case segs[0] == "lanes":
		return n, digestRef(name, val, LaneResult, &n)
	}
	// packs/, proposals/ and anything newer: a digest is followed, by kind
	// sniffed; any other value names nothing this package can see.
	if d := strings.TrimSpace(string(val)); ident.ValidDigest(d) {
		n.add(d, Unknown)
	}
	return n, nil
}

func digestRef(name string, val []byte, kind Kind, n *Names) error {
	d := strings.TrimSpace(string(val))
	if !ident.ValidDigest(d) {
		return fmt.Errorf("reach: ref %s holds %q, not a digest", name, clip(d))
	}
	n.add(d, kind)
	return nil
}

// cacheRecord reads a stage-cache record or a last-run note: its output (a
// stage's kind, by the ref's last segment when it is a subject's note, by
// its stage segment when it is a record) and its inputs (sniffed).
func cacheRecord(name, last string, val []byte, n *Names) error {
	doc, err := canon.Decode(val)
	obj, ok := doc.(*canon.Object)
	if err != nil || !ok {
		return fmt.Errorf("reach: ref %s is not a cache record: %v", name, err)
	}
	out, ok := obj.String("output")
	if !ok || !ident.ValidDigest(out) {
		return fmt.Errorf("reach: cache record %s names no output digest", name)
	}
	stage := last
	if RoleOf(name) == CacheRecord {
		stage = strings.Split(name, "/")[1]
	}
	n.add(out, StageKind(stage))
	inputs, _ := path(obj, "ingredients", "inputs").([]any)
	for _, d := range inputs {
		if s, ok := d.(string); ok {
			n.add(s, Unknown)
		}
	}
	return nil
}

// path follows object keys; nil when any is missing.
func path(v any, keys ...string) any {
	for _, k := range keys {
		obj, ok := v.(*canon.Object)
		if !ok {
			return nil
		}
		if v, ok = obj.Get(k); !ok {
			return nil
		}
	}
	return v
}

func clip(s string) string {
	if len(s) > 80 {
		return s[:80] + "…"
	}
	return s
}
