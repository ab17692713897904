package run

import "io"

// eventsWriter writes a run's events object as its steps are recorded: a
// canonical JSON array holding, for each pass, the array of its recorded
// steps' events in step order. That is the canonical form of [][]any,
// written one event at a time, so no pass's events are ever held whole.
type eventsWriter struct {
	w      io.Writer
	passes int // passes begun
	steps  int // events written in the current pass
	err    error
}

// newEventsWriter writes to w; a nil w gives a nil writer, which writes
// nothing.
func newEventsWriter(w io.Writer) *eventsWriter {
	if w == nil {
		return nil
	}
	return &eventsWriter{w: w}
}

func (e *eventsWriter) write(s string, b []byte) error {
	if e.err == nil {
		_, e.err = io.WriteString(e.w, s)
	}
	if e.err == nil && b != nil {
		_, e.err = e.w.Write(b)
	}
	return e.err
}

func (e *eventsWriter) beginPass() error {
	if e == nil {
		return nil
	}
	open := ",["
	if e.passes == 0 {
		open = "[["
	}
	e.passes++
	e.steps = 0
	return e.write(open, nil)
}

// event writes one step's event (its canonical bytes).
func (e *eventsWriter) event(b []byte) error {
	sep := ","
	if e.steps == 0 {
		sep = ""
	}
	e.steps++
	return e.write(sep, b)
}

func (e *eventsWriter) endPass() error {
	if e == nil {
		return nil
	}
	return e.write("]", nil)
}

func (e *eventsWriter) close() error {
	if e == nil {
		return nil
	}
	if e.passes == 0 {
		return e.write("[]", nil)
	}
	return e.write("]", nil)
}
