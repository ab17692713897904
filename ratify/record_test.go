package ratify

import (
	"bytes"
	"encoding/json"
	"math/rand"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"formation/artifact"
	"formation/canon"
	"formation/internal/testutil"
)

// collector rebuilds the passes a reader streams.
type collector struct {
	runs []artifact.RunOutput
}

func (c *collector) pass(i int) *artifact.RunOutput {
	for len(c.runs) <= i {
		c.runs = append(c.runs, artifact.RunOutput{Results: []artifact.StepResult{}})
	}
	return &c.runs[i]
}

func (c *collector) Result(pass int, res artifact.StepResult) error {
	p := c.pass(pass)
	p.Results = append(p.Results, res)
	return nil
}

func (c *collector) EndPass(pass int, halted bool, haltStepIndex int, haltReason string) error {
	p := c.pass(pass)
	p.Halted, p.HaltStepIndex, p.HaltReason = halted, haltStepIndex, haltReason
	return nil
}

// streamRecord reads a whole record through the streaming reader.
func streamRecord(data []byte) (artifact.RunRecord, error) {
	r, err := OpenRunRecord(data)
	if err != nil {
		return artifact.RunRecord{}, err
	}
	c := &collector{runs: []artifact.RunOutput{}}
	if err := r.Stream(c); err != nil {
		return artifact.RunRecord{}, err
	}
	h := r.Head()
	if len(c.runs) != h.Passes {
		return artifact.RunRecord{}, &DecodeError{Err: &canon.Error{Kind: "test", Offset: -1, Msg: "passes lost"}}
	}
	return artifact.RunRecord{CourseID: h.CourseID, CourseObject: h.CourseObject, CourseSHA256: h.CourseSHA256,
		PlanObject: h.PlanObject, PlanSHA256: h.PlanSHA256, Runs: c.runs, EventsObject: h.EventsObject,
		SchemaVersion: h.SchemaVersion}, nil
}

// agreeWithDecode fails t unless the streaming reader and the whole decode
// accept the same bytes, with the same content, or refuse them with the
// same error.
func agreeWithDecode(t testing.TB, data []byte) {
	t.Helper()
	want, wantErr := artifact.Decode[artifact.RunRecord](data)
	got, err := streamRecord(data)
	switch {
	case wantErr != nil && err == nil:
		t.Fatalf("reader accepts what the decode refuses (%v):\n%q", wantErr, data)
	case wantErr == nil && err != nil:
		t.Fatalf("reader refuses what the decode accepts: %v\n%q", err, data)
	case err != nil:
		var re *DecodeError
		if !errorsAs(err, &re) {
			t.Fatalf("reader error %T is not a *DecodeError: %v", err, err)
		}
		if err.Error() != wantErr.Error() {
			t.Fatalf("errors differ:\nreader %v\ndecode %v\n%q", err, wantErr, data)
		}
	case !reflect.DeepEqual(got, want):
		t.Fatalf("content differs:\nreader %+v\ndecode %+v", got, want)
	}
}

func errorsAs(err error, re **DecodeError) bool {
	e, ok := err.(*DecodeError)
	*re = e
	return ok
}

