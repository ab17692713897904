package mining

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"unicode/utf8"
)

// checkExtracted asserts what every extracted text must satisfy: valid
// UTF-8, one final newline, blocks trimmed and separated by exactly one
// blank line, and the same output on a second run.
func checkExtracted(t *testing.T, format string, data, got []byte) {
	t.Helper()
	again, err := Extract(format, data)
	if err != nil || !bytes.Equal(got, again) {
		t.Fatalf("%s extraction is not deterministic", format)
	}
	if !utf8.Valid(got) {
		t.Fatalf("%s text is not UTF-8: %q", format, got)
	}
	if len(got) == 0 {
		return
	}
	if got[len(got)-1] != '\n' || bytes.HasSuffix(got, []byte("\n\n")) {
		t.Fatalf("%s text must end with exactly one newline: %q", format, got)
	}
	for _, block := range strings.Split(string(got[:len(got)-1]), "\n\n") {
		if block == "" || strings.TrimSpace(block) != block && strings.Trim(block, " \t\r\n\f\v") != block {
			t.Fatalf("%s block %q is empty or untrimmed in %q", format, block, got)
		}
	}
}

// FuzzHTMLText: any bytes either extract to well-formed text or are
// refused; never a panic.
func FuzzHTMLText(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		got, err := Extract("html", data)
		if err != nil {
			var r *refusal
			if !errors.As(err, &r) {
				t.Fatalf("non-refusal error: %v", err)
			}
			return
		}
		checkExtracted(t, "html", data, got)
	})
}

// FuzzMarkdownText: the same contract for the Markdown extractor.
func FuzzMarkdownText(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		got, err := Extract("markdown", data)
		if err != nil {
			var r *refusal
			if !errors.As(err, &r) || utf8.Valid(data) {
				t.Fatalf("only invalid UTF-8 is refused: %v", err)
			}
			return
		}
		checkExtracted(t, "markdown", data, got)
	})
}

// FuzzReadTable feeds arbitrary bytes to the table adapter (Parquet when
// they start with PAR1, Arrow IPC otherwise): rows or a refusal, never a
// panic, and accepted rows have unique non-empty ids and UTF-8 text.
func FuzzReadTable(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		format := "arrow"
		if bytes.HasPrefix(data, []byte("PAR1")) {
			format = "parquet"
		}
		rows, err := readTable(context.Background(), data, tableSpec{format: format, textColumn: "text", idColumn: "id", maxRows: 10_000})
		if err != nil {
			var r *refusal
			if !errors.As(err, &r) {
				t.Fatalf("non-refusal error: %v", err)
			}
			return
		}
		seen := map[string]bool{}
		for _, row := range rows {
			if row.id == "" || seen[row.id] || !utf8.ValidString(row.text) {
				t.Fatalf("bad row %+v", row)
			}
			seen[row.id] = true
		}
	})
}
