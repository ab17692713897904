package cli_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"formation/artifact"
	"formation/audit"
	"formation/reach"
	"formation/reviewed"
)

// TestShowEveryArtifactKind: after an optics autorun, a promotion and an
// eval lane, show prints every kind of artifact exactly as stored (--raw:
// the bytes; --json: the canonical document and a newline; plain: the same
// document indented), names its kind on stderr, and resolves every kind of
// identifier the other verbs print.
func TestShowEveryArtifactKind(t *testing.T) {
	w := newStoreWorld(t, "file")
	key := filepath.Join(t.TempDir(), "curator.key")
	w.mustRun(t, "keygen", "--out", key)
	trusted := []string{"--trusted-keys", key + ".pub"}
	explain := w.mustRun(t, "--json", "autorun", "optics")
	var status struct {
		Report string `json:"report"`
	}
	must(t, json.Unmarshal([]byte(w.mustRun(t, "--json", "status", "optics")), &status))
	w.mustRun(t, append(trusted, "-q", "promote", "--key", key, status.Report)...)
	w.mustRun(t, append(trusted, "-q", "eval", "--domain", "optics", "--split", "public", "cognition")...)

	m, ctx := w.open(t), context.Background()
	get := func(d string) []byte {
		b, err := m.Get(ctx, d)
		must(t, err)
		return b
	}
	ref := func(name string) string {
		v, _, err := m.GetRef(ctx, name)
		must(t, err)
		return strings.TrimSpace(string(v))
	}
	run := artifact.Decode[artifact.RunRecord]
	rec, err := run(get(ref("subjects/optics/run")))
	must(t, err)
	report, err := artifact.Decode[artifact.MasteryReport](get(ref("subjects/optics/ratify")))
	must(t, err)
	ore, err := artifact.Decode[artifact.OreBundle](get(ref("subjects/optics/mine")))
	must(t, err)
	_, state, err := reach.Of(reach.State, get(ref(reviewed.StateRef)))
	must(t, err)
	byKind := map[reach.Kind]string{}
	for _, e := range state.Objects {
		byKind[e.Kind] = e.Digest
	}
	lanes, err := m.ListRefs(ctx, "lanes/")
	must(t, err)
	if len(lanes) == 0 {
		t.Fatal("eval stored no lane result")
	}

	for _, c := range []struct {
		id, kind string
		object   string // the object shown; "" when the id is a ref holding JSON
	}{
		{"subjects/optics/mine", "ore_bundle", ref("subjects/optics/mine")},
		{"subjects/optics/smelt", "smelted_bundle", ref("subjects/optics/smelt")},
		{"subjects/optics/forge", "validated_triple_set", ref("subjects/optics/forge")},
		{"subjects/optics/compose", "course", ref("subjects/optics/compose")},
		{rec.CourseSHA256, "bytes", rec.CourseSHA256}, // the course YAML
		{rec.PlanObject, "formation_plan", rec.PlanObject},
		{"subjects/optics/run", "run_record", ref("subjects/optics/run")},
		{rec.EventsObject, "turn_events", rec.EventsObject},
		{"subjects/optics/ratify", "mastery_report", ref("subjects/optics/ratify")},
		{reviewed.StateRef, "reviewed_state", ref(reviewed.StateRef)},
		{byKind[reach.Knowledge], "reviewed_knowledge", byKind[reach.Knowledge]},
		{byKind[reach.Index], "mastered_courses_index", byKind[reach.Index]},
		{byKind[reach.Envelope], "promotion_envelope", byKind[reach.Envelope]},
		{lanes[0], "lane_result", ref(lanes[0])},
		{ore.Entries[0].SourceSHA, "bytes", ore.Entries[0].SourceSHA}, // a mined source
		{"cache/last/optics/forge", "cache_record", ""},
		{"cache/runs/optics/forge", "last_run_note", ""},
		// Identifiers other verbs print.
		{status.Report, "mastery_report", status.Report},                               // status --json
		{status.Report[:12], "mastery_report", status.Report},                          // status, human
		{report.ReportSHA256, "mastery_report", status.Report},                         // the seal
		{report.ValidatedSetSHA, "validated_triple_set", ref("subjects/optics/forge")}, // compose projection
		{explainKey(t, explain), "cache_record", ""},                                   // autorun --explain
	} {
		stored := []byte(nil)
		if c.object != "" {
			stored = get(c.object)
		} else {
			name := c.id
			if !strings.Contains(name, "/") {
				name = "cache/mine/" + c.id
			}
			v, _, err := m.GetRef(ctx, name)
			must(t, err)
			stored = v
		}
		code, out, errs := w.run(t, "show", "--raw", c.id)
		if code != 0 || out != string(stored) {
			t.Fatalf("show --raw %s: exit %d, %d bytes, want the %d stored bytes; %s", c.id, code, len(out), len(stored), errs)
		}
		if got := strings.Fields(errs); len(got) == 0 || got[0] != c.kind {
			t.Errorf("show %s: stderr %q, want the kind %s first", c.id, errs, c.kind)
		}
		if c.kind == "bytes" {
			if code, _, _ := w.run(t, "--json", "show", c.id); code != 65 {
				t.Errorf("show --json of a non-JSON object %s: exit %d, want 65", c.id, code)
			}
			continue
		}
		code, out, _ = w.run(t, "--json", "-q", "show", c.id)
		if code != 0 || out != string(stored)+"\n" {
			t.Fatalf("show --json %s: exit %d, not the stored document", c.id, code)
		}
		code, out, _ = w.run(t, "show", c.id)
		var a, b any
		if code != 0 || json.Unmarshal([]byte(out), &a) != nil || json.Unmarshal(stored, &b) != nil || !sameJSON(a, b) {
			t.Fatalf("show %s: exit %d, not the stored document indented:\n%.300s", c.id, code, out)
		}
	}
	for id, want := range map[string]int{"nosuch/x": 2, "subjects/optics/nothing": 66, strings.Repeat("0", 64): 66, "abc": 2, "zzzzzzzz": 2} {
		if code, _, _ := w.run(t, "show", id); code != want {
			t.Errorf("show %s: exit %d, want %d", id, code, want)
		}
	}
}

