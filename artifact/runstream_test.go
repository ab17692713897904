package artifact

import (
	"bytes"
	"math/rand/v2"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"formation/canon"
)

// randomPlanAndRecord builds a plan with varied payloads and a two-pass
// record over it; some results carry a copy of their step's payload (not the
// same map), and one pass may halt part-way.
func randomPlanAndRecord(r *rand.Rand) (FormationPlan, RunRecord) {
	strs := []string{"", "plain", "quote\"d", "back\\slash", "new\nline", "tab\t", "ctl\x01", "é ü ß", "日本", "\u2028", "<>&"}
	pick := func() string { return strs[r.IntN(len(strs))] + strconv.Itoa(r.IntN(100)) }
	n := r.IntN(40)
	plan := FormationPlan{CourseID: pick(), CourseSHA256: pick(), PlanSHA256: pick(), SchemaVersion: pick()}
	for i := 0; i < n; i++ {
		var payload map[string]any
		if r.IntN(8) > 0 {
			payload = map[string]any{"utterance": pick(), "n": r.IntN(1000) - 500, "flag": r.IntN(2) == 0,
				"list": []any{pick(), int64(r.IntN(9)), nil}, "nested": map[string]any{pick(): pick()}}
		}
		plan.Steps = append(plan.Steps, PlanStep{StepType: pick(), Payload: payload})
	}
	rec := RunRecord{CourseID: pick(), CourseObject: pick(), CourseSHA256: pick(), PlanObject: pick(),
		PlanSHA256: pick(), EventsObject: pick(), SchemaVersion: pick()}
	for pass := 0; pass < 2; pass++ {
		out := RunOutput{HaltStepIndex: -1}
		upto := n
		if r.IntN(3) == 0 && n > 0 {
			upto = r.IntN(n)
			out.Halted, out.HaltStepIndex, out.HaltReason = true, upto, pick()
		}
		for j := 0; j < upto; j++ {
			p := plan.Steps[j].Payload
			if r.IntN(5) == 0 && p != nil {
				cp := map[string]any{}
				for k, v := range p {
					cp[k] = v
				}
				p = cp
			}
			out.Results = append(out.Results, StepResult{StepType: plan.Steps[j].StepType, Payload: p,
				TraceHash: pick(), VersorConditionRepr: pick(), Accepted: r.IntN(2) == 0, HasProvenance: r.IntN(2) == 0})
		}
		rec.Runs = append(rec.Runs, out)
	}
	return plan, rec
}

// TestStreamedWritersAreEncode: the plan and run-record writers produce
// exactly the bytes of Encode, payloads shared or not.
func TestStreamedWritersAreEncode(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for trial := 0; trial < 300; trial++ {
		plan, rec := randomPlanAndRecord(r)
		payloads, err := EncodePayloads(plan.Steps)
		if err != nil {
			t.Fatal(err)
		}
		var got bytes.Buffer
		if err := WritePlan(&got, plan, payloads); err != nil {
			t.Fatal(err)
		}
		want, err := Encode(plan)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got.Bytes(), want) {
			t.Fatalf("trial %d: plan\n got %s\nwant %s", trial, got.Bytes(), want)
		}
		got.Reset()
		if err := WriteRunRecord(&got, rec, payloads); err != nil {
			t.Fatal(err)
		}
		if want, err = Encode(rec); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got.Bytes(), want) {
			t.Fatalf("trial %d: run record\n got %s\nwant %s", trial, got.Bytes(), want)
		}
	}
}

// TestStreamedWriterRefusesWhatEncodeRefuses: invalid UTF-8 is an error,
// never written through.
func TestStreamedWriterRefusesWhatEncodeRefuses(t *testing.T) {
	rec := RunRecord{CourseID: "bad\xff", Runs: []RunOutput{{}}}
	if _, err := Encode(rec); err == nil {
		t.Fatal("Encode accepted invalid UTF-8")
	}
	if err := WriteRunRecord(&bytes.Buffer{}, rec, PlanPayloads{}); err == nil {
		t.Fatal("WriteRunRecord accepted invalid UTF-8")
	}
	plan := FormationPlan{Steps: []PlanStep{{StepType: "x", Payload: map[string]any{"k": 1.5}}}}
	if _, err := EncodePayloads(plan.Steps); err == nil {
		t.Fatal("EncodePayloads accepted a float")
	}
}