// sampleRecord is a canonical record of two passes, one of them halted.
func sampleRecord(t testing.TB) []byte {
	t.Helper()
	first := allGreen()
	second := allGreen()
	second.Results = second.Results[:2]
	second.Halted, second.HaltStepIndex, second.HaltReason = true, 2, "closure"
	second.Results[1].Payload = map[string]any{"nested": []any{map[string]any{"n": canon.Number("-12"), "s": "é\n\"\\"}, nil, true}}
	rec := artifact.RunRecord{CourseID: "x.v1", CourseObject: strings.Repeat("a", 64), CourseSHA256: strings.Repeat("b", 64),
		PlanObject: strings.Repeat("c", 64), PlanSHA256: strings.Repeat("d", 64), Runs: []artifact.RunOutput{first, second},
		EventsObject: strings.Repeat("e", 64), SchemaVersion: artifact.SchemaVersion}
	b, err := artifact.Encode(rec)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestRecordReaderReadsARecord(t *testing.T) {
	data := sampleRecord(t)
	got, err := streamRecord(data)
	if err != nil {
		t.Fatal(err)
	}
	back, err := artifact.Encode(got)
	if err != nil || !bytes.Equal(back, data) {
		t.Fatalf("round trip: %v\n%s\n%s", err, back, data)
	}
	agreeWithDecode(t, data)
}

// Every prefix and one-byte changes at every structural byte (and every
// fourth other byte) of a record: the reader refuses
// exactly what the whole decode refuses, with its error.
func TestRecordReaderAgreesOnMutations(t *testing.T) {
	data := sampleRecord(t)
	for i := 0; i <= len(data); i++ {
		agreeWithDecode(t, data[:i])
	}
	for i := range data {
		if i%4 != 0 && !bytes.ContainsRune([]byte("{}[],:\"\\"), rune(data[i])) {
			continue // inside a value: every fourth byte is enough
		}
		for _, c := range []byte("}],:\"\\1x\xff") {
			m := bytes.Clone(data)
			m[i] = c
			agreeWithDecode(t, m)
		}
		for _, c := range []byte("{[\" ") {
			agreeWithDecode(t, append(append(bytes.Clone(data[:i]), c), data[i:]...))
		}
	}
}

// Records that are valid JSON but not the record's shape, or not canonical
// in form (spacing, key order): the decode accepts the latter, and so must
// the reader.
func TestRecordReaderAgreesOnShapes(t *testing.T) {
	data := string(sampleRecord(t))
	cases := []string{
		data,
		" \n" + strings.ReplaceAll(strings.ReplaceAll(data, ",", " , "), ":", "\t:\r\n") + "\n",
		strings.Replace(data, `"course_id":"x.v1",`, "", 1) + "",
		strings.Replace(data, `{"course_id":"x.v1",`, `{"zz":1,"course_id":"x.v1",`, 1),
		strings.Replace(data, `{"course_id":"x.v1",`, `{"course_id":"x.v1","course_id":"x.v1",`, 1),
		strings.Replace(data, `"halted":false`, `"halted":false,"halted":false`, 1),
		strings.Replace(data, `"halted":false`, `"halted":0`, 1),
		strings.Replace(data, `"halted":true`, `"extra":[1,2],"halted":true`, 1),
		strings.Replace(data, `"halt_step_index":-1`, `"halt_step_index":99999999999999999999`, 1),
		strings.Replace(data, `"halt_step_index":-1`, `"halt_step_index":"x"`, 1),
		strings.Replace(data, `"runs":[`, `"runs":[7,`, 1),
		strings.Replace(data, `"runs":[`, `"runs":[{},`, 1),
		strings.Replace(data, `"runs":[`, `"runs":null,"x":[`, 1),
		strings.Replace(data, `"results":[`, `"results":[null,`, 1),
		strings.Replace(data, `"results":[`, `"results":{"a":[`, 1),
		strings.Replace(data, `"trace_hash":"t3"`, `"trace_hash":3`, 1),
		strings.Replace(data, `"trace_hash":"t3"`, `"trace_hash":3,"zz":1.5`, 1),
		strings.Replace(data, `"accepted":true`, `"accepted":1e5`, 1),
		strings.Replace(data, `"course_id":"x.v1"`, `"course_id":1`, 1) + " x",
		`{"schema_version":"1.0.0","runs":[],"plan_sha256":"p","plan_object":"o","events_object":"e","course_sha256":"s","course_object":"c","course_id":"i"}`,
		`{"runs":[{"results":[],"halted":false,"halt_step_index":0,"halt_reason":""}]}`,
		`[]`, `null`, `"x"`, ``, ` `, `{`, `{}`, `{"runs":[{"results":[{}]}]}`,
	}
	// Nesting around the depth limit inside a payload, and at the record's
	// own levels.
	for _, n := range []int{506, 507, 508, 509, 510} {
		deep := strings.Repeat("[", n) + strings.Repeat("]", n)
		cases = append(cases, strings.Replace(data, `"gates":[`, `"gates":[`+deep+`,`, 1))
		cases = append(cases, strings.Replace(data, `"gates":[`, `"gates":[`+strings.Repeat("[", n)+`1.5`, 1))
		cases = append(cases, strings.Replace(data, `"schema_version"`, `"z":`+deep+`,"schema_version"`, 1))
	}
	for i, c := range cases {
		if !strings.Contains(data, `"halted":false`) {
			t.Fatal("fixture changed")
		}
		t.Run(string(rune('a'+i%26)), func(t *testing.T) { agreeWithDecode(t, []byte(c)) })
	}
}

// Every input of the canonical JSON conformance vectors, as a record and as
// a step's payload.
func TestRecordReaderAgreesOnCanonVectors(t *testing.T) {
	root, err := testutil.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(filepath.Join(root, "testdata", "conformance", "vectors", "canonical_json.json"))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Cases []struct {
			Input string `json:"input_json"`
		} `json:"cases"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	data := string(sampleRecord(t))
	for _, c := range doc.Cases {
		agreeWithDecode(t, []byte(c.Input))
		agreeWithDecode(t, []byte(strings.Replace(data, `{"canonical_term":"wisdom"}`, c.Input, 1)))
		agreeWithDecode(t, []byte(strings.Replace(data, `{"canonical_term":"wisdom"}`, `{"v":`+c.Input+`}`, 1)))
	}
	if len(doc.Cases) < 10 {
		t.Fatalf("only %d vectors", len(doc.Cases))
	}
}

// FuzzRunRecordReader: the streaming reader never panics and agrees with the
// whole decode on every input (accept or refuse, content, error).
func FuzzRunRecordReader(f *testing.F) {
	f.Add(sampleRecord(f))
	f.Fuzz(func(t *testing.T, data []byte) {
		agreeWithDecode(t, data)
	})
}

// What the planned-result shortcut accepts with a canonical payload (the
// plan's), canon decodes and assigns to the same StepResult, whose payload
// encodes to the payload it was given;
// and it leaves the scanner where the whole value ends.
func FuzzPlannedResult(f *testing.F) {
	payload := `{"head":"light","relation":"is","tail":"radiation"}`
	f.Add([]byte(`{"accepted":true,"has_provenance":false,"payload":`+payload+`,"step_type":"walk_step","trace_hash":"ab12","versor_condition_repr":"1.000e-16"}`), []byte(payload), 0)
	f.Add([]byte(`{"accepted":false,"has_provenance":true,"payload":{},"step_type":"","trace_hash":"","versor_condition_repr":""},`), []byte(`{}`), 60)
	f.Add([]byte(`{"accepted":true,"has_provenance":true,"payload":{"a":[[[[1]]]]},"step_type":"x\"","trace_hash":"","versor_condition_repr":""}`), []byte(`{"a":[[[[1]]]]}`), 62)
	f.Fuzz(func(t *testing.T, data, payload []byte, depth int) {
		depth = depthResults + depth%canon.MaxDepth
		if depth < depthResults {
			depth = depthResults
		}
		if g, err := canon.Decode(payload); err != nil {
			return // the plan's payloads are canonical JSON
		} else if enc, err := canon.Marshal(g); err != nil || !bytes.Equal(enc, payload) {
			return
		}
		s := &scanner{data: data}
		res, ok := s.plannedResult(depth, payload, canonicalNesting(payload), "walk_step", "ab12")
		if !ok {
			if s.pos != 0 {
				t.Fatalf("refused, but moved to %d", s.pos)
			}
			return
		}
		end := s.pos
		g, err := decodeAt(data, 0, end)
		if err != nil {
			t.Fatalf("accepted %q, which canon refuses: %v", data[:end], err)
		}
		var want artifact.StepResult
		if err := assign(g, &want, "$"); err != nil {
			t.Fatalf("accepted %q, which does not assign: %v", data[:end], err)
		}
		enc, merr := canon.Marshal(want.Payload)
		if merr != nil || !bytes.Equal(enc, payload) {
			t.Fatalf("payload %q re-encodes to %q (%v)", payload, enc, merr)
		}
		want.Payload = nil
		if !reflect.DeepEqual(res, want) {
			t.Fatalf("shortcut %+v, decode %+v", res, want)
		}
		// The whole decode counts nesting from the results array.
		whole := &scanner{data: data}
		if _, verr := whole.valueEnd(depth); verr != nil {
			t.Fatalf("accepted a value nested past the limit: %v", verr)
		}
	})
}

// stringEnd finds quotes a run at a time; it must end a string where reading
// it byte by byte, an escape skipping the byte after it, does.
func TestStringEndAgreesWithByteLoop(t *testing.T) {
	byteLoop := func(data []byte, i int) int {
		for j := i + 1; j < len(data); j++ {
			switch data[j] {
			case '"':
				return j + 1
			case '\\':
				j++
			}
		}
		return len(data)
	}
	rng := rand.New(rand.NewSource(7))
	for n := 0; n < 200000; n++ {
		b := make([]byte, 1+rng.Intn(24))
		for k := range b {
			b[k] = `"\\a`[rng.Intn(4)]
		}
		b[0] = '"'
		if got, want := stringEnd(b, 0), byteLoop(b, 0); got != want {
			t.Fatalf("%q: %d, byte by byte %d", b, got, want)
		}
	}
}

