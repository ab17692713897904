package ratify

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strconv"

	"formation/artifact"
	"formation/canon"
)

// Plan is a formation plan as the gates read it: its identity and, per step,
// the step type and the canonical bytes of the payload, which is all G1
// compares a result with. It is a small fraction of a decoded
// artifact.FormationPlan (one buffer of payload bytes, no maps), and its
// digest is plan_sha256 recomputed from those bytes.
type Plan struct {
	CourseID      string
	CourseSHA256  string
	PlanSHA256    string
	SchemaVersion string

	types []string // interned: a plan has a handful of step types
	// payloads holds every step's canonical payload, step i's at spans[i]:
	// for a plan read in canonical form, the stored plan's own bytes, which
	// hold them already (copied out one after another, a large plan's
	// payloads were a buffer grown by doubling: at a million steps, 200 MB
	// copied twice and as much fresh memory faulted in).
	payloads []byte
	spans    []span
	// unhashable holds the steps whose payload cannot be encoded (a plan
	// built in memory; never one that was read), digestErr the error
	// artifact.PlanDigest gives for such a plan.
	unhashable map[int]error
	digestErr  error
	// walkSteps are the walk steps whose payload holds three strings, in
	// increasing order, walks their (head, relation, tail): what G6 reads
	// of a result whose payload is the plan's own. Two slices searched by
	// step, where a map held 500,000 entries for a large plan.
	walkSteps []int
	walks     []artifact.Triple
	// nesting is the deepest nesting of any payload, its own object counted
	// as 1: how deep a result holding the plan's payload nests.
	nesting int
}

// Len is the number of steps.
func (p *Plan) Len() int { return len(p.types) }

// span is where a step's payload lies in Plan.payloads.
type span struct{ start, end int }

func (p *Plan) step(i int) (typ string, payload []byte, err error) {
	sp := p.spans[i]
	return p.types[i], p.payloads[sp.start:sp.end:sp.end], p.unhashable[i]
}

// walk is the (head, relation, tail) of step i, if it is a walk step whose
// payload holds three strings.
func (p *Plan) walk(i int) (artifact.Triple, bool) {
	at, ok := slices.BinarySearch(p.walkSteps, i)
	if !ok {
		return artifact.Triple{}, false
	}
	return p.walks[at], true
}

// add appends a step whose canonical payload nests nesting deep; walk is
// the step's (head, relation, tail), if it is a walk step whose payload
// holds three strings.
func (p *Plan) add(typ string, payload []byte, nesting int, walk artifact.Triple, isWalk bool, interned map[string]string) {
	start := len(p.payloads)
	p.payloads = append(p.payloads, payload...)
	p.addAt(typ, span{start, len(p.payloads)}, nesting, walk, isWalk, interned)
}

// addAt is add of a payload already in p.payloads, at sp.
func (p *Plan) addAt(typ string, sp span, nesting int, walk artifact.Triple, isWalk bool, interned map[string]string) {
	p.nesting = max(p.nesting, nesting)
	if isWalk {
		p.walkSteps = append(p.walkSteps, len(p.types))
		p.walks = append(p.walks, walk)
	}
	t, ok := interned[typ]
	if !ok {
		interned[typ], t = typ, typ
	}
	p.types = append(p.types, t)
	p.spans = append(p.spans, sp)
}

// addDecoded is add of a decoded step whose payload encodes to b.
func (p *Plan) addDecoded(st artifact.PlanStep, b []byte, interned map[string]string) {
	tr, ok := walkTriple(st.StepType, st.Payload)
	p.add(st.StepType, b, canonicalNesting(b), tr, ok, interned)
}

// PlanOf is the Plan of a decoded plan.
func PlanOf(fp artifact.FormationPlan) Plan {
	p := Plan{CourseID: fp.CourseID, CourseSHA256: fp.CourseSHA256, PlanSHA256: fp.PlanSHA256, SchemaVersion: fp.SchemaVersion}
	interned := map[string]string{}
	for i, st := range fp.Steps {
		b, err := canon.Marshal(st.Payload)
		if err != nil {
			if p.unhashable == nil {
				p.unhashable = map[int]error{}
			}
			p.unhashable[i] = err
		}
		p.addDecoded(st, b, interned)
	}
	if p.unhashable != nil {
		_, p.digestErr = artifact.PlanDigest(fp.CourseID, fp.CourseSHA256, fp.Steps)
	}
	return p
}

