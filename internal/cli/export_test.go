package cli_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"reflect"
	"testing"

	"formation/artifact"
	"formation/audit"
	"formation/export/tabletest"
)

// TestExportEveryKind: every kind exported in every format from an optics
// run with a promotion and an eval lane; the three formats read back to
// the same rows, as many as the store holds.
func TestExportEveryKind(t *testing.T) {
	w := newStoreWorld(t, "file")
	key := filepath.Join(t.TempDir(), "curator.key")
	w.mustRun(t, "keygen", "--out", key)
	trusted := []string{"--trusted-keys", key + ".pub"}
	w.mustRun(t, "-q", "autorun", "optics")
	var status struct {
		Report string `json:"report"`
	}
	must(t, json.Unmarshal([]byte(w.mustRun(t, "--json", "status", "optics")), &status))
	w.mustRun(t, append(trusted, "-q", "promote", "--key", key, status.Report)...)
	w.mustRun(t, append(trusted, "-q", "eval", "--domain", "optics", "--split", "public", "cognition")...)

	want := expectedRows(t, w)
	out := t.TempDir()
	for kind, n := range want {
		var first tabletest.Rows
		for i, format := range []string{"parquet", "arrow", "jsonl"} {
			var res struct {
				Path    string   `json:"path"`
				Rows    int      `json:"rows"`
				Columns []string `json:"columns"`
			}
			must(t, json.Unmarshal([]byte(w.mustRun(t, "--json", "export", "--format", format, "--out", out, kind, "optics")), &res))
			if res.Path != filepath.Join(out, kind+"."+format) || res.Rows != n {
				t.Fatalf("export %s %s: %d rows at %s, want %d", kind, format, res.Rows, res.Path, n)
			}
			rows, err := tabletest.Read(res.Path)
			must(t, err)
			if rows, err = rows.Reorder(res.Columns); err != nil {
				t.Fatal(err)
			}
			if len(rows.Rows) != n {
				t.Fatalf("%s read back %d rows, want %d", res.Path, len(rows.Rows), n)
			}
			if i == 0 {
				first = rows
			} else if !reflect.DeepEqual(rows.Rows, first.Rows) {
				t.Fatalf("%s %s holds other rows than its Parquet export", kind, format)
			}
		}
		t.Logf("%s: %d rows, equal in parquet, arrow and jsonl", kind, n)
	}
	if code, _, _ := w.run(t, "export", "--out", out, "events", "nosuch"); code != 66 {
		t.Errorf("export of a subject never run: exit %d, want 66", code)
	}
	if code, _, _ := w.run(t, "export", "--out", out, "--format", "csv", "triples", "optics"); code != 2 {
		t.Errorf("export --format csv: exit %d, want 2", code)
	}
}

// expectedRows counts, from the store itself, the rows each kind must have.
func expectedRows(t *testing.T, w *storeWorld) map[string]int {
	m, ctx := w.open(t), context.Background()
	obj := func(ref string) []byte {
		v, _, err := m.GetRef(ctx, ref)
		must(t, err)
		raw, err := m.Get(ctx, string(v))
		must(t, err)
		return raw
	}
	vts, err := artifact.Decode[artifact.ValidatedTripleSet](obj("subjects/optics/forge"))
	must(t, err)
	rec, err := artifact.Decode[artifact.RunRecord](obj("subjects/optics/run"))
	must(t, err)
	raw, err := m.Get(ctx, rec.EventsObject)
	must(t, err)
	var passes [][]map[string]any
	must(t, json.Unmarshal(raw, &passes))
	events := 0
	for _, p := range passes {
		for _, e := range p {
			if _, ok := e["turn"]; ok {
				events++
			}
		}
	}
	recs, err := audit.List(ctx, m, audit.Filter{Subject: "optics"})
	must(t, err)
	lane, err := m.ListRefs(ctx, "lanes/optics/")
	must(t, err)
	if len(lane) != 1 {
		t.Fatalf("lane refs %v", lane)
	}
	var result struct {
		Cases []any `json:"cases"`
	}
	must(t, json.Unmarshal(obj(lane[0]), &result))
	want := map[string]int{
		"triples":  len(vts.Relations) + len(vts.Counters) + len(vts.Quarantined),
		"concepts": len(vts.Concepts),
		"audit":    len(recs),
		"events":   events,
		"lanes":    len(result.Cases),
	}
	for k, n := range want {
		if n == 0 {
			t.Fatalf("optics has no %s rows: the export test would prove nothing", k)
		}
	}
	return want
}
