// Package tabletest reads exported files back into rows, for tests: Arrow
// IPC files and Parquet through arrow-go's readers, JSON lines through
// encoding/json, each value as a string, an int64, a bool or a []string,
// so that the three formats of one export compare equal.
package tabletest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

// Rows are a file's column names and rows.
type Rows struct {
	Columns []string
	Rows    [][]any
}

// Read reads an exported file by its extension.
func Read(path string) (Rows, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return Rows{}, err
	}
	switch {
	case strings.HasSuffix(path, ".arrow"):
		return readArrow(raw)
	case strings.HasSuffix(path, ".parquet"):
		return readParquet(raw)
	case strings.HasSuffix(path, ".jsonl"):
		return readJSONL(raw)
	}
	return Rows{}, fmt.Errorf("tabletest: %s: unknown extension", path)
}

func readArrow(raw []byte) (Rows, error) {
	r, err := ipc.NewFileReader(bytes.NewReader(raw), ipc.WithAllocator(memory.NewGoAllocator()))
	if err != nil {
		return Rows{}, err
	}
	defer r.Close()
	out := Rows{Columns: names(r.Schema())}
	for i := range r.NumRecords() {
		rec, err := r.RecordBatch(i)
		if err != nil {
			return Rows{}, err
		}
		out.Rows = append(out.Rows, rowsOf(rec)...)
	}
	return out, nil
}

func readParquet(raw []byte) (Rows, error) {
	pf, err := file.NewParquetReader(bytes.NewReader(raw))
	if err != nil {
		return Rows{}, err
	}
	defer pf.Close()
	fr, err := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{}, memory.NewGoAllocator())
	if err != nil {
		return Rows{}, err
	}
	tbl, err := fr.ReadTable(context.Background())
	if err != nil {
		return Rows{}, err
	}
	defer tbl.Release()
	out := Rows{Columns: names(tbl.Schema())}
	tr := array.NewTableReader(tbl, 1<<20)
	defer tr.Release()
	for tr.Next() {
		out.Rows = append(out.Rows, rowsOf(tr.RecordBatch())...)
	}
	return out, tr.Err()
}

func names(s *arrow.Schema) []string {
	out := make([]string, s.NumFields())
	for i, f := range s.Fields() {
		out[i] = f.Name
	}
	return out
}

func rowsOf(rec arrow.RecordBatch) [][]any {
	rows := make([][]any, rec.NumRows())
	for r := range rows {
		rows[r] = make([]any, rec.NumCols())
		for c := range rec.NumCols() {
			rows[r][c] = value(rec.Column(int(c)), r)
		}
	}
	return rows
}

func value(col arrow.Array, i int) any {
	switch a := col.(type) {
	case *array.String:
		return a.Value(i)
	case *array.Int64:
		return a.Value(i)
	case *array.Boolean:
		return a.Value(i)
	case *array.List:
		start, end := a.ValueOffsets(i)
		vals := a.ListValues().(*array.String)
		out := []string{}
		for j := start; j < end; j++ {
			out = append(out, vals.Value(int(j)))
		}
		return out
	}
	return fmt.Sprintf("unsupported %s", col.DataType())
}

// readJSONL reads objects with the columns of the first line; numbers
// become int64, arrays []string.
func readJSONL(raw []byte) (Rows, error) {
	var out Rows
	sc := bufio.NewScanner(bytes.NewReader(raw))
	sc.Buffer(make([]byte, 1<<20), 1<<26)
	for sc.Scan() {
		dec := json.NewDecoder(bytes.NewReader(sc.Bytes()))
		dec.UseNumber()
		var obj map[string]any
		if err := dec.Decode(&obj); err != nil {
			return Rows{}, err
		}
		if out.Columns == nil {
			for k := range obj {
				out.Columns = append(out.Columns, k)
			}
		}
		row := make([]any, 0, len(obj))
		for _, k := range out.Columns {
			v, err := jsonValue(obj[k])
			if err != nil {
				return Rows{}, fmt.Errorf("column %s: %w", k, err)
			}
			row = append(row, v)
		}
		out.Rows = append(out.Rows, row)
	}
	return out, sc.Err()
}

func jsonValue(v any) (any, error) {
	switch v := v.(type) {
	case json.Number:
		return v.Int64()
	case []any:
		out := []string{}
		for _, s := range v {
			out = append(out, fmt.Sprint(s))
		}
		return out, nil
	}
	return v, nil
}

// Reorder returns rows with their columns in the order of columns (JSON
// lines carry no column order).
func (r Rows) Reorder(columns []string) (Rows, error) {
	idx := map[string]int{}
	for i, c := range r.Columns {
		idx[c] = i
	}
	out := Rows{Columns: columns}
	for _, row := range r.Rows {
		nr := make([]any, len(columns))
		for i, c := range columns {
			j, ok := idx[c]
			if !ok {
				return Rows{}, fmt.Errorf("tabletest: no column %s", c)
			}
			nr[i] = row[j]
		}
		out.Rows = append(out.Rows, nr)
	}
	return out, nil
}