// digest is plan_sha256 of the plan's course and steps, as
// artifact.PlanDigest computes it: the SHA-256 of the canonical
// {course_id, course_sha256, steps}, written here from the steps' bytes.
func (p *Plan) digest() (string, error) {
	if p.digestErr != nil {
		return "", p.digestErr
	}
	head, err := canon.Marshal(struct {
		CourseID     string `json:"course_id"`
		CourseSHA256 string `json:"course_sha256"`
	}{p.CourseID, p.CourseSHA256})
	if err != nil {
		return "", err
	}
	h := sha256.New()
	h.Write(head[:len(head)-1])
	h.Write([]byte(`,"steps":[`))
	quoted := map[string][]byte{}
	for i := range p.types {
		typ, payload, _ := p.step(i)
		q, ok := quoted[typ]
		if !ok {
			if q, err = canon.Marshal(typ); err != nil {
				return "", err
			}
			quoted[typ] = q
		}
		if i > 0 {
			h.Write([]byte{','})
		}
		h.Write([]byte(`{"payload":`))
		h.Write(payload)
		h.Write([]byte(`,"step_type":`))
		h.Write(q)
		h.Write([]byte{'}'})
	}
	h.Write([]byte("]}"))
	return hex.EncodeToString(h.Sum(nil)), nil
}

var planFields = []string{"course_id", "course_sha256", "plan_sha256", "schema_version", "steps"}

// ReadPlan reads a stored plan (canonical JSON, untrusted) one step at a
// time, never building the decoded plan. It accepts exactly what
// artifact.Decode[artifact.FormationPlan] accepts; what it refuses is a
// *DecodeError with that decode's error.
//
// The run stage writes a plan in canonical form, and a canonical payload's
// bytes are the bytes the gates compare and hash, so such a plan is read in
// one pass without decoding a payload (readCanonicalPlan). Any other plan,
// or anything wrong with one, is read by decoding every step as canon does,
// which gives the reading or the error.
func ReadPlan(data []byte) (Plan, error) {
	if p, ok := readCanonicalPlan(data); ok {
		return p, nil
	}
	return readPlanSteps(data)
}

// readPlanSteps is ReadPlan by canon.Decode and canon.Assign of each step.
func readPlanSteps(data []byte) (Plan, error) {
	var p Plan
	interned := map[string]string{}
	fs := newFieldSet(planFields)
	strs := map[string]*string{"course_id": &p.CourseID, "course_sha256": &p.CourseSHA256, "plan_sha256": &p.PlanSHA256, "schema_version": &p.SchemaVersion}
	s := &scanner{data: data}
	s.space()
	err := s.object(1, fs, "$", func(s *scanner, key string) *canon.Error {
		if dst, ok := strs[key]; ok {
			return s.decodeInto(1, dst, "$."+key, fs, key)
		}
		if s.peek() != '[' {
			return s.decodeInto(1, &[]artifact.PlanStep{}, "$.steps", fs, key)
		}
		return s.array(2, func(s *scanner, i int) *canon.Error {
			g, err := s.decode(2)
			if err != nil || fs.failed() {
				return err
			}
			var st artifact.PlanStep
			if e := assign(g, &st, "$.steps["+strconv.Itoa(i)+"]"); e != nil {
				fs.fail(key, e)
				return nil
			}
			b, merr := canon.Marshal(st.Payload)
			if merr != nil { // a decoded payload always encodes
				return &canon.Error{Kind: canon.KindSchema, Offset: -1, Path: "$.steps[" + strconv.Itoa(i) + "]", Msg: merr.Error()}
			}
			p.addDecoded(st, b, interned)
			return nil
		})
	})
	if err == nil {
		s.space()
		if s.pos != len(s.data) {
			err = s.fail(canon.KindTrailingData, "data after the end of the document")
		}
	}
	if err == nil {
		err = fs.err("$")
	}
	if err != nil {
		return Plan{}, &DecodeError{Type: fmt.Sprintf("%T", artifact.FormationPlan{}), Err: err}
	}
	return p, nil
}

