package cli

import (
	"bufio"
	"fmt"
	"os"
	"strings"

	"github.com/urfave/cli/v2"

	"formation/internal/exitcode"
	"formation/packs"
	"formation/reviewed"
	"formation/runtime"
	"formation/runtime/knowledge"
	"formation/runtime/trace"
)

func runtimeFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "identity", Usage: "identity pack id (default default_general_v1; a pack that fails to load falls back to the default with a warning)", EnvVars: []string{"FORMATION_IDENTITY"}},
		&cli.StringFlag{Name: "knowledge", Usage: "a ValidatedTripleSet JSON file to answer from (default: the store's reviewed knowledge)", EnvVars: []string{"FORMATION_KNOWLEDGE"}},
		&cli.StringFlag{Name: "trace", Usage: "append one TurnEvent JSON line per turn to this file", EnvVars: []string{"FORMATION_TRACE"}},
		identityHardBlockFlag(),
	}
}

// flagIdentityHardBlock turns a turn the identity check flags into the
// typed refusal identity_hard_block. Off by default: a flag is reported and
// never erases an answer.
const flagIdentityHardBlock = "identity-hard-block"

func identityHardBlockFlag() cli.Flag {
	return &cli.BoolFlag{Name: flagIdentityHardBlock, Usage: "refuse a turn whose identity check flags it (refusal identity_hard_block) instead of only reporting the flag",
		EnvVars: []string{"FORMATION_IDENTITY_HARD_BLOCK"}}
}

func askCommand(io IO) *cli.Command {
	return &cli.Command{
		Name:      "ask",
		Usage:     "ask the runtime one question (--json prints the whole ChatResponse)",
		ArgsUsage: `"QUESTION"`,
		Flags:     runtimeFlags(),
		Description: `Answers from promoted knowledge (or --knowledge FILE) through the same
runtime that the run stage drives. Grounded answers cite their sources;
anything the knowledge does not ground gets "I don't have field coordinates
for that yet."; refusals are typed. Refuses to start without a valid
safety pack (exit 77) unless CORE_ALLOW_UNRATIFIED_SAFETY=1.`,
		Action: func(c *cli.Context) error {
			if err := requireArgs(c, 1, "QUESTION"); err != nil {
				return err
			}
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
				return writeJSON(io.Stdout, resp)
			}
			printResponse(io, resp)
			return nil
		},
	}
}

func chatCommand(io IO) *cli.Command {
	return &cli.Command{
		Name:  "chat",
		Usage: "talk to the runtime, one line per turn (end with EOF or /quit)",
		Flags: runtimeFlags(),
		Action: func(c *cli.Context) error {
			sess, closeTrace, err := openSession(c, io)
			if err != nil {
				return err
			}
			defer closeTrace()
			in := bufio.NewScanner(io.Stdin)
			in.Buffer(make([]byte, 0, 4096), runtime.MaxInputBytes*2)
			for {
				fmt.Fprint(io.Stderr, "> ")
				if !in.Scan() {
					fmt.Fprintln(io.Stderr)
					return in.Err()
				}
				line := in.Text()
				if strings.TrimSpace(line) == "/quit" {
					return nil
				}
				resp, err := sess.Turn(c.Context, line, nil)
				if wantJSON(c) {
					if werr := writeJSON(io.Stdout, resp); werr != nil {
						return werr
					}
				} else {
					printResponse(io, resp)
				}
				if err != nil { // a halted session cannot continue: surfaced, never repaired
					return exitcode.With(exitcode.Rejected, err)
				}
			}
		},
	}
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

// openSession loads the packs (fail-closed), the knowledge and the runtime.
func openSession(c *cli.Context, io IO) (*runtime.Session, func(), error) {
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
	return rt.NewSession(), closeTrace, nil
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
	if err != nil {
		return nil, err
	}
	snap, err := reviewed.Load(c.Context, s)
	if err != nil {
		return nil, auditStateError(c, io, s, c.Command.Name, err)
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
}
