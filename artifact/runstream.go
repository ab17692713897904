package artifact

import (
	"bufio"
	"fmt"
	"io"
	"reflect"
	"slices"
	"strconv"

	"formation/canon"
)

// PlanPayloads are the canonical bytes of each step's payload of a plan, in
// step order. A large plan's payloads are most of the bytes of the plan and
// of both passes of its run record; encoding them once and writing the same
// bytes three times is what keeps the run stage's encoding cost linear in
// the plan with a small constant.
type PlanPayloads struct {
	steps []PlanStep
	// arena holds every payload's bytes end to end, payload i ending at
	// ends[i]: one allocation of their size, where a slice per payload
	// took the encoder's 512-byte first buffer each (a 100,000-relation
	// plan: 114 MB held for 30).
	arena []byte
	ends  []int
}

// EncodePayloads encodes each step's payload once.
func EncodePayloads(steps []PlanStep) (PlanPayloads, error) {
	p := PlanPayloads{steps: steps, ends: make([]int, len(steps))}
	var err error
	for i, s := range steps {
		if p.arena, err = canon.AppendMarshal(p.arena, nilMapAsEmpty(s.Payload)); err != nil {
			return PlanPayloads{}, fmt.Errorf("artifact: encode step %d payload: %w", i, err)
		}
		p.ends[i] = len(p.arena)
	}
	if cap(p.arena)-len(p.arena) > len(p.arena)/8 {
		p.arena = slices.Clone(p.arena) // let go of the doubling's spare room
	}
	return p, nil
}

// bytes are step i's payload's canonical bytes.
func (p PlanPayloads) bytes(i int) []byte {
	start := 0
	if i > 0 {
		start = p.ends[i-1]
	}
	return p.arena[start:p.ends[i]:p.ends[i]]
}

// Payload decodes step i's payload back from its canonical bytes, for a
// holder of a large plan that keeps only the bytes (see DropMaps).
func (p PlanPayloads) Payload(i int) (map[string]any, error) {
	if m, ok := stringsObject(p.bytes(i)); ok {
		return m, nil
	}
	var m map[string]any
	if err := canon.Unmarshal(p.bytes(i), &m); err != nil {
		return nil, fmt.Errorf("artifact: decode step %d payload: %w", i, err)
	}
	return m, nil
}

// stringsObject reads an object whose values are all strings, as
// Unmarshal reads it into a map[string]any, or declines. Every step of a
// compiled plan has such a payload, and the run stage reads one back for
// each step of each pass: through Unmarshal's generic tree that was a tenth
// of the stage's CPU outside the turns.
func stringsObject(b []byte) (map[string]any, bool) {
	l := canon.NewLexer(b)
	m := make(map[string]any, 6)
	ok := l.Object(func(key []byte) bool {
		v, ok := l.String()
		if !ok {
			return false
		}
		if _, dup := m[string(key)]; dup {
			return false
		}
		m[string(key)] = v
		return true
	})
	return m, ok && l.End()
}

// DropMaps lets go of the payload maps of the steps p was encoded from, so
// that a large plan is held once, as bytes; the writers then take every
// payload from the bytes, and Payload gives a step's map back when it is
// needed.
func (p PlanPayloads) DropMaps() {
	for i := range p.steps {
		p.steps[i].Payload = nil
	}
}

// nilMapAsEmpty lets a nil payload encode as {}, as it does inside a struct.
func nilMapAsEmpty(m map[string]any) any {
	if m == nil {
		return map[string]any{}
	}
	return m
}

// of returns the canonical bytes of payload m found at step i: the stored
// bytes when m is that very step's payload (the run shim hands the plan's
// own map on; after DropMaps both are nil), else m encoded afresh, so a
// caller that built its results some other way still gets the right bytes.
func (p PlanPayloads) of(i int, m map[string]any) ([]byte, error) {
	if i < len(p.steps) && sameMap(p.steps[i].Payload, m) {
		return p.bytes(i), nil
	}
	return canon.Marshal(nilMapAsEmpty(m))
}

func sameMap(a, b map[string]any) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return reflect.ValueOf(a).UnsafePointer() == reflect.ValueOf(b).UnsafePointer()
}

// WritePlan writes the canonical bytes of plan (those Encode(plan) returns)
// to w without building them whole. payloads must be of plan.Steps.
func WritePlan(w io.Writer, plan FormationPlan, payloads PlanPayloads) error {
	sw := newStreamWriter(w)
	sw.raw(`{"course_id":`)
	sw.str(plan.CourseID)
	sw.raw(`,"course_sha256":`)
	sw.str(plan.CourseSHA256)
	sw.raw(`,"plan_sha256":`)
	sw.str(plan.PlanSHA256)
	sw.raw(`,"schema_version":`)
	sw.str(plan.SchemaVersion)
	sw.raw(`,"steps":[`)
	for i, s := range plan.Steps {
		sw.comma(i)
		sw.raw(`{"payload":`)
		sw.payload(payloads, i, s.Payload)
		sw.raw(`,"step_type":`)
		sw.str(s.StepType)
		sw.raw("}")
	}
	sw.raw("]}")
	return sw.finish()
}

