package ratify

import (
	"bytes"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"formation/artifact"
	"formation/canon"
)

// RecordHead is a stored run record without its passes: what ratify needs to
// find the course and the plan before the passes are read.
type RecordHead struct {
	CourseID      string
	CourseObject  string
	CourseSHA256  string
	PlanObject    string
	PlanSHA256    string
	EventsObject  string
	SchemaVersion string
	Passes        int // how many passes the record holds
}

// PassVisitor receives a run record's passes in order, one step at a time:
// Result for every step of a pass, then EndPass with how it ended. Gauge is
// one.
type PassVisitor interface {
	Result(pass int, res artifact.StepResult) error
	EndPass(pass int, halted bool, haltStepIndex int, haltReason string) error
}

// plannedVisitor is a PassVisitor that knows the plan the record was run
// from (Gauge is one): a result in canonical form whose payload is its plan
// step's, byte for byte, is handed to ResultAsPlanned without decoding the
// payload; every other result is decoded and handed to Result.
type plannedVisitor interface {
	PassVisitor
	PlannedPayload(step int) []byte
	Expected(pass, step int) (typ, trace string)
	PayloadNesting() int
	ResultAsPlanned(pass int, res artifact.StepResult) error
}

// DecodeError is a stored run record or plan that the streaming readers
// refuse. Err is the error that artifact.Decode gives for the same bytes,
// and Error the same text.
type DecodeError struct {
	Type string // artifact.RunRecord or artifact.FormationPlan
	Err  *canon.Error
}

func (e *DecodeError) Error() string { return "artifact: decode " + e.Type + ": " + e.Err.Error() }

func (e *DecodeError) Unwrap() error { return e.Err }

// recordError is a refused run record.
func recordError(e *canon.Error) *DecodeError {
	return &DecodeError{Type: fmt.Sprintf("%T", artifact.RunRecord{}), Err: e}
}

// RunRecordReader reads a stored run record (canonical JSON, untrusted) in
// two sweeps over its bytes, never building the whole record: the first
// reads the head and finds where each pass lies, the second (Stream) decodes
// the passes step by step for a visitor. It accepts exactly the records
// artifact.Decode accepts, with the same content: every value is parsed by
// canon.Decode and assigned by canon.Assign, and this reader only finds
// where values begin and end and checks what lies between them the way
// canon's decoder does.
type RunRecordReader struct {
	data []byte
	head RecordHead
	// fields is the record's own schema bookkeeping from the first sweep.
	fields *fieldSet
	passes []passSpan
}

// passSpan is where one pass lies; err is set when it is not an object.
type passSpan struct {
	start, end int
	err        *canon.Error
}

// Depths at which canon's decoder meets the record's values: the record
// object is 1, its runs array 2, a run 3, its results array 4.
const (
	depthRecord  = 1
	depthRuns    = 2
	depthRun     = 3
	depthResults = 4
)

var (
	recordFields = []string{"course_id", "course_object", "course_sha256", "events_object", "plan_object", "plan_sha256", "runs", "schema_version"}
	passFields   = []string{"halt_reason", "halt_step_index", "halted", "results"}
)

// OpenRunRecord reads the head of a stored run record. A record that the
// whole decode would refuse in its head (or anywhere, when the head is bad)
// is a *DecodeError; faults inside the passes are found by Stream.
func OpenRunRecord(data []byte) (*RunRecordReader, error) {
	r := &RunRecordReader{data: data}
	syntaxErr := r.sweepHead()
	if syntaxErr == nil && r.fields.err("$") == nil {
		r.head.Passes = len(r.passes)
		return r, nil
	}
	// The whole decode reports the first syntax fault in byte order, and a
	// schema fault only when there is none: read the passes too.
	return nil, r.finish(syntaxErr, nil)
}

// Head is the record without its passes.
func (r *RunRecordReader) Head() RecordHead { return r.head }