// TestPayloadReadsAsUnmarshal holds Payload's reading of a step's bytes to
// Unmarshal's, for payloads of strings only (the fast reading) and of
// anything else (handed to Unmarshal), and for bytes that are not an object
// of strings at all: duplicate keys, escapes, nesting, trailing bytes.
func TestPayloadReadsAsUnmarshal(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	strs := []string{"", "plain", "quote\"d", "back\\slash", "new\nline", "ctl\x01", "é ü ß", "日本", "\u2028", "<>&"}
	var steps []PlanStep
	for range 500 {
		payload := map[string]any{}
		for k := range r.IntN(6) {
			key := []string{"utterance", "head", "relation", "tail"}[r.IntN(4)] + strconv.Itoa(k)
			if r.IntN(16) == 0 {
				key = strs[r.IntN(len(strs))] // a key Payload's fast reading declines
			}
			payload[key] = strs[r.IntN(len(strs))]
		}
		if r.IntN(4) == 0 {
			payload["n"] = r.IntN(100)
		}
		steps = append(steps, PlanStep{StepType: "x", Payload: payload})
	}
	payloads, err := EncodePayloads(steps)
	if err != nil {
		t.Fatal(err)
	}
	fast := 0
	for i := range steps {
		if _, ok := stringsObject(payloads.bytes(i)); ok {
			fast++
		}
		got, err := payloads.Payload(i)
		if err != nil {
			t.Fatal(err)
		}
		var want map[string]any
		if err := canon.Unmarshal(payloads.bytes(i), &want); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("step %d: Payload %#v, Unmarshal %#v", i, got, want)
		}
	}
	if fast < 300 || fast == len(steps) {
		t.Fatalf("%d of %d payloads took the fast reading", fast, len(steps))
	}
	for _, doc := range []string{`{"a":"x","a":"y"}`, `{"a":"x"} `, `{"a":"x"}x`, `{"a":{"b":"c"}}`, `{"a":null}`,
		`{"\u0061":"x"}`, `{"a":"\u00e9"}`, `{}`, `{"a":"x",}`, `[]`, ``} {
		got, ok := stringsObject([]byte(doc))
		var want map[string]any
		werr := canon.Unmarshal([]byte(doc), &want)
		if ok && (werr != nil || !reflect.DeepEqual(got, want)) {
			t.Fatalf("%s: read as %#v; Unmarshal gives %#v, %v", doc, got, want, werr)
		}
	}
}

