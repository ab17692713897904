package mining

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

// testTable builds a record with an int64 "id" and a string "text"
// column; a nil text is a null.
func testTable(t testing.TB, ids []int64, texts []*string) arrow.RecordBatch {
	t.Helper()
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64},
		{Name: "text", Type: arrow.BinaryTypes.String, Nullable: true},
	}, nil)
	b := array.NewRecordBuilder(memory.NewGoAllocator(), schema)
	defer b.Release()
	for i, id := range ids {
		b.Field(0).(*array.Int64Builder).Append(id)
		if texts[i] == nil {
			b.Field(1).(*array.StringBuilder).AppendNull()
		} else {
			b.Field(1).(*array.StringBuilder).Append(*texts[i])
		}
	}
	return b.NewRecordBatch()
}

func strs(vals ...string) []*string {
	out := make([]*string, len(vals))
	for i := range vals {
		out[i] = &vals[i]
	}
	return out
}

func arrowFile(t testing.TB, rec arrow.RecordBatch) []byte {
	t.Helper()
	var buf bytes.Buffer
	w, err := ipc.NewFileWriter(&buf, ipc.WithSchema(rec.Schema()))
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(rec); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func arrowStream(t testing.TB, rec arrow.RecordBatch) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := ipc.NewWriter(&buf, ipc.WithSchema(rec.Schema()))
	if err := w.Write(rec); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func parquetFile(t testing.TB, rec arrow.RecordBatch) []byte {
	t.Helper()
	var buf bytes.Buffer
	w, err := pqarrow.NewFileWriter(rec.Schema(), &buf, nil, pqarrow.DefaultWriterProps())
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(rec); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestReadTableFormats(t *testing.T) {
	rec := testTable(t, []int64{7, 3}, strs("Light is a wave.", "A prism produces a spectrum."))
	defer rec.Release()
	for name, raw := range map[string][]byte{"arrow file": arrowFile(t, rec), "arrow stream": arrowStream(t, rec), "parquet": parquetFile(t, rec)} {
		format := "arrow"
		if name == "parquet" {
			format = "parquet"
		}
		rows, err := readTable(context.Background(), raw, tableSpec{format: format, textColumn: "text", idColumn: "id", maxRows: 10})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if len(rows) != 2 || rows[0] != (tableRow{"7", "Light is a wave."}) || rows[1] != (tableRow{"3", "A prism produces a spectrum."}) {
			t.Errorf("%s: rows %+v", name, rows)
		}
	}
}

func TestReadTableRefusals(t *testing.T) {
	good := testTable(t, []int64{1, 2}, strs("a", "b"))
	defer good.Release()
	nulls := testTable(t, []int64{1, 2}, []*string{strs("a")[0], nil})
	defer nulls.Release()
	dups := testTable(t, []int64{1, 1}, strs("a", "b"))
	defer dups.Release()
	cases := []struct {
		name string
		raw  []byte
		spec tableSpec
		code string
	}{
		{"missing column", arrowFile(t, good), tableSpec{format: "arrow", textColumn: "body", idColumn: "id", maxRows: 10}, CodeTableSchema},
		{"id is text, text is int", arrowFile(t, good), tableSpec{format: "arrow", textColumn: "id", idColumn: "text", maxRows: 10}, CodeTableSchema},
		{"null text", arrowFile(t, nulls), tableSpec{format: "arrow", textColumn: "text", idColumn: "id", maxRows: 10}, CodeTableNull},
		{"null text parquet", parquetFile(t, nulls), tableSpec{format: "parquet", textColumn: "text", idColumn: "id", maxRows: 10}, CodeTableNull},
		{"duplicate id", arrowFile(t, dups), tableSpec{format: "arrow", textColumn: "text", idColumn: "id", maxRows: 10}, CodeDuplicateRowID},
		{"too many rows", parquetFile(t, good), tableSpec{format: "parquet", textColumn: "text", idColumn: "id", maxRows: 1}, CodeTooManyRows},
		{"missing parquet column", parquetFile(t, good), tableSpec{format: "parquet", textColumn: "body", idColumn: "id", maxRows: 10}, CodeTableSchema},
		{"garbage", []byte("ARROW1 but not really"), tableSpec{format: "arrow", textColumn: "text", idColumn: "id", maxRows: 10}, CodeTableCorrupt},
		{"truncated parquet", parquetFile(t, good)[:40], tableSpec{format: "parquet", textColumn: "text", idColumn: "id", maxRows: 10}, CodeTableCorrupt},
		{"empty", nil, tableSpec{format: "parquet", textColumn: "text", idColumn: "id", maxRows: 10}, CodeTableCorrupt},
	}
	for _, c := range cases {
		_, err := readTable(context.Background(), c.raw, c.spec)
		var r *refusal
		if !errors.As(err, &r) || r.code != c.code {
			t.Errorf("%s: got %v, want %s", c.name, err, c.code)
		}
	}
}

func TestBudgetAllocatorRefusesOverspend(t *testing.T) {
	a := newBudgetAllocator(100)
	b := a.Allocate(60)
	a.Free(b)
	b = a.Allocate(90)
	defer func() {
		if recover() == nil {
			t.Error("allocating past the budget must panic (readTable turns it into a refusal)")
		}
	}()
	a.Reallocate(200, b)
}

// TestForgedLengthsDoNotAllocate pins the fix for a fuzz finding: a stream
// whose first word reads as a 1.3 GB metadata length made the Arrow reader
// allocate it before noticing the input was 8 bytes long.
func TestForgedLengthsDoNotAllocate(t *testing.T) {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := readTable(context.Background(), []byte("ARRO\x00\x00\x00\x00"), tableSpec{format: "arrow", textColumn: "text", idColumn: "id", maxRows: 10})
	runtime.ReadMemStats(&after)
	var r *refusal
	if !errors.As(err, &r) || r.code != CodeTableCorrupt {
		t.Fatalf("want table_corrupt, got %v", err)
	}
	if grown := after.TotalAlloc - before.TotalAlloc; grown > 16<<20 {
		t.Errorf("reading 8 forged bytes allocated %d MB", grown>>20)
	}
}

// TestForgedParquetFooterDoesNotAllocate: a footer of seven bytes claiming
// a list of 20 million schema elements made the Thrift reader allocate
// 150 MB; the footer walk refuses it first.
func TestForgedParquetFooterDoesNotAllocate(t *testing.T) {
	footer := []byte{0x29, 0xFC, 0x80, 0xDA, 0xC4, 0x09, 0x00} // field 2: list<struct> of 20,000,000
	raw := append([]byte("PAR1"), footer...)
	raw = binary.LittleEndian.AppendUint32(raw, uint32(len(footer)))
	raw = append(raw, "PAR1"...)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := readTable(context.Background(), raw, tableSpec{format: "parquet", textColumn: "text", idColumn: "id", maxRows: 10})
	runtime.ReadMemStats(&after)
	var r *refusal
	if !errors.As(err, &r) || r.code != CodeTableCorrupt {
		t.Fatalf("want table_corrupt, got %v", err)
	}
	if grown := after.TotalAlloc - before.TotalAlloc; grown > 16<<20 {
		t.Errorf("a forged footer allocated %d MB", grown>>20)
	}
}

// TestForgedFieldCountDoesNotAllocate pins the second fuzz finding: an
// Arrow file of 248 bytes whose footer schema claims some 80 million fields
// made arrow-go allocate 5.6 GB; the structural walk refuses it first.
func TestForgedFieldCountDoesNotAllocate(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("testdata", "fuzz", "FuzzReadTable", "forged-field-count"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitN(string(raw), "\n", 3)
	data, err := strconv.Unquote(strings.TrimSuffix(strings.TrimPrefix(lines[1], "[]byte("), ")"))
	if err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err = readTable(context.Background(), []byte(data), tableSpec{format: "arrow", textColumn: "text", idColumn: "id", maxRows: 10})
	runtime.ReadMemStats(&after)
	var r *refusal
	if !errors.As(err, &r) || r.code != CodeTableCorrupt {
		t.Fatalf("want table_corrupt, got %v", err)
	}
	if grown := after.TotalAlloc - before.TotalAlloc; grown > 16<<20 {
		t.Errorf("a forged schema allocated %d MB", grown>>20)
	}
}
