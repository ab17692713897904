package mining

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"sync"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"formation/courses"
)

// tableRow is one row of a table source: its id (as text) and its text.
type tableRow struct {
	id   string
	text string
}

// tableSpec names the columns to read and bounds the rows.
type tableSpec struct {
	format     string
	textColumn string
	idColumn   string
	maxRows    int64
}

// readTable returns the rows of an Arrow IPC (file or stream) or Parquet
// table held in raw. The Arrow readers trust lengths written in the file, so
// memory is drawn from a budgeted allocator and any panic inside them is
// turned into a table_corrupt refusal: a hostile table must fail the source,
// not the process.
func readTable(ctx context.Context, raw []byte, spec tableSpec) (rows []tableRow, err error) {
	mem := newBudgetAllocator(tableBudget(len(raw)))
	defer func() {
		if r := recover(); r != nil {
			rows, err = nil, refuse(CodeTableCorrupt, "the %s reader failed: %v", spec.format, r)
		}
	}()
	acc := rowCollector{spec: spec, ids: map[string]bool{}}
	switch spec.format {
	case courses.FormatArrow:
		err = readArrow(raw, mem, &acc)
	case courses.FormatParquet:
		err = readParquet(ctx, raw, mem, &acc)
	default:
		err = refuse(CodeUnsupported, "format %q is not a table format", spec.format)
	}
	if err != nil {
		var r *refusal
		if !errors.As(err, &r) {
			err = refuse(CodeTableCorrupt, "%v", err)
		}
		return nil, err
	}
	return acc.rows, nil
}

// tableBudget allows the decoded table a generous multiple of its encoded
// size (Parquet compresses), with a floor for small files and a ceiling.
func tableBudget(n int) int64 {
	return min(64<<20+32*int64(n), 2<<30)
}

func readArrow(raw []byte, mem memory.Allocator, acc *rowCollector) error {
	// No message of a file held in memory can be longer than the file: the
	// limits stop the reader from allocating what a forged length claims.
	if err := checkArrowIPC(raw); err != nil {
		return err
	}
	limit := max(int64(len(raw)), 8)
	opts := []ipc.Option{ipc.WithAllocator(mem), ipc.WithMetadataSizeLimit(limit), ipc.WithBodySizeLimit(limit)}
	if bytes.HasPrefix(raw, []byte("ARROW1")) {
		fr, err := ipc.NewFileReader(bytes.NewReader(raw), opts...)
		if err != nil {
			return err
		}
		defer fr.Close()
		for i := 0; i < fr.NumRecords(); i++ {
			rec, err := fr.RecordBatch(i)
			if err != nil {
				return err
			}
			if err := acc.add(rec); err != nil {
				return err
			}
		}
		return nil
	}
	// ipc.NewReader drops the size limits (arrow-go v18.8.0); a message
	// reader built with them keeps them.
	rr, err := ipc.NewReaderFromMessageReader(ipc.NewMessageReader(bytes.NewReader(raw), opts...), opts...)
	if err != nil {
		return err
	}
	defer rr.Release()
	for rr.Next() {
		if err := acc.add(rr.RecordBatch()); err != nil {
			return err
		}
	}
	return rr.Err()
}

func readParquet(ctx context.Context, raw []byte, mem memory.Allocator, acc *rowCollector) error {
	if err := checkParquet(raw); err != nil {
		return err
	}
	pf, err := file.NewParquetReader(bytes.NewReader(raw), file.WithReadProps(parquet.NewReaderProperties(mem)))
	if err != nil {
		return err
	}
	defer pf.Close()
	fr, err := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{BatchSize: 4096}, mem)
	if err != nil {
		return err
	}
	var cols []int
	for _, name := range []string{acc.spec.textColumn, acc.spec.idColumn} {
		idx, err := parquetLeaf(fr.Manifest, name)
		if err != nil {
			return err
		}
		cols = append(cols, idx)
	}
	rr, err := fr.GetRecordReader(ctx, cols, nil)
	if err != nil {
		return err
	}
	defer rr.Release()
	for rr.Next() {
		if err := acc.add(rr.RecordBatch()); err != nil {
			return err
		}
	}
	if err := rr.Err(); err != nil && !errors.Is(err, io.EOF) {
		return err
	}
	return nil
}

// parquetLeaf finds the top-level, non-nested column called name.
func parquetLeaf(m *pqarrow.SchemaManifest, name string) (int, error) {
	found := -1
	for i := range m.Fields {
		f := &m.Fields[i]
		if f.Field == nil || f.Field.Name != name {
			continue
		}
		if found >= 0 {
			return 0, refuse(CodeTableSchema, "column %q appears more than once", name)
		}
		if !f.IsLeaf() {
			return 0, refuse(CodeTableSchema, "column %q is nested, want a plain column", name)
		}
		found = f.ColIndex
	}
	if found < 0 {
		return 0, refuse(CodeTableSchema, "no column %q", name)
	}
	return found, nil
}