func sameJSON(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}

// explainKey is the mine stage's cache key in autorun --json.
func explainKey(t *testing.T, out string) string {
	t.Helper()
	m := regexp.MustCompile(`"explain":\{[^}]*?"key":"([0-9a-f]{64})"`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no cache key in autorun --json: %.400s", out)
	}
	return m[1]
}

// A large audit batch, stored compressed, shows as its records (--raw: the
// canonical batch, as an object shows its canonical bytes), and audit list
// reads it; a damaged one is refused with exit 65 by both.
func TestShowCompressedAuditBatch(t *testing.T) {
	w := newStoreWorld(t, "file")
	m, ctx := w.open(t), context.Background()
	recs := make([]audit.Record, 3000)
	for i := range recs {
		recs[i] = audit.Record{Stage: "forge", Subject: "optics", Kind: audit.KindNote, ReasonCode: "span_not_byte_checked",
			Key: fmt.Sprintf("relation lens%d refracts light", i), Detail: "accepted; span not byte-checked"}
	}
	aw := &audit.Writer{Store: m, Now: func() time.Time { return time.Date(2026, 12, 2, 0, 0, 0, 0, time.UTC) }, CodeVersion: "test"}
	must(t, aw.Append(ctx, recs...))
	names, err := m.ListRefs(ctx, "audit/optics/forge/")
	must(t, err)
	if len(names) != 1 {
		t.Fatalf("%d batches", len(names))
	}
	stored, _, err := m.GetRef(ctx, names[0])
	must(t, err)
	body, err := audit.Unpack(stored)
	must(t, err)
	if bytes.Equal(body, stored) {
		t.Fatalf("a batch of %d bytes was stored uncompressed", len(body))
	}
	code, out, errs := w.run(t, "show", "--raw", names[0])
	if code != 0 || out != string(body) || !strings.HasPrefix(errs, "audit_batch") {
		t.Fatalf("show --raw: exit %d, %d bytes (want %d); %s", code, len(out), len(body), errs)
	}
	code, out, _ = w.run(t, "--json", "audit", "list", "--subject", "optics")
	if code != 0 || strings.Count(out, "lens") != len(recs) {
		t.Fatalf("audit list: exit %d, %d records", code, strings.Count(out, "lens"))
	}

	damaged := bytes.Clone(stored)
	damaged[len(damaged)/2] ^= 0x10
	name := strings.Replace(names[0], "-000000000-", "-000000001-", 1)
	if _, err := m.SetRef(ctx, name, "", damaged); err != nil {
		t.Fatal(err)
	}
	if code, _, errs := w.run(t, "show", name); code != 65 {
		t.Fatalf("show of a damaged batch: exit %d; %s", code, errs)
	}
	if code, _, errs := w.run(t, "audit", "list", "--subject", "optics"); code != 65 {
		t.Fatalf("audit list over a damaged batch: exit %d; %s", code, errs)
	}
}