// Stream decodes the passes in order and gives each step to v. It returns
// v's error as it is, and a *DecodeError when the record is refused; v may
// have been given steps of a record that is then refused.
func (r *RunRecordReader) Stream(v PassVisitor) error {
	return r.finish(nil, v)
}

// Validate reads the passes for nothing but their faults.
func (r *RunRecordReader) Validate() error { return r.finish(nil, nil) }

// finish sweeps the passes and decides what the whole decode would report.
func (r *RunRecordReader) finish(syntaxErr *canon.Error, v PassVisitor) error {
	runsErr, err := r.sweepPasses(v)
	var ce *canon.Error
	switch {
	case err == nil:
	case !asCanon(err, &ce):
		return err // the visitor's
	case syntaxErr == nil || ce.Offset <= syntaxErr.Offset:
		syntaxErr = ce
	}
	if syntaxErr != nil {
		return recordError(syntaxErr)
	}
	r.fields.fail("runs", runsErr)
	if e := r.fields.err("$"); e != nil {
		return recordError(e)
	}
	return nil
}

func asCanon(err error, ce **canon.Error) bool {
	e, ok := err.(*canon.Error)
	*ce = e
	return ok
}

// sweepHead reads the record object, decoding every member but the passes,
// whose extent alone it finds. It returns the first syntax fault.
func (r *RunRecordReader) sweepHead() *canon.Error {
	r.fields = newFieldSet(recordFields)
	s := &scanner{data: r.data}
	s.space()
	if err := s.object(depthRecord, r.fields, "$", r.headMember); err != nil {
		return err
	}
	s.space()
	if s.pos != len(s.data) {
		return s.fail(canon.KindTrailingData, "data after the end of the document")
	}
	return nil
}

func (r *RunRecordReader) headMember(s *scanner, key string) *canon.Error {
	h := &r.head
	targets := map[string]*string{"course_id": &h.CourseID, "course_object": &h.CourseObject, "course_sha256": &h.CourseSHA256,
		"events_object": &h.EventsObject, "plan_object": &h.PlanObject, "plan_sha256": &h.PlanSHA256, "schema_version": &h.SchemaVersion}
	if dst, ok := targets[key]; ok {
		return s.decodeInto(depthRecord, dst, "$."+key, r.fields, key)
	}
	if s.peek() != '[' {
		return s.decodeInto(depthRecord, &[]artifact.RunOutput{}, "$.runs", r.fields, key)
	}
	return s.array(depthRuns, func(s *scanner, i int) *canon.Error {
		if s.peek() != '{' {
			start := s.pos
			g, err := s.decode(depthRuns)
			if err != nil {
				return err
			}
			e := assign(g, &artifact.RunOutput{}, "$.runs["+strconv.Itoa(i)+"]")
			r.passes = append(r.passes, passSpan{start: start, end: s.pos, err: e})
			return nil
		}
		start := s.pos
		end, err := s.valueEnd(depthRuns)
		if err != nil {
			return err
		}
		s.pos = end
		r.passes = append(r.passes, passSpan{start: start, end: end})
		return nil
	})
}

// sweepPasses decodes every pass found by sweepHead, in order. It returns
// the schema fault of the first pass that has one, and as error the first
// syntax fault or else v's first error. v is given nothing once a fault or
// an error of its own is met.
func (r *RunRecordReader) sweepPasses(v PassVisitor) (*canon.Error, error) {
	var (
		first  *canon.Error
		visErr error
	)
	for i, p := range r.passes {
		if p.err != nil {
			if first == nil {
				first = p.err
			}
			continue
		}
		if first != nil || visErr != nil {
			v = nil
		}
		e, err := r.sweepPass(i, p, v)
		var ce *canon.Error
		switch {
		case err == nil:
		case asCanon(err, &ce):
			return nil, err
		default:
			visErr = err
		}
		if first == nil {
			first = e
		}
	}
	if first != nil {
		return first, nil
	}
	return nil, visErr
}

