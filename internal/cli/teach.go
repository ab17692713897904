package cli

import (
	"context"
	"errors"
	"fmt"

	"github.com/urfave/cli/v2"

	"formation/ident"
	"formation/internal/exitcode"
	"formation/runtime"
	"formation/store"
	"formation/teaching"
	"formation/teaching/queue"
)

const chatTeachingHelp = `Teaching: a statement the knowledge does not confirm — a relation ("No, a
lens causes refraction."), a definition ("A mirror is a polished surface.")
or a counter-claim ("A lens does not produce heat.") — is recorded in the
store as a teaching proposal (proposals/<id>), with the words, the turn's
trace hash, the session id (--session, default the digest of the first
turn) and the turn index; the reply says so and prints the proposal's id.
For the rest of the conversation answers may rest on it, marked
speculative. Nothing reviewed changes: a proposal reaches knowledge only
after a curator accepts it (formation review) and a subject with an
"adapter: proposals" source is forged, ratified and promoted. At most 100
proposals per session.`

func sessionFlag() cli.Flag {
	return &cli.StringFlag{Name: "session", Usage: "the id this chat's teaching proposals carry (default: the trace hash of its first turn)"}
}

// openChatSession starts a teaching session: proposals go to the store's
// proposal queue, with an audit record each.
func openChatSession(c *cli.Context, io IO) (*runtime.Session, func(), error) {
	id := c.String("session")
	if id != "" {
		if err := ident.CheckID(id); err != nil {
			return nil, nil, exitcode.Newf(exitcode.Usage, "chat: --session: %v", err)
		}
	}
	t := &chatQueue{c: c, io: io}
	switch s, err := openStore(c); {
	case err == nil:
		t.q = &queue.Queue{Store: s, Audit: auditWriter(s, io)}
	case !errors.Is(err, store.ErrNotFound):
		return nil, nil, err
	}
	rt, closeTrace, err := openRuntime(c, io)
	if err != nil {
		return nil, nil, err
	}
	return rt.NewTeachingSession(t, id), closeTrace, nil
}

// chatQueue is chat's proposal queue. A chat that records nothing never
// creates a store; the first proposal creates the one --store names.
type chatQueue struct {
	c  *cli.Context
	io IO
	q  *queue.Queue
}

func (t *chatQueue) queue() (*queue.Queue, error) {
	if t.q == nil {
		s, err := createStore(t.c)
		if err != nil {
			return nil, err
		}
		t.q = &queue.Queue{Store: s, Audit: auditWriter(s, t.io)}
	}
	return t.q, nil
}

// Propose implements runtime.Teacher.
func (t *chatQueue) Propose(ctx context.Context, p teaching.Proposal) (string, error) {
	q, err := t.queue()
	if err != nil {
		return "", err
	}
	return q.Propose(ctx, p)
}

// Standing implements runtime.Teacher.
func (t *chatQueue) Standing(ctx context.Context, id string) (teaching.Standing, error) {
	q, err := t.queue()
	if err != nil {
		return teaching.Standing{}, err
	}
	return q.Standing(ctx, id)
}

// chatTurnError is the exit of a turn that failed: a proposal that could
// not be recorded exits with its cause's code (a store that is down: 75),
// anything else as input rejected.
func chatTurnError(err error) error {
	var te *runtime.TeachingError
	if errors.As(err, &te) {
		return err
	}
	return exitcode.With(exitcode.Rejected, err)
}

// printTeaching names the proposal a turn recorded.
func printTeaching(io IO, r runtime.ChatResponse) {
	if r.TeachingProposal != "" {
		fmt.Fprintf(io.Stdout, "  proposal %s (formation review show %s)\n", r.TeachingProposal, r.TeachingProposal)
	}
}