// WriteRunRecord writes the canonical bytes of rec (those Encode(rec)
// returns) to w without building them whole. Result j of a pass is of plan
// step j, so its payload's bytes come from payloads.
func WriteRunRecord(w io.Writer, rec RunRecord, payloads PlanPayloads) error {
	sw := newStreamWriter(w)
	sw.raw(`{"course_id":`)
	sw.str(rec.CourseID)
	sw.raw(`,"course_object":`)
	sw.str(rec.CourseObject)
	sw.raw(`,"course_sha256":`)
	sw.str(rec.CourseSHA256)
	sw.raw(`,"events_object":`)
	sw.str(rec.EventsObject)
	sw.raw(`,"plan_object":`)
	sw.str(rec.PlanObject)
	sw.raw(`,"plan_sha256":`)
	sw.str(rec.PlanSHA256)
	sw.raw(`,"runs":[`)
	for i, r := range rec.Runs {
		sw.comma(i)
		sw.runOutput(r, payloads)
	}
	sw.raw(`],"schema_version":`)
	sw.str(rec.SchemaVersion)
	sw.raw("}")
	return sw.finish()
}

func (sw *streamWriter) runOutput(r RunOutput, payloads PlanPayloads) {
	sw.raw(`{"halt_reason":`)
	sw.str(r.HaltReason)
	sw.raw(`,"halt_step_index":`)
	sw.int(r.HaltStepIndex)
	sw.raw(`,"halted":`)
	sw.bool(r.Halted)
	sw.raw(`,"results":[`)
	for j, s := range r.Results {
		sw.comma(j)
		sw.raw(`{"accepted":`)
		sw.bool(s.Accepted)
		sw.raw(`,"has_provenance":`)
		sw.bool(s.HasProvenance)
		sw.raw(`,"payload":`)
		sw.payload(payloads, j, s.Payload)
		sw.raw(`,"step_type":`)
		sw.str(s.StepType)
		sw.raw(`,"trace_hash":`)
		sw.str(s.TraceHash)
		sw.raw(`,"versor_condition_repr":`)
		sw.str(s.VersorConditionRepr)
		sw.raw("}")
	}
	sw.raw("]}")
}

// streamWriter appends canonical pieces to a small buffer and hands it to w
// whenever it fills; the first error sticks and ends the writing.
type streamWriter struct {
	w   *bufio.Writer
	buf []byte
	err error
}

const streamChunk = 64 << 10

func newStreamWriter(w io.Writer) *streamWriter { return newStreamWriterSize(w, streamChunk) }

// newStreamWriterSize is newStreamWriter with a buffer of size bytes
// between the pieces and w. Size 0 takes bufio's smallest, 16 bytes, so
// each 4 KiB piece goes straight to w, uncopied.
func newStreamWriterSize(w io.Writer, size int) *streamWriter {
	return &streamWriter{w: bufio.NewWriterSize(w, max(size, 16)), buf: make([]byte, 0, 4096)}
}

func (sw *streamWriter) flushIfFull() {
	if len(sw.buf) >= 4096 && sw.err == nil {
		_, sw.err = sw.w.Write(sw.buf)
		sw.buf = sw.buf[:0]
	}
}

func (sw *streamWriter) raw(s string) {
	sw.buf = append(sw.buf, s...)
	sw.flushIfFull()
}

// comma writes the comma before list item i, which has one when it is not
// the first.
func (sw *streamWriter) comma(i int) {
	if i > 0 {
		sw.raw(",")
	}
}

func (sw *streamWriter) str(s string) {
	if sw.err != nil {
		return
	}
	sw.buf, sw.err = canon.AppendString(sw.buf, s)
	sw.flushIfFull()
}

func (sw *streamWriter) int(n int) {
	sw.buf = strconv.AppendInt(sw.buf, int64(n), 10)
}

func (sw *streamWriter) bool(b bool) {
	sw.buf = strconv.AppendBool(sw.buf, b)
}

func (sw *streamWriter) payload(p PlanPayloads, i int, m map[string]any) {
	if sw.err != nil {
		return
	}
	b, err := p.of(i, m)
	if err != nil {
		sw.err = fmt.Errorf("artifact: encode payload of step %d: %w", i, err)
		return
	}
	sw.buf = append(sw.buf, b...)
	sw.flushIfFull()
}

func (sw *streamWriter) finish() error {
	if sw.err == nil && len(sw.buf) > 0 {
		_, sw.err = sw.w.Write(sw.buf)
	}
	if sw.err == nil {
		sw.err = sw.w.Flush()
	}
	return sw.err
}