// sweepPass decodes one pass object and returns its schema fault.
func (r *RunRecordReader) sweepPass(i int, p passSpan, v PassVisitor) (*canon.Error, error) {
	s := &scanner{data: r.data[:p.end], pos: p.start}
	path := "$.runs[" + strconv.Itoa(i) + "]"
	fs := newFieldSet(passFields)
	var (
		end    artifact.RunOutput
		visErr error
	)
	err := s.object(depthRun, fs, path, func(s *scanner, key string) *canon.Error {
		switch key {
		case "halt_reason":
			return s.decodeInto(depthRun, &end.HaltReason, path+"."+key, fs, key)
		case "halt_step_index":
			return s.decodeInto(depthRun, &end.HaltStepIndex, path+"."+key, fs, key)
		case "halted":
			return s.decodeInto(depthRun, &end.Halted, path+"."+key, fs, key)
		case "results":
			if s.peek() != '[' {
				return s.decodeInto(depthRun, &end.Results, path+"."+key, fs, key)
			}
		}
		planned, _ := v.(plannedVisitor)
		nesting := 0
		if planned != nil {
			nesting = planned.PayloadNesting()
		}
		return s.array(depthResults, func(s *scanner, j int) *canon.Error {
			if planned != nil && !fs.failed() && visErr == nil {
				typ, trace := planned.Expected(i, j)
				if res, ok := s.plannedResult(depthResults, planned.PlannedPayload(j), nesting, typ, trace); ok {
					visErr = planned.ResultAsPlanned(i, res)
					return nil
				}
			}
			g, err := s.decode(depthResults)
			if err != nil || fs.failed() || visErr != nil {
				return err
			}
			var res artifact.StepResult
			if e := assign(g, &res, path+".results["+strconv.Itoa(j)+"]"); e != nil {
				fs.fail(key, e)
				return nil
			}
			if v != nil {
				visErr = v.Result(i, res)
			}
			return nil
		})
	})
	if err != nil {
		return nil, err
	}
	e := fs.err(path)
	if visErr != nil && e == nil {
		return nil, visErr
	}
	if e == nil && v != nil {
		return nil, v.EndPass(i, end.Halted, end.HaltStepIndex, end.HaltReason)
	}
	return e, nil
}

// fieldSet is the schema bookkeeping of one object decoded into a struct:
// which keys came, the first fault of each field and the first unknown key,
// so that the fault reported is the one canon.Assign reports (a value that
// is not an object; else the fields in name order, missing or wrong; then
// unknown keys in the order they came).
type fieldSet struct {
	names   []string
	seen    map[string]bool
	errs    map[string]*canon.Error
	unknown *string // the first key that is no field
	typeErr *canon.Error
}

func newFieldSet(names []string) *fieldSet {
	return &fieldSet{names: names, seen: map[string]bool{}, errs: map[string]*canon.Error{}}
}

// fail records a fault of a field (the first one counts).
func (f *fieldSet) fail(key string, e *canon.Error) {
	if e != nil && f.errs[key] == nil {
		f.errs[key] = e
	}
}

func (f *fieldSet) failed() bool { return f.typeErr != nil || len(f.errs) > 0 }

// err is the fault canon.Assign reports for the object at path.
func (f *fieldSet) err(path string) *canon.Error {
	if f.typeErr != nil {
		return f.typeErr
	}
	for _, n := range f.names {
		if !f.seen[n] {
			return schemaErr(path, "missing field "+strconv.Quote(n))
		}
		if e := f.errs[n]; e != nil {
			return e
		}
	}
	if f.unknown != nil {
		return schemaErr(path, "unknown field "+strconv.Quote(*f.unknown))
	}
	return nil
}

func schemaErr(path, msg string) *canon.Error {
	return &canon.Error{Kind: canon.KindSchema, Offset: -1, Path: path, Msg: msg}
}

// assign is canon.Assign with the fault's path placed under path.
func assign(g, dst any, path string) *canon.Error {
	err := canon.Assign(g, dst)
	if err == nil {
		return nil
	}
	var ce *canon.Error
	if !asCanon(err, &ce) {
		return schemaErr(path, err.Error())
	}
	return &canon.Error{Kind: ce.Kind, Offset: ce.Offset, Path: path + strings.TrimPrefix(ce.Path, "$"), Msg: ce.Msg}
}

