package artifact

import (
	"bufio"
	"fmt"
	"io"
	"reflect"
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
	// chunks hold the payloads' bytes end to end, each payload whole in
	// one chunk; at[i] places payload i: its chunk in the high bits, its
	// end in that chunk in the low ones. Chunks of a fixed size, where one
	// buffer grown by doubling copied the payloads twice over and touched
	// twice their size of fresh memory (a million-step plan: 290 MB,
	// a serial second of page faults and copying before the first step
	// ran); where a slice per payload took the encoder's 512-byte first
	// buffer each (a 100,000-relation plan: 114 MB held for 30).
	chunks [][]byte
	at     []uint64
	// scratch is AppendStep's buffer for one payload's encoding.
	scratch []byte
}

// payloadChunk is the size of a chunk of PlanPayloads: large enough that
// the chunks' spare ends waste little, small enough that a chunk is
// allocated without stalling anything.
const payloadChunk = 1 << 20

// atShift splits an entry of PlanPayloads.at into chunk and end.
const atShift = 40

// EncodePayloads encodes each step's payload once.
func EncodePayloads(steps []PlanStep) (PlanPayloads, error) {
	p := PlanPayloads{steps: steps, at: make([]uint64, 0, len(steps))}
	for i, s := range steps {
		var err error
		if p.scratch, err = canon.AppendMarshal(p.scratch[:0], nilMapAsEmpty(s.Payload)); err != nil {
			return PlanPayloads{}, fmt.Errorf("artifact: encode step %d payload: %w", i, err)
		}
		p.add(p.scratch)
	}
	return p, nil
}

// AppendStep adds a step of the given type whose payload is held as its
// canonical bytes alone: the step p keeps has no map, so that a plan
// compiled this way never holds a map per step (at a million steps, a
// gigabyte of fresh memory touched and let go). The error is canon's, and
// nothing is added then.
func (p *PlanPayloads) AppendStep(stepType string, payload map[string]any) error {
	var err error
	if p.scratch, err = canon.AppendMarshal(p.scratch[:0], nilMapAsEmpty(payload)); err != nil {
		return err
	}
	p.steps = append(p.steps, PlanStep{StepType: stepType})
	p.add(p.scratch)
	return nil
}

// AppendStringStep is AppendStep for a payload whose values are all
// strings, given as key, value pairs with the keys in increasing byte
// order, plain ASCII and distinct (the compiler's own keys): its bytes are
// written as canon writes that object, without building the map. A key out
// of order or an odd list is refused, and nothing is added then.
func (p *PlanPayloads) AppendStringStep(stepType string, pairs ...string) error {
	if len(pairs)%2 != 0 {
		return fmt.Errorf("artifact: payload of step %d: %d strings are not key, value pairs", len(p.steps), len(pairs))
	}
	b := append(p.scratch[:0], '{')
	for i := 0; i < len(pairs); i += 2 {
		key, value := pairs[i], pairs[i+1]
		if i > 0 && key <= pairs[i-2] || !plainKey(key) {
			return fmt.Errorf("artifact: payload of step %d: key %q is not a plain key after %q", len(p.steps), key, pairs[max(i-2, 0)])
		}
		if i > 0 {
			b = append(b, ',')
		}
		b = append(append(append(b, '"'), key...), '"', ':')
		var err error
		if b, err = canon.AppendString(b, value); err != nil {
			p.scratch = b
			return err
		}
	}
	p.scratch = append(b, '}')
	p.steps = append(p.steps, PlanStep{StepType: stepType})
	p.add(p.scratch)
	return nil
}

// plainKey reports whether k is a non-empty run of lowercase ASCII
// letters, digits and underscores: a key canon writes as it is, and whose
// byte order is canon's order of keys.
func plainKey(k string) bool {
	for i := 0; i < len(k); i++ {
		if c := k[i]; (c < 'a' || c > 'z') && (c < '0' || c > '9') && c != '_' {
			return false
		}
	}
	return k != ""
}

// Steps are the steps p holds payloads for; those added by AppendStep
// have no payload map.
func (p PlanPayloads) Steps() []PlanStep { return p.steps }

// JoinPayloads returns the steps and payloads of parts one after another.
func JoinPayloads(parts ...PlanPayloads) PlanPayloads {
	var out PlanPayloads
	for _, part := range parts {
		base := uint64(len(out.chunks)) << atShift
		out.steps = append(out.steps, part.steps...)
		for _, at := range part.at {
			out.at = append(out.at, at+base)
		}
		out.chunks = append(out.chunks, part.chunks...)
	}
	return out
}

// add places the next payload's bytes b at the end of the last chunk, or
// in a new one when they do not fit.
func (p *PlanPayloads) add(b []byte) {
	last := len(p.chunks) - 1
	if last < 0 || len(p.chunks[last])+len(b) > cap(p.chunks[last]) {
		p.chunks = append(p.chunks, make([]byte, 0, max(payloadChunk, len(b))))
		last++
	}
	p.chunks[last] = append(p.chunks[last], b...)
	p.at = append(p.at, uint64(last)<<atShift|uint64(len(p.chunks[last])))
}

// bytes are step i's payload's canonical bytes.
func (p PlanPayloads) bytes(i int) []byte {
	chunk, end := p.at[i]>>atShift, p.at[i]&(1<<atShift-1)
	start := uint64(0)
	if i > 0 && p.at[i-1]>>atShift == chunk {
		start = p.at[i-1] & (1<<atShift - 1)
	}
	return p.chunks[chunk][start:end:end]
}

// Payload decodes step i's payload back from its canonical bytes, for a
// holder of a large plan that keeps only the bytes (see AppendStep).
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

// nilMapAsEmpty lets a nil payload encode as {}, as it does inside a struct.
func nilMapAsEmpty(m map[string]any) any {
	if m == nil {
		return map[string]any{}
	}
	return m
}

// of returns the canonical bytes of payload m found at step i: the stored
// bytes when m is that very step's payload (the run shim hands the plan's
// own map on; for a step added by AppendStep both are nil), else m encoded afresh, so a
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
