package export_test

import (
	"bytes"
	"fmt"
	"os"
	"reflect"
	"testing"

	"formation/export"
	"formation/export/tabletest"
	"formation/internal/exitcode"
)

func sample() export.Table {
	return export.Table{Kind: "triples", Columns: []export.Column{
		{Name: "name", Type: export.String}, {Name: "count", Type: export.Int64},
		{Name: "ok", Type: export.Bool}, {Name: "tags", Type: export.Strings},
	}, Rows: [][]any{
		{"refraction", int64(3), true, []string{"a", "b"}},
		{"λ \"quoted\"\n\ttab", int64(-1 << 62), false, []string{}},
		{"", int64(0), true, []string{"ünïcode", ""}},
	}}
}

// TestFormatsHoldTheSameRows: Parquet, Arrow and JSON lines of one table
// read back to the same rows, and writing again gives the same bytes.
func TestFormatsHoldTheSameRows(t *testing.T) {
	tbl := sample()
	cols := []string{"name", "count", "ok", "tags"}
	for _, f := range export.Formats() {
		dir := t.TempDir()
		path, err := export.Write(tbl, f, dir)
		if err != nil {
			t.Fatal(err)
		}
		got, err := tabletest.Read(path)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if got, err = got.Reorder(cols); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got.Rows, tbl.Rows) {
			t.Errorf("%s read back %#v\nwant %#v", f, got.Rows, tbl.Rows)
		}
		first, _ := os.ReadFile(path)
		if _, err := export.Write(tbl, f, dir); err != nil {
			t.Fatal(err)
		}
		again, _ := os.ReadFile(path)
		if !bytes.Equal(first, again) {
			t.Errorf("%s: two writes of the same rows differ", f)
		}
	}
}

func TestRefusals(t *testing.T) {
	if _, err := export.Write(sample(), "csv", t.TempDir()); exitcode.Of(err) != exitcode.Usage {
		t.Fatalf("unknown format: %v", err)
	}
	if _, ok := export.Columns("nothing"); ok {
		t.Fatal("an unknown kind has columns")
	}
	for _, k := range []string{"triples", "concepts", "audit", "events", "lanes"} {
		cols, ok := export.Columns(k)
		if !ok || len(cols) == 0 {
			t.Fatalf("kind %s has no columns", k)
		}
		for _, c := range cols {
			if c.Doc == "" {
				t.Errorf("%s.%s is undocumented", k, c.Name)
			}
		}
	}
}

// TestREADMEDocumentsColumns: the README's export tables list every column
// of every kind, with its type and meaning, as Columns does.
func TestREADMEDocumentsColumns(t *testing.T) {
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"triples", "concepts", "audit", "events", "lanes"} {
		cols, _ := export.Columns(k)
		at := bytes.Index(readme, []byte("`"+k+"`:\n\n| column | type | meaning |"))
		if at < 0 {
			t.Fatalf("README has no column table for %s", k)
		}
		table := readme[at:]
		if end := bytes.Index(table, []byte("\n\n`")); end > 0 {
			table = table[:end]
		}
		for _, c := range cols {
			row := fmt.Sprintf("| `%s` | `%s` | %s |", c.Name, c.Type, c.Doc)
			if !bytes.Contains(table, []byte(row)) {
				t.Errorf("README's %s table lacks %s", k, row)
			}
		}
		if n := bytes.Count(table, []byte("\n| `")); n != len(cols) {
			t.Errorf("README's %s table has %d rows, the export %d columns", k, n, len(cols))
		}
	}
}
