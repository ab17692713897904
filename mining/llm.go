package mining

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"path"
	"path/filepath"
	"strings"
	"time"
)

// LLMProvider produces the text of an llm source. It is only consulted when
// Options.EnableLLM is set. What it returns is recorded as the source's raw
// bytes, with the model name and the prompt's SHA-256; its candidates are
// tier llm downstream whatever the allow-list says.
type LLMProvider interface {
	// Name identifies the provider in cache keys and audit records.
	Name() string
	// Generate returns the generated text for req; it must not return more
	// than req.MaxBytes bytes (more is refused as too_large).
	Generate(ctx context.Context, req LLMRequest) ([]byte, error)
}

// LLMRequest is what a provider gets for one llm source.
type LLMRequest struct {
	SourceID string
	Model    string
	Prompt   []byte
	// Output is the source's path: the file holding a recorded generation.
	Output   string
	MaxBytes int64
	// ReadFile reads a file of the subject folder with the miner's checks
	// (no symlinks, no escapes, the size limit).
	ReadFile func(ctx context.Context, rel string, limit int64) ([]byte, error)
}

// RecordedLLM reads a generation recorded earlier: the file named by the
// source's path. It never runs anything and never touches the network.
type RecordedLLM struct{}

// Name implements LLMProvider.
func (RecordedLLM) Name() string { return "recorded" }

// Generate implements LLMProvider.
func (RecordedLLM) Generate(ctx context.Context, req LLMRequest) ([]byte, error) {
	if req.Output == "" {
		return nil, refuse(CodeLLMFailed, "the recorded-output provider needs the source's path")
	}
	return req.ReadFile(ctx, req.Output, req.MaxBytes)
}

// CommandLLM runs a generator command given by the operator (never by the
// subject file): Argv[0] with the remaining arguments, no shell, the prompt
// on standard input, the model in FORMATION_LLM_MODEL; standard output is the
// generated text.
type CommandLLM struct {
	Argv    []string
	Timeout time.Duration // 0 means no timeout beyond the context's
}

// Name implements LLMProvider.
func (c CommandLLM) Name() string {
	// Only the program name: arguments may carry secrets, names end up in audit records.
	if len(c.Argv) == 0 {
		return "command"
	}
	return "command:" + path.Base(filepath.ToSlash(c.Argv[0]))
}

// Generate implements LLMProvider.
func (c CommandLLM) Generate(ctx context.Context, req LLMRequest) ([]byte, error) {
	if len(c.Argv) == 0 {
		return nil, errors.New("mining: CommandLLM without a command")
	}
	if c.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, c.Timeout)
		defer cancel()
	}
	cmd := exec.CommandContext(ctx, c.Argv[0], c.Argv[1:]...)
	cmd.Stdin = bytes.NewReader(req.Prompt)
	cmd.Env = append(cmd.Environ(), "FORMATION_LLM_MODEL="+req.Model, "FORMATION_LLM_SOURCE="+req.SourceID)
	out := &capWriter{limit: req.MaxBytes}
	errOut := &capWriter{limit: 4096}
	cmd.Stdout, cmd.Stderr = out, errOut
	err := cmd.Run()
	if out.over {
		return nil, refuse(CodeTooLarge, "the generator wrote more than %d bytes", req.MaxBytes)
	}
	if err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("mining: generator for %s: %w", req.SourceID, ctx.Err())
		}
		return nil, refuse(CodeLLMFailed, "generator failed: %v: %s", err, strings.TrimSpace(string(errOut.buf)))
	}
	return out.buf, nil
}

// capWriter keeps at most limit bytes and notes when more arrived.
type capWriter struct {
	buf   []byte
	limit int64
	over  bool
}

func (w *capWriter) Write(p []byte) (int, error) {
	room := w.limit - int64(len(w.buf))
	if int64(len(p)) > room {
		w.buf = append(w.buf, p[:max(room, 0)]...)
		w.over = true
		return len(p), nil // keep draining so the child never blocks on a full pipe
	}
	w.buf = append(w.buf, p...)
	return len(p), nil
}

var _ io.Writer = (*capWriter)(nil)
