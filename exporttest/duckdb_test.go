package exporttest

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	_ "github.com/duckdb/duckdb-go/v2"

	"formation/export/tabletest"
	"formation/internal/cli"
)

// world runs formation in process against a fresh store, on the module's
// own optics subject.
type world struct {
	store, courses, packs string
}

func (w world) run(t *testing.T, args ...string) string {
	t.Helper()
	var out, errb bytes.Buffer
	io := cli.IO{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb, Now: time.Now}
	full := append([]string{"formation", "--store", w.store, "--courses-dir", w.courses, "--packs-dir", w.packs}, args...)
	if code := cli.Main(cli.NewApp(io), full); code != 0 {
		t.Fatalf("formation %v: exit %d\n%s%s", args, code, out.String(), errb.String())
	}
	return out.String()
}

// TestParquetReadByDuckDB: every kind exported as Parquet from an optics run
// with a promotion and an eval lane is read by DuckDB with the row count of
// its JSON-lines export, and a query over it agrees with the same query
// computed from the JSON lines.
func TestParquetReadByDuckDB(t *testing.T) {
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	w := world{store: "file://" + filepath.Join(dir, "store"), courses: filepath.Join(root, "courses"), packs: filepath.Join(root, "packs")}
	key := filepath.Join(dir, "curator.key")
	w.run(t, "keygen", "--out", key)
	w.run(t, "-q", "autorun", "optics")
	var status struct {
		Report string `json:"report"`
	}
	if err := json.Unmarshal([]byte(w.run(t, "--json", "status", "optics")), &status); err != nil {
		t.Fatal(err)
	}
	w.run(t, "--trusted-keys", key+".pub", "-q", "promote", "--key", key, status.Report)
	w.run(t, "--trusted-keys", key+".pub", "-q", "eval", "--domain", "optics", "--split", "public", "cognition")

	db, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	out := filepath.Join(dir, "export")
	for _, c := range []struct {
		kind  string
		query string                     // over the Parquet file, as t
		want  func(tabletest.Rows) int64 // the same over the JSON lines
	}{
		{"triples", "select count(*) from t where section = 'relations' and len(source_shas) > 0",
			countWhere(func(r row) bool { return r.s("section") == "relations" && len(r.l("source_shas")) > 0 })},
		{"concepts", "select count(distinct term) from t",
			distinct("term")},
		{"audit", "select count(*) from t where kind = 'promotion'",
			countWhere(func(r row) bool { return r.s("kind") == "promotion" })},
		{"events", "select count(*) from t where pass = 1 and refusal_emitted",
			countWhere(func(r row) bool { return r.i("pass") == 1 && r.b("refusal_emitted") })},
		{"lanes", "select sum(terms_captured) from t where passed",
			sumWhere("terms_captured", func(r row) bool { return r.b("passed") })},
	} {
		w.run(t, "-q", "export", "--format", "parquet", "--out", out, c.kind, "optics")
		w.run(t, "-q", "export", "--format", "jsonl", "--out", out, c.kind, "optics")
		lines, err := tabletest.Read(filepath.Join(out, c.kind+".jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		parquet := filepath.Join(out, c.kind+".parquet")
		view := "create or replace view t as select * from read_parquet('" + parquet + "')"
		if _, err := db.ExecContext(context.Background(), view); err != nil {
			t.Fatalf("%s: %v", c.kind, err)
		}
		var n, got int64
		if err := db.QueryRow("select count(*) from t").Scan(&n); err != nil {
			t.Fatalf("%s: %v", c.kind, err)
		}
		if n != int64(len(lines.Rows)) || n == 0 {
			t.Fatalf("%s: DuckDB reads %d rows, the JSON lines hold %d", c.kind, n, len(lines.Rows))
		}
		if err := db.QueryRow(c.query).Scan(&got); err != nil {
			t.Fatalf("%s: %s: %v", c.kind, c.query, err)
		}
		if want := c.want(lines); got != want {
			t.Fatalf("%s: %s = %d in DuckDB, %d over the JSON lines", c.kind, c.query, got, want)
		}
		t.Logf("%s: %d rows; %s = %d", c.kind, n, c.query, got)
	}
	if _, err := os.Stat(filepath.Join(out, "lanes.parquet")); err != nil {
		t.Fatal(err)
	}
}

// row is one JSON-lines row by column name.
type row map[string]any

func (r row) s(k string) string   { v, _ := r[k].(string); return v }
func (r row) i(k string) int64    { v, _ := r[k].(int64); return v }
func (r row) b(k string) bool     { v, _ := r[k].(bool); return v }
func (r row) l(k string) []string { v, _ := r[k].([]string); return v }

func rowsOf(t tabletest.Rows) []row {
	out := make([]row, len(t.Rows))
	for i, vals := range t.Rows {
		out[i] = row{}
		for j, c := range t.Columns {
			out[i][c] = vals[j]
		}
	}
	return out
}

func countWhere(f func(row) bool) func(tabletest.Rows) int64 {
	return func(t tabletest.Rows) (n int64) {
		for _, r := range rowsOf(t) {
			if f(r) {
				n++
			}
		}
		return n
	}
}

func sumWhere(col string, f func(row) bool) func(tabletest.Rows) int64 {
	return func(t tabletest.Rows) (n int64) {
		for _, r := range rowsOf(t) {
			if f(r) {
				n += r.i(col)
			}
		}
		return n
	}
}

func distinct(col string) func(tabletest.Rows) int64 {
	return func(t tabletest.Rows) int64 {
		seen := map[string]bool{}
		for _, r := range rowsOf(t) {
			seen[r.s(col)] = true
		}
		return int64(len(seen))
	}
}