// FuzzStringsObject holds Payload's fast reading of a payload to
// Unmarshal's: whatever it accepts, Unmarshal reads the same.
func FuzzStringsObject(f *testing.F) {
	f.Add([]byte(`{"canonical_term":"lens","utterance":"What is a lens?"}`))
	f.Add([]byte(`{"a":"x","a":"y"}`))
	f.Add([]byte(`{"a":"\u00e9\n"}`))
	f.Add([]byte(`{"a":{"b":"c"}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		got, ok := stringsObject(data)
		if !ok {
			return
		}
		var want map[string]any
		if err := canon.Unmarshal(data, &want); err != nil {
			t.Fatalf("%q: read as %#v, Unmarshal refuses it: %v", data, got, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%q: read as %#v, Unmarshal gives %#v", data, got, want)
		}
	})
}

// TestPayloadsSpanChunks holds each payload's bytes to its encoding for a
// plan whose payloads fill several chunks, with one payload larger than a
// chunk and nil payloads among them, whether encoded at once or step by
// step in parts then joined; and the digest over the bytes to PlanDigest.
func TestPayloadsSpanChunks(t *testing.T) {
	var steps []PlanStep
	for i := range 9000 {
		payload := map[string]any{"utterance": strings.Repeat("word ", i%97), "head": strconv.Itoa(i)}
		switch {
		case i == 4500:
			payload["tail"] = strings.Repeat("λ", payloadChunk) // past a chunk on its own
		case i%1000 == 7:
			payload = nil
		}
		steps = append(steps, PlanStep{StepType: StepWalk, Payload: payload})
	}
	payloads, err := EncodePayloads(steps)
	if err != nil {
		t.Fatal(err)
	}
	if len(payloads.chunks) < 4 {
		t.Fatalf("the payloads took %d chunks; the test needs several", len(payloads.chunks))
	}
	for i, s := range steps {
		want, err := canon.Marshal(nilMapAsEmpty(s.Payload))
		if err != nil {
			t.Fatal(err)
		}
		if got := payloads.bytes(i); !bytes.Equal(got, want) {
			t.Fatalf("step %d: bytes %.80q, want %.80q", i, got, want)
		}
	}

	// The same steps added one by one in three parts, then joined.
	var parts [3]PlanPayloads
	for i, s := range steps {
		part := min(i/3000, 2)
		if err := parts[part].AppendStep(s.StepType, s.Payload); err != nil {
			t.Fatal(err)
		}
	}
	joined := JoinPayloads(parts[:]...)
	if len(joined.Steps()) != len(steps) {
		t.Fatalf("joined %d steps of %d", len(joined.Steps()), len(steps))
	}
	for i, s := range joined.Steps() {
		if s.Payload != nil || s.StepType != steps[i].StepType || !bytes.Equal(joined.bytes(i), payloads.bytes(i)) {
			t.Fatalf("joined step %d: %v, bytes %.80q, want %.80q", i, s, joined.bytes(i), payloads.bytes(i))
		}
	}
	want, err := PlanDigest("course.x", strings.Repeat("c", 64), steps)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := joined.PlanDigest("course.x", strings.Repeat("c", 64)); err != nil || got != want {
		t.Fatalf("PlanPayloads.PlanDigest = %s, %v; PlanDigest gives %s", got, err, want)
	}
	if err := joined.AppendStep("x", map[string]any{"f": 1.5}); err == nil || len(joined.Steps()) != len(steps) {
		t.Fatalf("AppendStep took a float (%v) or kept a step", err)
	}
}

// TestAppendStringStepIsAppendStep holds a payload written from key, value
// pairs to the same payload encoded from its map, for values that need
// escapes, and refuses keys out of order, repeated or not plain, an odd
// list and invalid UTF-8, adding nothing then.
func TestAppendStringStepIsAppendStep(t *testing.T) {
	values := []string{"", "plain", "quote\"d", "back\\slash", "new\nline", "ctl\x01", "é ü ß", "日本", "\u2028", "<>&"}
	var byPairs, byMap PlanPayloads
	for i, v := range values {
		w := values[(i+3)%len(values)]
		if err := byPairs.AppendStringStep(StepWalk, "head", v, "relation", "is_a", "tail", w, "utterance", v+w); err != nil {
			t.Fatal(err)
		}
		if err := byMap.AppendStep(StepWalk, map[string]any{"utterance": v + w, "tail": w, "head": v, "relation": "is_a"}); err != nil {
			t.Fatal(err)
		}
	}
	if err := byPairs.AppendStringStep(StepReplayAssertion); err != nil {
		t.Fatal(err)
	}
	if err := byMap.AppendStep(StepReplayAssertion, nil); err != nil {
		t.Fatal(err)
	}
	for i := range byMap.Steps() {
		if !bytes.Equal(byPairs.bytes(i), byMap.bytes(i)) || byPairs.Steps()[i].StepType != byMap.Steps()[i].StepType {
			t.Fatalf("step %d: %q, from the map %q", i, byPairs.bytes(i), byMap.bytes(i))
		}
	}
	for _, bad := range [][]string{{"tail", "x", "head", "y"}, {"head", "x", "head", "y"}, {"Head", "x"}, {"", "x"}, {"head"}, {"head", "\xff"}} {
		if err := byPairs.AppendStringStep(StepWalk, bad...); err == nil {
			t.Errorf("AppendStringStep took %q", bad)
		}
	}
	if len(byPairs.Steps()) != len(byMap.Steps()) {
		t.Fatalf("a refused payload added a step: %d steps, want %d", len(byPairs.Steps()), len(byMap.Steps()))
	}
}
