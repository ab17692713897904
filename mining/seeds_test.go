package mining

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

// TestWriteTableSeeds regenerates the binary seed corpus of FuzzReadTable
// (real Arrow and Parquet files) when FORMATION_WRITE_FUZZ_SEEDS=1; the
// files are committed, so normal runs skip it.
func TestWriteTableSeeds(t *testing.T) {
	if os.Getenv("FORMATION_WRITE_FUZZ_SEEDS") != "1" {
		t.Skip("set FORMATION_WRITE_FUZZ_SEEDS=1 to rewrite testdata/fuzz/FuzzReadTable")
	}
	rec := testTable(t, []int64{1, 2, 3}, []*string{strs("Light is a wave.")[0], nil, strs("Heat causes expansion.")[0]})
	defer rec.Release()
	good := testTable(t, []int64{1, 2}, strs("Light is a wave.", "A prism produces a spectrum."))
	defer good.Release()
	seeds := map[string][]byte{
		"arrow-file":     arrowFile(t, good),
		"arrow-stream":   arrowStream(t, good),
		"parquet":        parquetFile(t, good),
		"parquet-nulls":  parquetFile(t, rec),
		"arrow-nulls":    arrowFile(t, rec),
		"parquet-header": []byte("PAR1PAR1"),
	}
	dir := filepath.Join("testdata", "fuzz", "FuzzReadTable")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, data := range seeds {
		body := "go test fuzz v1\n[]byte(" + strconv.Quote(string(data)) + ")\n"
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
