package cli

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	stdio "io"
	"os"
	"strings"

	"github.com/urfave/cli/v2"
	"golang.org/x/term"

	"formation/internal/exitcode"
	"formation/packs"
	"formation/reviewed"
	"formation/runtime"
	"formation/runtime/knowledge"
	"formation/runtime/trace"
	"formation/store"
)

func runtimeFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "identity", Usage: "identity pack id (default default_general_v1; a pack that fails to load falls back to the default with a warning)"},
		&cli.StringFlag{Name: "knowledge", Usage: "a ValidatedTripleSet JSON file to answer from (default: the store's reviewed knowledge)"},
		&cli.StringFlag{Name: "trace", Usage: "append one TurnEvent JSON line per turn to this file"},
		identityHardBlockFlag(),
	}
}

// flagIdentityHardBlock turns a turn the identity check flags into the
// typed refusal identity_hard_block. Off by default: a flag is reported and
// never erases an answer.
const flagIdentityHardBlock = "identity-hard-block"

func identityHardBlockFlag() cli.Flag {
	return &cli.BoolFlag{Name: flagIdentityHardBlock, Usage: "refuse a turn whose identity check flags it (refusal identity_hard_block) instead of only reporting the flag"}
}

func askCommand(io IO) *cli.Command {
	return &cli.Command{
		Name:      "ask",
		Usage:     "ask the runtime one question (--json prints the whole ChatResponse)",
		ArgsUsage: "QUESTION...",
		Flags:     runtimeFlags(),
		Description: `Answers from promoted knowledge (or --knowledge FILE) through the same
runtime that the run stage drives. Grounded answers cite their sources;
anything the knowledge does not ground gets "I don't have field coordinates
for that yet."; refusals are typed. The words of QUESTION are joined with
spaces. On a store where nothing has been promoted (or no store at all) it
says so once on stderr and answers from no knowledge. Refuses to start
without a valid safety pack (exit 77) unless CORE_ALLOW_UNRATIFIED_SAFETY=1;
outside the repository, name the packs folder with --packs-dir.

Example:

   $ formation ask "What does refraction cause?" --json`,
		Action: func(c *cli.Context) error {
			sess, closeTrace, err := openSession(c, io)
			if err != nil {
				return err
			}
			defer closeTrace()
			resp, err := sess.Turn(c.Context, strings.Join(c.Args().Slice(), " "), nil)
			if err != nil && resp.TraceHash == "" {
				return exitcode.With(exitcode.Rejected, err)
			}
			if wantJSON(c) {
				return emit(io, resp)
			}
			printResponse(io, resp)
			return nil
		},
	}
}

// MaxChatLine bounds one chat line; a longer line is answered with one
// input_too_long refusal and the conversation goes on.
const MaxChatLine = 64 << 10

func chatCommand(io IO) *cli.Command {
	return &cli.Command{
		Name:  "chat",
		Usage: "talk to the runtime, one line per turn (end with EOF or /quit)",
		Flags: append(runtimeFlags(), sessionFlag()),
		Description: `Reads one line per turn from stdin and answers each as ask does (with
--json: one ChatResponse per line). The "> " prompt is shown only when stdin
is a terminal. A line longer than 64 KiB is answered with one refusal
(input_too_long) and the conversation goes on; a session halted on closure
ends with exit 65. Ctrl-C ends it with exit 130.

` + chatTeachingHelp,
		Action: func(c *cli.Context) error { return runChat(c, io) },
	}
}

func runChat(c *cli.Context, io IO) error {
	sess, closeTrace, err := openChatSession(c, io)
	if err != nil {
		return err
	}
	defer closeTrace()
	lines := readLines(c.Context, io.Stdin, MaxChatLine)
	prompt := isTerminal(io.Stdin)
	for {
		if prompt {
			fmt.Fprint(io.Stderr, "> ")
		}
		var l chatLine
		select {
		case <-c.Context.Done():
			return c.Context.Err()
		case l = <-lines:
		}
		if l.err != nil || l.eof {
			if prompt {
				fmt.Fprintln(io.Stderr)
			}
			return l.err
		}
		if strings.TrimSpace(l.text) == "/quit" {
			return nil
		}
		var resp runtime.ChatResponse
		var turnErr error
		if l.tooLong {
			resp = sess.Oversized(MaxChatLine)
		} else {
			resp, turnErr = sess.Turn(c.Context, l.text, nil)
		}
		if wantJSON(c) {
			if err := writeJSON(io.Stdout, resp); err != nil {
				return err
			}
		} else {
			printResponse(io, resp)
		}
		if turnErr != nil { // a halted session cannot continue: surfaced, never repaired
			return chatTurnError(turnErr)
		}
	}
}

// chatLine is one line of chat input, or the end of it.
type chatLine struct {
	text    string
	tooLong bool // longer than the limit: its bytes were skipped, not kept
	eof     bool
	err     error
}

// readLines reads r line by line in its own goroutine (so that a cancelled
// context ends the chat even while stdin blocks), keeping at most limit
// bytes of any line. It stops after the end of input or an error.
func readLines(ctx context.Context, r stdio.Reader, limit int) <-chan chatLine {
	out := make(chan chatLine)
	go func() {
		br := bufio.NewReader(r)
		for {
			l := readLine(br, limit)
			select {
			case out <- l:
			case <-ctx.Done():
				return
			}
			if l.eof || l.err != nil {
				return
			}
		}
	}()
	return out
}