// Depths at which canon's decoder meets a plan's values: the plan object is
// 1, its steps array 2, a step 3; a payload sits inside those three.
const depthStepPayload = 3

// readCanonicalPlan reads a plan whose every payload is in canonical form,
// each step's bytes taken as they are; it declines (false) any document
// that is not exactly a plan of that kind, declining rather than refusing,
// so that whatever it accepts canon.Decode and canon.Assign accept too, to
// the same Plan. TestCanonicalPlanAgreesWithSteps and FuzzReadPlan hold it
// to that.
func readCanonicalPlan(data []byte) (Plan, bool) {
	p := Plan{payloads: data}
	interned := map[string]string{}
	l := canon.NewLexer(data)
	var seen fieldBits
	ok := l.Object(func(key []byte) bool {
		switch string(key) {
		case "course_id":
			return seen.first(0) && lexString(l, &p.CourseID)
		case "course_sha256":
			return seen.first(1) && lexString(l, &p.CourseSHA256)
		case "plan_sha256":
			return seen.first(2) && lexString(l, &p.PlanSHA256)
		case "schema_version":
			return seen.first(3) && lexString(l, &p.SchemaVersion)
		case "steps":
			return seen.first(4) && l.Array(func() bool { return p.readCanonicalStep(l, interned) })
		}
		return false
	})
	if !ok || seen != 0b11111 || !l.End() {
		return Plan{}, false
	}
	return p, true
}

// readCanonicalStep reads one step {"payload":…,"step_type":…} whose
// payload is a canonical object.
func (p *Plan) readCanonicalStep(l *canon.Lexer, interned map[string]string) bool {
	var (
		typ     string
		payload span // in the plan's bytes, which p.payloads is
		nesting int
		seen    fieldBits
	)
	ok := l.Object(func(key []byte) bool {
		switch string(key) {
		case "payload":
			if !seen.first(0) {
				return false
			}
			start := l.Offset()
			raw, deepest, ok := l.Canonical(depthStepPayload)
			payload = span{start, start + len(raw)}
			nesting = deepest - depthStepPayload
			return ok && raw[0] == '{' // canon.Assign puts only an object in a map
		case "step_type":
			return seen.first(1) && lexString(l, &typ)
		}
		return false
	})
	if !ok || seen != 0b11 {
		return false
	}
	var (
		walk   artifact.Triple
		isWalk bool
	)
	if typ == artifact.StepWalk {
		if walk, isWalk, ok = canonicalWalk(p.payloads[payload.start:payload.end]); !ok {
			return false
		}
	}
	p.addAt(typ, payload, nesting, walk, isWalk, interned)
	return true
}

// canonicalWalk is walkTriple of a walk step's canonical payload: its
// "head", "relation" and "tail" members when all three are strings.
func canonicalWalk(payload []byte) (tr artifact.Triple, isWalk, ok bool) {
	var found int
	l := canon.NewLexer(payload)
	ok = l.Object(func(key []byte) bool {
		var dst *string
		switch string(key) {
		case "head":
			dst = &tr.Head
		case "relation":
			dst = &tr.Relation
		case "tail":
			dst = &tr.Tail
		}
		if dst != nil {
			if s, ok := l.String(); ok {
				*dst = s
				found++
				return true
			}
		}
		_, _, ok := l.Canonical(depthStepPayload + 1)
		return ok
	}) && l.End()
	return tr, ok && found == 3, ok
}

// canonicalNesting is the deepest nesting of canonical bytes b, which hold
// no bracket but in strings and structure.
func canonicalNesting(b []byte) int {
	d, deepest := 0, 0
	for i := 0; i < len(b); i++ {
		switch b[i] {
		case '"':
			i = stringEnd(b, i) - 1
		case '{', '[':
			d++
			deepest = max(deepest, d)
		case '}', ']':
			d--
		}
	}
	return deepest
}

func lexString(l *canon.Lexer, dst *string) bool {
	s, ok := l.String()
	*dst = s
	return ok
}

// fieldBits tracks which fields of an object came, by number: a key seen
// twice is a duplicate, which canon refuses.
type fieldBits uint8

func (f *fieldBits) first(field uint) bool {
	bit := fieldBits(1) << field
	if *f&bit != 0 {
		return false
	}
	*f |= bit
	return true
}