// scanner walks the record's structure as canon's decoder does, with its
// messages, and hands every value it decodes to canon.Decode.
type scanner struct {
	data []byte
	pos  int
}

func (s *scanner) fail(kind canon.Kind, msg string) *canon.Error {
	return &canon.Error{Kind: kind, Offset: s.pos, Msg: msg}
}

func (s *scanner) peek() byte {
	if s.pos < len(s.data) {
		return s.data[s.pos]
	}
	return 0
}

func (s *scanner) space() {
	for s.pos < len(s.data) {
		switch s.data[s.pos] {
		case ' ', '\t', '\n', '\r':
			s.pos++
		default:
			return
		}
	}
}

// object reads the object at s.pos, at nesting depth depth, into the struct
// whose fields fs tracks, calling member with the scanner at each value of a
// field (unknown keys' values are decoded and dropped). A value that is not
// an object is decoded and refused as canon.Assign refuses it.
func (s *scanner) object(depth int, fs *fieldSet, path string, member func(*scanner, string) *canon.Error) *canon.Error {
	if s.peek() != '{' {
		g, err := s.decode(depth - 1)
		if err != nil {
			return err
		}
		fs.typeErr = assign(g, &struct{}{}, path)
		return nil
	}
	if empty, err := s.enter(depth, '}'); empty || err != nil {
		return err
	}
	for {
		s.space()
		if s.peek() != '"' {
			return s.fail(canon.KindSyntax, "expected a string key")
		}
		keyPos := s.pos
		g, err := s.decode(depth)
		if err != nil {
			return err
		}
		key := g.(string)
		if fs.seen[key] {
			return &canon.Error{Kind: canon.KindDuplicateKey, Offset: keyPos, Msg: "duplicate key " + strconv.Quote(key)}
		}
		fs.seen[key] = true
		s.space()
		if s.peek() != ':' {
			return s.fail(canon.KindSyntax, "expected ':'")
		}
		s.pos++
		s.space()
		if slices.Contains(fs.names, key) {
			err = member(s, key)
		} else {
			if fs.unknown == nil {
				fs.unknown = &key
			}
			_, err = s.decode(depth)
		}
		if err != nil {
			return err
		}
		if end, err := s.separator('}', "object"); end || err != nil {
			return err
		}
	}
}

// array reads the array at s.pos (the caller has seen its '['), at nesting
// depth depth, calling elem with the scanner at each element.
func (s *scanner) array(depth int, elem func(*scanner, int) *canon.Error) *canon.Error {
	if empty, err := s.enter(depth, ']'); empty || err != nil {
		return err
	}
	for i := 0; ; i++ {
		s.space()
		if err := elem(s, i); err != nil {
			return err
		}
		if end, err := s.separator(']', "array"); end || err != nil {
			return err
		}
	}
}

// enter moves past the opening bracket of a container at nesting depth
// depth, refusing one nested too deep as canon does; empty is true when the
// container closes at once (close is its closing bracket).
func (s *scanner) enter(depth int, close byte) (empty bool, err *canon.Error) {
	if depth > canon.MaxDepth {
		return false, s.fail(canon.KindDepth, "nesting deeper than "+strconv.Itoa(canon.MaxDepth))
	}
	s.pos++
	s.space()
	if s.peek() == close {
		s.pos++
		return true, nil
	}
	return false, nil
}

// separator reads what follows a member or element of a container closed
// by close: a comma (end false), the closing bracket (end true), or
// anything else, refused with canon's words.
func (s *scanner) separator(close byte, container string) (end bool, err *canon.Error) {
	s.space()
	if s.pos >= len(s.data) {
		return false, s.fail(canon.KindSyntax, "unterminated "+container)
	}
	switch s.data[s.pos] {
	case ',':
		s.pos++
		return false, nil
	case close:
		s.pos++
		return true, nil
	}
	return false, s.fail(canon.KindSyntax, "expected ',' or '"+string(close)+"'")
}