func readLine(br *bufio.Reader, limit int) chatLine {
	var buf []byte
	var l chatLine
	for {
		chunk, err := br.ReadSlice('\n')
		if len(buf)+len(chunk) > limit+1 { // +1: the newline itself
			l.tooLong, buf = true, nil
		} else if !l.tooLong {
			buf = append(buf, chunk...)
		}
		switch {
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, stdio.EOF):
			if len(buf) == 0 && !l.tooLong {
				return chatLine{eof: true}
			}
		case err != nil:
			return chatLine{err: err}
		}
		l.text = strings.TrimSuffix(strings.TrimSuffix(string(buf), "\n"), "\r")
		return l
	}
}

// isTerminal reports whether r is a terminal.
func isTerminal(r any) bool {
	f, ok := r.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// loadPacks loads the safety pack (fail-closed: a missing or unratified one
// exits 77) and the identity pack, falling back to the default with a
// warning on stderr when the named one fails. A refusal is named by its
// reason code, the one `formation verify` gives for the same pack file, and
// exits 77: the runtime does not start without its packs.
func loadPacks(c *cli.Context, io IO, identity string) (*packs.Loaded, error) {
	opts, err := packOptions(c, io)
	if err != nil {
		return nil, err
	}
	opts.IdentityPackID = identity
	loaded, err := packs.Load(c.Context, opts)
	if err != nil {
		if code, ok := packs.ReasonOf(err); ok {
			return nil, fmt.Errorf("%s: %w", code, err)
		}
		return nil, exitcode.With(exitcode.Rejected, err)
	}
	if loaded.Fallback != nil {
		fmt.Fprintf(io.Stderr, "warning: %s\n", loaded.Fallback.String())
	}
	return loaded, nil
}

// openSession loads the packs (fail-closed), the knowledge and the runtime,
// and starts a session that records nothing.
func openSession(c *cli.Context, io IO) (*runtime.Session, func(), error) {
	rt, closeTrace, err := openRuntime(c, io)
	if err != nil {
		return nil, nil, err
	}
	return rt.NewSession(), closeTrace, nil
}

// openRuntime loads the packs (fail-closed), the knowledge and the runtime.
func openRuntime(c *cli.Context, io IO) (*runtime.Runtime, func(), error) {
	loaded, err := loadPacks(c, io, c.String("identity"))
	if err != nil {
		return nil, nil, err
	}
	k, err := loadKnowledge(c, io)
	if err != nil {
		return nil, nil, err
	}
	cfg := runtime.Config{Knowledge: k, Safety: loaded.Safety, Manifold: loaded.Manifold,
		IdentityHardBlock: c.Bool(flagIdentityHardBlock)}
	closeTrace := func() {}
	if path := c.String("trace"); path != "" {
		f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		if err != nil {
			return nil, nil, exitcode.With(exitcode.Usage, err)
		}
		cfg.Sink = trace.NewJSONLWriter(f)
		closeTrace = func() { f.Close() }
	}
	rt, err := runtime.New(cfg)
	if err != nil {
		closeTrace()
		return nil, nil, exitcode.With(exitcode.SealInvalid, err)
	}
	return rt, closeTrace, nil
}

func loadKnowledge(c *cli.Context, io IO) (*knowledge.Knowledge, error) {
	if path := c.String("knowledge"); path != "" {
		raw, err := os.ReadFile(path)
		if err != nil {
			return nil, exitcode.With(exitcode.NotFound, err)
		}
		k, err := knowledge.LoadKnowledgeVTS(raw)
		if err != nil {
			return nil, exitcode.With(exitcode.Rejected, fmt.Errorf("%s: %w", path, err))
		}
		return k, nil
	}
	s, err := openStore(c)
	if errors.Is(err, store.ErrNotFound) {
		fmt.Fprintf(io.Stderr, "note: nothing has been promoted (no store at %s); answering from no knowledge\n", storeName(c))
		return reviewed.EmptyKnowledge().Index()
	}
	if err != nil {
		return nil, err
	}
	snap, err := reviewed.Load(c.Context, s)
	if err != nil {
		return nil, auditStateError(c, io, s, c.Command.Name, err)
	}
	if len(snap.Index.Entries) == 0 {
		fmt.Fprintf(io.Stderr, "note: nothing has been promoted in %s; answering from no knowledge\n", s)
	}
	return snap.Knowledge.Index()
}

func printResponse(io IO, r runtime.ChatResponse) {
	fmt.Fprintln(io.Stdout, r.Surface)
	for _, cit := range r.Citations {
		span := cit.Span
		if len(span) > 100 {
			span = span[:97] + "..."
		}
		where := ""
		if cit.TextSHA != "" {
			where = fmt.Sprintf(" [%d,%d)", cit.Start, cit.End)
		}
		fmt.Fprintf(io.Stdout, "  cites %s%s: %q\n", short(cit.SourceSHA), where, span)
	}
	if r.Refused() {
		fmt.Fprintf(io.Stdout, "  refusal: %s\n", r.RefusalReason)
	}
	printTeaching(io, r)
}
