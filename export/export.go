// Package export writes what the store knows as tables for the tools
// analysts use: Parquet, Arrow IPC files and JSON lines, one file
// <kind>.<ext> per call, with the same rows and columns in every format.
//
// The kinds: triples and concepts (a subject's validated set, the forge's
// latest output), audit (a subject's audit records), events (the TurnEvents
// of a subject's latest run) and lanes (every case of a domain's latest lane
// results). Columns hold strings, 64-bit integers, booleans or lists of
// strings; Columns documents each. Rows keep the stored order, so the same
// store exports the same bytes.
package export

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"formation/canon"
	"formation/internal/exitcode"
	"formation/store"
)

// Formats and their file extensions.
const (
	Parquet = "parquet"
	Arrow   = "arrow"
	JSONL   = "jsonl"
)

// Formats lists the formats.
func Formats() []string { return []string{Parquet, Arrow, JSONL} }

// Column types.
const (
	String  = "string"
	Int64   = "int64"
	Bool    = "bool"
	Strings = "list<string>"
)

// Column is one column of a kind's table.
type Column struct {
	Name string
	Type string
	Doc  string
}

// Table is the rows of one kind; each row holds one value per column:
// string, int64, bool or []string.
type Table struct {
	Kind    string
	Columns []Column
	Rows    [][]any
}

// Error is a refusal of an export: a usage error or a missing input.
type Error struct {
	Code int
	Msg  string
}

func (e *Error) Error() string { return "export: " + e.Msg }

// ExitCode is the refusal's exit code.
func (e *Error) ExitCode() int { return e.Code }

func refuse(code int, format string, args ...any) error {
	return &Error{Code: code, Msg: fmt.Sprintf(format, args...)}
}

// Read builds the table of kind for a subject (or, for lanes, a domain).
func Read(ctx context.Context, s store.Store, kind, name string) (Table, error) {
	cols, ok := Columns(kind)
	if !ok {
		return Table{}, refuse(exitcode.Usage, "unknown kind %q (want triples, concepts, audit, events or lanes)", kind)
	}
	rows, err := readRows(ctx, s, kind, name)
	if err != nil {
		return Table{}, err
	}
	return Table{Kind: kind, Columns: cols, Rows: rows}, nil
}

// Write writes the table in format to dir/<kind>.<ext> and returns the path.
// The file appears whole or not at all.
func Write(t Table, format, dir string) (string, error) {
	var enc func(io.Writer, Table) error
	switch format {
	case Parquet:
		enc = writeParquet
	case Arrow:
		enc = writeArrow
	case JSONL:
		enc = writeJSONL
	default:
		return "", refuse(exitcode.Usage, "unknown format %q (want parquet, arrow or jsonl)", format)
	}
	var buf bytes.Buffer
	if err := enc(&buf, t); err != nil {
		return "", fmt.Errorf("export: %s %s: %w", t.Kind, format, err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("export: %w", err)
	}
	path := filepath.Join(dir, t.Kind+"."+format)
	tmp, err := os.CreateTemp(dir, "."+t.Kind+"-*")
	if err != nil {
		return "", fmt.Errorf("export: %w", err)
	}
	_, err = tmp.Write(buf.Bytes())
	if err == nil {
		err = tmp.Chmod(0o644)
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		_ = os.Remove(tmp.Name())
		return "", fmt.Errorf("export: %w", err)
	}
	return path, nil
}

// Schema is the Arrow schema of a table.
func (t Table) Schema() *arrow.Schema {
	fields := make([]arrow.Field, len(t.Columns))
	for i, c := range t.Columns {
		fields[i] = arrow.Field{Name: c.Name, Type: arrowType(c.Type)}
	}
	return arrow.NewSchema(fields, nil)
}

func arrowType(typ string) arrow.DataType {
	switch typ {
	case Int64:
		return arrow.PrimitiveTypes.Int64
	case Bool:
		return arrow.FixedWidthTypes.Boolean
	case Strings:
		return arrow.ListOf(arrow.BinaryTypes.String)
	}
	return arrow.BinaryTypes.String
}

// record builds one Arrow record batch holding every row.
func (t Table) record() arrow.RecordBatch {
	b := array.NewRecordBuilder(memory.NewGoAllocator(), t.Schema())
	defer b.Release()
	for _, row := range t.Rows {
		for i, v := range row {
			appendValue(b.Field(i), v)
		}
	}
	return b.NewRecordBatch()
}

func appendValue(b array.Builder, v any) {
	switch b := b.(type) {
	case *array.StringBuilder:
		b.Append(v.(string))
	case *array.Int64Builder:
		b.Append(v.(int64))
	case *array.BooleanBuilder:
		b.Append(v.(bool))
	case *array.ListBuilder:
		b.Append(true)
		vb := b.ValueBuilder().(*array.StringBuilder)
		for _, s := range v.([]string) {
			vb.Append(s)
		}
	}
}

func writeArrow(w io.Writer, t Table) error {
	rec := t.record()
	defer rec.Release()
	fw, err := ipc.NewFileWriter(w, ipc.WithSchema(rec.Schema()))
	if err != nil {
		return err
	}
	if err := fw.Write(rec); err != nil {
		return err
	}
	return fw.Close()
}

func writeParquet(w io.Writer, t Table) error {
	rec := t.record()
	defer rec.Release()
	props := parquet.NewWriterProperties(parquet.WithCompression(compress.Codecs.Snappy),
		parquet.WithCreatedBy("formation export"))
	fw, err := pqarrow.NewFileWriter(rec.Schema(), w, props, pqarrow.DefaultWriterProps())
	if err != nil {
		return err
	}
	if err := fw.Write(rec); err != nil {
		return err
	}
	return fw.Close()
}

// writeJSONL writes one canonical JSON object per row, keys the columns.
func writeJSONL(w io.Writer, t Table) error {
	bw := bufio.NewWriter(w)
	for _, row := range t.Rows {
		obj := make(map[string]any, len(row))
		for i, v := range row {
			obj[t.Columns[i].Name] = v
		}
		b, err := canon.Marshal(obj)
		if err != nil {
			return err
		}
		bw.Write(b)
		bw.WriteByte('\n')
	}
	return bw.Flush()
}