// decodeInto decodes the value at s.pos and assigns it to dst, recording a
// schema fault against the field key of fs.
func (s *scanner) decodeInto(depth int, dst any, path string, fs *fieldSet, key string) *canon.Error {
	g, err := s.decode(depth)
	if err != nil {
		return err
	}
	fs.fail(key, assign(g, dst, path))
	return nil
}

// decode parses the value at s.pos, which sits inside a container at
// nesting depth depth, with canon.Decode, and moves past it.
func (s *scanner) decode(depth int) (any, *canon.Error) {
	start := s.pos
	end, err := s.valueEnd(depth)
	if err != nil {
		return nil, err
	}
	if end == start && end < len(s.data) {
		end++ // no value starts here: canon names the character
	}
	g, err := decodeAt(s.data, start, end)
	if err != nil && err.Kind == canon.KindTrailingData {
		// A scalar followed by bytes a scalar may hold ("1x", "truex"):
		// the value ends where canon says, and what follows is the
		// container's to refuse.
		end = err.Offset
		g, err = decodeAt(s.data, start, end)
	}
	if err != nil {
		return nil, err
	}
	s.pos = end
	return g, nil
}

// decodeAt is canon.Decode of data[start:end] with offsets into data.
func decodeAt(data []byte, start, end int) (any, *canon.Error) {
	g, err := canon.Decode(data[start:end])
	if err == nil {
		return g, nil
	}
	var ce *canon.Error
	if !asCanon(err, &ce) {
		return nil, &canon.Error{Kind: canon.KindSyntax, Offset: start, Msg: err.Error()}
	}
	if ce.Offset >= 0 {
		ce = &canon.Error{Kind: ce.Kind, Offset: ce.Offset + start, Path: ce.Path, Msg: ce.Msg}
	}
	return nil, ce
}

// valueEnd finds where the value at s.pos ends without validating it: a
// string at its closing quote, an object or array at its matching bracket
// (brackets inside strings do not count), anything else at the next byte
// that cannot continue a number or a literal. On a valid value that is
// exactly where canon's decoder ends it; on an invalid one canon.Decode of
// the span finds the fault where the whole decode would. Nesting deeper
// than canon.MaxDepth is refused where the whole decode refuses it.
func (s *scanner) valueEnd(depth int) (int, *canon.Error) {
	data, i := s.data, s.pos
	if i >= len(data) {
		return i, nil
	}
	switch data[i] {
	case '"':
		return stringEnd(data, i), nil
	case '{', '[':
	default:
		for i < len(data) && scalarByte(data[i]) {
			i++
		}
		return i, nil
	}
	d := depth
	for j := i; j < len(data); {
		switch data[j] {
		case '"':
			j = stringEnd(data, j)
			continue
		case '{', '[':
			d++
			if d > canon.MaxDepth {
				return 0, depthFault(data, i, j)
			}
		case '}', ']':
			d--
			if d == depth {
				return j + 1, nil
			}
		}
		j++
	}
	return len(data), nil
}

// depthFault is the fault of a value starting at i whose bracket at j nests
// too deep: canon's own fault if the bytes before it already have one, else
// the depth.
func depthFault(data []byte, i, j int) *canon.Error {
	if _, err := decodeAt(data, i, j+1); err != nil && err.Offset <= j {
		return err
	}
	return &canon.Error{Kind: canon.KindDepth, Offset: j, Msg: "nesting deeper than " + strconv.Itoa(canon.MaxDepth)}
}

