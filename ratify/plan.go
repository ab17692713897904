package ratify

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
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

	types    []string // interned: a plan has a handful of step types
	payloads []byte   // every step's canonical payload, one after another
	ends     []int    // where step i's payload ends in payloads
	// unhashable holds the steps whose payload cannot be encoded (a plan
	// built in memory; never one that was read), digestErr the error
	// artifact.PlanDigest gives for such a plan.
	unhashable map[int]error
	digestErr  error
	// walks are the (head, relation, tail) of the walk steps whose payload
	// holds three strings, by step: what G6 reads of a result whose payload
	// is the plan's own.
	walks map[int]artifact.Triple
}

// Len is the number of steps.
func (p *Plan) Len() int { return len(p.types) }

func (p *Plan) step(i int) (typ string, payload []byte, err error) {
	start := 0
	if i > 0 {
		start = p.ends[i-1]
	}
	return p.types[i], p.payloads[start:p.ends[i]], p.unhashable[i]
}

func (p *Plan) add(typ string, payload []byte, decoded map[string]any, interned map[string]string) {
	if tr, ok := walkTriple(typ, decoded); ok {
		if p.walks == nil {
			p.walks = map[int]artifact.Triple{}
		}
		p.walks[len(p.types)] = tr
	}
	t, ok := interned[typ]
	if !ok {
		interned[typ], t = typ, typ
	}
	p.types = append(p.types, t)
	p.payloads = append(p.payloads, payload...)
	p.ends = append(p.ends, len(p.payloads))
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
		p.add(st.StepType, b, st.Payload, interned)
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
func ReadPlan(data []byte) (Plan, error) {
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
			p.add(st.StepType, b, st.Payload, interned)
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
