package cli

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"formation/canon"
	"formation/internal/exitcode"
)

// outputKey names the run's output in the app's Metadata, where Main finds it.
const outputKey = "formation/output"

// output holds the one JSON document a command emits under --json. Main
// writes it when the command returns, adding an "error" object when the
// command failed, so that every failure under --json is a document a
// scheduler can read: {"error":{"code":65,"reason":"corrupt_object","message":…}}.
type output struct {
	doc any
	set bool
}

// emit is how a command hands its --json document over (streams write their
// lines directly and emit only their last, summary line).
func emit(io IO, v any) error {
	if io.out == nil {
		return writeJSON(io.Stdout, v)
	}
	io.out.doc, io.out.set = v, true
	return nil
}

// finish writes the document (with the error, if any) to w.
func (o *output) finish(w io.Writer, err error, code int) error {
	if !o.set && err == nil {
		return nil
	}
	var doc any = map[string]any{"schema_version": "1.0.0"}
	if o.set {
		doc = o.doc
	}
	if err != nil {
		b, merr := canon.Marshal(doc)
		if merr != nil {
			return fmt.Errorf("encode output: %w", merr)
		}
		v, derr := canon.Decode(b)
		obj, ok := v.(*canon.Object)
		if derr != nil || !ok {
			obj = canon.NewObject()
			obj.Set("result", v)
		}
		obj.Set("error", map[string]any{"code": code, "reason": exitcode.ReasonOf(err), "message": err.Error()})
		doc = obj
	}
	return writeJSON(w, doc)
}

// jsonRequested reports whether a command line (or FORMATION_JSON) asks for
// --json.
func jsonRequested(args []string) bool {
	for _, a := range args {
		if a == "--" {
			break
		}
		name, value, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if !strings.HasPrefix(a, "-") || name != flagJSON {
			continue
		}
		if !hasValue {
			return true
		}
		b, err := strconv.ParseBool(value)
		return err == nil && b
	}
	b, err := strconv.ParseBool(os.Getenv(envName("", flagJSON)))
	return err == nil && b
}