// stringEnd is the index after the closing quote of the string at i, or
// len(data) when it is not closed. A quote closes the string unless an odd
// run of backslashes comes before it (each pair is an escaped backslash);
// finding quotes with bytes.IndexByte rather than byte by byte is most of
// the cost of finding where a run record's passes end.
func stringEnd(data []byte, i int) int {
	for j := i + 1; j < len(data); {
		k := bytes.IndexByte(data[j:], '"')
		if k < 0 {
			break
		}
		q := j + k
		slashes := 0
		for b := q - 1; b > i && data[b] == '\\'; b-- {
			slashes++
		}
		if slashes%2 == 0 {
			return q + 1
		}
		j = q + 1
	}
	return len(data)
}

// scalarByte reports whether b may continue a number or a literal.
func scalarByte(b byte) bool {
	switch {
	case b >= '0' && b <= '9', b >= 'a' && b <= 'z', b >= 'A' && b <= 'Z', b == '-', b == '+', b == '.':
		return true
	}
	return false
}

// plannedResult reads the result at s.pos when it is exactly the canonical
// form the run stage writes, {"accepted":…,"has_provenance":…,"payload":P,
// "step_type":"…","trace_hash":"…","versor_condition_repr":"…"}, with P
// byte for byte payload (the plan step's canonical bytes, nesting at most
// nesting deep) and every string printable ASCII without escapes, and moves
// past it. On anything else (payload nil included) it reads nothing and says
// so, and the caller decodes the result as canon does.
// What it accepts canon.Decode and canon.Assign accept too, to the same
// StepResult (the payload aside, which is payload's decoding): the keys are
// the struct's fields, once each, in order, with values of their types, and
// the nesting is checked as the whole decode checks it. It reads the bytes
// once: a value so matched ends at its closing brace, where valueEnd would
// find it, and nests depth+1+nesting deep at most. A step type or trace
// hash equal to typ or trace is that string, not a copy.
func (s *scanner) plannedResult(depth int, payload []byte, nesting int, typ, trace string) (artifact.StepResult, bool) {
	var res artifact.StepResult
	if len(payload) == 0 || s.peek() != '{' || depth+1+nesting > canon.MaxDepth {
		return res, false
	}
	r := resultReader{data: s.data, pos: s.pos}
	ok := r.lit(`{"accepted":`) && r.bool(&res.Accepted) &&
		r.lit(`,"has_provenance":`) && r.bool(&res.HasProvenance) &&
		r.lit(`,"payload":`) && r.bytes(payload) &&
		r.lit(`,"step_type":`) && r.str(&res.StepType, typ) &&
		r.lit(`,"trace_hash":`) && r.str(&res.TraceHash, trace) &&
		r.lit(`,"versor_condition_repr":`) && r.str(&res.VersorConditionRepr, "") &&
		r.lit(`}`)
	if !ok {
		return artifact.StepResult{}, false
	}
	s.pos = r.pos
	return res, true
}

// resultReader matches a result's canonical bytes piece by piece.
type resultReader struct {
	data []byte
	pos  int
}

func (r *resultReader) lit(want string) bool {
	if len(r.data)-r.pos < len(want) || string(r.data[r.pos:r.pos+len(want)]) != want {
		return false
	}
	r.pos += len(want)
	return true
}

func (r *resultReader) bytes(want []byte) bool {
	if !bytes.HasPrefix(r.data[r.pos:], want) {
		return false
	}
	r.pos += len(want)
	return true
}

func (r *resultReader) bool(dst *bool) bool {
	switch {
	case r.lit("true"):
		*dst = true
	case r.lit("false"):
		*dst = false
	default:
		return false
	}
	return true
}

// str reads a string of printable ASCII without escapes, which decodes to
// its own bytes: known when they are its bytes.
func (r *resultReader) str(dst *string, known string) bool {
	if r.pos >= len(r.data) || r.data[r.pos] != '"' {
		return false
	}
	for j := r.pos + 1; j < len(r.data); j++ {
		switch c := r.data[j]; {
		case c == '"':
			if b := r.data[r.pos+1 : j]; string(b) == known {
				*dst = known
			} else {
				*dst = string(b)
			}
			r.pos = j + 1
			return true
		case c < 0x20 || c > 0x7e || c == '\\':
			return false
		}
	}
	return false
}