// rowCollector turns record batches into rows, enforcing the schema, the
// row limit, non-null values, UTF-8 text and unique ids.
type rowCollector struct {
	spec tableSpec
	rows []tableRow
	ids  map[string]bool
}

func (c *rowCollector) add(rec arrow.RecordBatch) error {
	textCol, err := column(rec, c.spec.textColumn)
	if err != nil {
		return err
	}
	idCol, err := column(rec, c.spec.idColumn)
	if err != nil {
		return err
	}
	n := int(rec.NumRows())
	for i := 0; i < n; i++ {
		if int64(len(c.rows)) >= c.spec.maxRows {
			return refuse(CodeTooManyRows, "more than %d rows", c.spec.maxRows)
		}
		row := len(c.rows)
		id, err := idAt(idCol, i)
		if err != nil {
			return inRow(err, fmt.Sprintf("row %d, column %q", row, c.spec.idColumn))
		}
		text, err := textAt(textCol, i)
		if err != nil {
			return inRow(err, fmt.Sprintf("row %d (id %q), column %q", row, id, c.spec.textColumn))
		}
		if c.ids[id] {
			return refuse(CodeDuplicateRowID, "row %d repeats id %q", row, id)
		}
		c.ids[id] = true
		c.rows = append(c.rows, tableRow{id: id, text: text})
	}
	return nil
}

// inRow prefixes a refusal's detail with where in the table it happened.
func inRow(err error, where string) error {
	var r *refusal
	if errors.As(err, &r) {
		return refuse(r.code, "%s: %s", where, r.detail)
	}
	return fmt.Errorf("%s: %w", where, err)
}

func column(rec arrow.RecordBatch, name string) (arrow.Array, error) {
	idx := rec.Schema().FieldIndices(name)
	switch len(idx) {
	case 0:
		return nil, refuse(CodeTableSchema, "no column %q", name)
	case 1:
		return rec.Column(idx[0]), nil
	}
	return nil, refuse(CodeTableSchema, "column %q appears %d times", name, len(idx))
}

// textAt reads a string value (string, large string, string view, or a
// dictionary of strings).
func textAt(col arrow.Array, i int) (string, error) {
	if col.IsNull(i) {
		return "", refuse(CodeTableNull, "null value")
	}
	var s string
	switch a := col.(type) {
	case *array.String:
		s = a.Value(i)
	case *array.LargeString:
		s = a.Value(i)
	case *array.StringView:
		s = a.Value(i)
	case *array.Dictionary:
		return textAt(a.Dictionary(), a.GetValueIndex(i))
	default:
		return "", refuse(CodeTableSchema, "type %s is not a string type", col.DataType())
	}
	if !utf8.ValidString(s) {
		return "", refuse(CodeInvalidUTF8, "not valid UTF-8")
	}
	return s, nil
}

// idAt reads an id: any string type, or an integer written in decimal.
func idAt(col arrow.Array, i int) (string, error) {
	if col.IsNull(i) {
		return "", refuse(CodeTableNull, "null value")
	}
	switch a := col.(type) {
	case *array.Int8:
		return strconv.FormatInt(int64(a.Value(i)), 10), nil
	case *array.Int16:
		return strconv.FormatInt(int64(a.Value(i)), 10), nil
	case *array.Int32:
		return strconv.FormatInt(int64(a.Value(i)), 10), nil
	case *array.Int64:
		return strconv.FormatInt(a.Value(i), 10), nil
	case *array.Uint8:
		return strconv.FormatUint(uint64(a.Value(i)), 10), nil
	case *array.Uint16:
		return strconv.FormatUint(uint64(a.Value(i)), 10), nil
	case *array.Uint32:
		return strconv.FormatUint(uint64(a.Value(i)), 10), nil
	case *array.Uint64:
		return strconv.FormatUint(a.Value(i), 10), nil
	}
	s, err := textAt(col, i)
	if err != nil {
		return "", err
	}
	if s == "" {
		return "", refuse(CodeTableNull, "empty id")
	}
	return s, nil
}

// budgetAllocator is a Go allocator that refuses (by panicking, which
// readTable recovers) to hold more than budget bytes at once.
type budgetAllocator struct {
	mu     sync.Mutex
	inner  memory.Allocator
	used   int64
	budget int64
}

func newBudgetAllocator(budget int64) *budgetAllocator {
	return &budgetAllocator{inner: memory.NewGoAllocator(), budget: budget}
}

func (a *budgetAllocator) reserve(delta int64) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.used+delta > a.budget {
		panic(fmt.Sprintf("table needs more than %d bytes of memory", a.budget))
	}
	a.used += delta
}

func (a *budgetAllocator) Allocate(size int) []byte {
	a.reserve(int64(size))
	return a.inner.Allocate(size)
}

func (a *budgetAllocator) Reallocate(size int, b []byte) []byte {
	a.reserve(int64(size) - int64(len(b)))
	return a.inner.Reallocate(size, b)
}

func (a *budgetAllocator) Free(b []byte) {
	a.mu.Lock()
	a.used -= int64(len(b))
	a.mu.Unlock()
	a.inner.Free(b)
}