// The planned-result shortcut reads a result once, without finding its end
// first; it must still step aside for a payload that nests the result past
// the limit, and take one that nests it to the limit.
func TestPlannedResultAtTheDepthLimit(t *testing.T) {
	for _, n := range []int{canon.MaxDepth - depthResults - 2, canon.MaxDepth - depthResults - 1, canon.MaxDepth - depthResults} {
		payload := []byte(`{"a":` + strings.Repeat("[", n-1) + strings.Repeat("]", n-1) + `}`)
		if canonicalNesting(payload) != n {
			t.Fatalf("nesting %d, built %d", canonicalNesting(payload), n)
		}
		data := []byte(`{"accepted":true,"has_provenance":true,"payload":` + string(payload) + `,"step_type":"walk_step","trace_hash":"t","versor_condition_repr":"0"}`)
		s := &scanner{data: data}
		_, ok := s.plannedResult(depthResults, payload, n, "", "")
		_, err := (&scanner{data: data}).valueEnd(depthResults)
		if ok != (err == nil) || ok != (depthResults+1+n <= canon.MaxDepth) {
			t.Fatalf("payload nesting %d: shortcut %v, valueEnd %v", n, ok, err)
		}
		if ok && s.pos != len(data) {
			t.Fatalf("ended at %d of %d", s.pos, len(data))
		}
	}
}
