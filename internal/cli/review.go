package cli

import (
	"crypto/ed25519"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"formation/audit"
	"formation/internal/exitcode"
	"formation/reviewed"
	"formation/reviewers"
	"formation/runtime/knowledge"
	"formation/store"
	"formation/teaching"
	"formation/teaching/queue"
)

func reviewCommand(io IO) *cli.Command {
	reasons := make([]string, 0, len(teaching.Reasons()))
	for _, r := range teaching.Reasons() {
		reasons = append(reasons, string(r))
	}
	decideFlags := []cli.Flag{
		&cli.StringFlag{Name: "reason", Usage: "the coherence argument: " + strings.Join(reasons, ", ")},
		&cli.StringFlag{Name: "key", Usage: "the reviewer's private key (a keygen key file or PKCS#8 PEM)"},
		&cli.StringFlag{Name: "registry", Value: defaultRegistry, Usage: "the reviewer registry (schema 2); the key's reviewer needs the proposal scope"},
	}
	return &cli.Command{
		Name:  "review",
		Usage: "curate teaching proposals: list, show, accept, reject, prune",
		Description: `Teaching proposals are what chat recorded from statements the knowledge
does not confirm. A curator decides each by its coherence with the reviewed
knowledge, and only by that: show computes it (CONTESTED when a reviewed
counter-claim denies the proposal, the proposal denies a reviewed triple, or
it defines a term differently from a reviewed definition, naming those
claims; FALSIFIED when such claims come from two distinct sources or more;
COHERENT otherwise). accept takes the reason coheres (the proposal becomes
COHERENT; refused for a proposal that is not COHERENT); reject takes
contradicts_reviewed (CONTESTED), falsified (FALSIFIED), not_a_claim or
duplicate (status unchanged). A decision is signed by a reviewer whose
registry entry has the proposal scope (exit 77 otherwise) and is a new
record: the proposal itself never changes, and no knowledge ref moves.
Accepted proposals reach knowledge through a subject with an
"adapter: proposals" source, like any other source.`,
		Subcommands: []*cli.Command{
			{Name: "list", Usage: "list the proposals (--json: {\"proposals\":[…]})",
				Action: func(c *cli.Context) error { return runReviewList(c, io) }},
			{Name: "show", Usage: "show a proposal and its coherence with the reviewed knowledge", ArgsUsage: "ID",
				Action: func(c *cli.Context) error { return runReviewShow(c, io) }},
			{Name: "accept", Usage: "accept a proposal (--reason coheres)", ArgsUsage: "ID", Flags: decideFlags,
				Action: func(c *cli.Context) error { return runReviewDecide(c, io, true) }},
			{Name: "reject", Usage: "reject a proposal (--reason contradicts_reviewed|falsified|not_a_claim|duplicate)", ArgsUsage: "ID", Flags: decideFlags,
				Action: func(c *cli.Context) error { return runReviewDecide(c, io, false) }},
			{Name: "prune", Usage: "drop the user's words from proposals decided longer ago than --older-than",
				Flags:  []cli.Flag{&cli.StringFlag{Name: "older-than", Usage: "a duration: 720h, 30d, 90m …"}},
				Action: func(c *cli.Context) error { return runReviewPrune(c, io) }},
		},
	}
}

// ProposalSummary is one line of `review list --json`.
type ProposalSummary struct {
	ID              string `json:"id"`
	EpistemicStatus string `json:"epistemic_status"`
	Kind            string `json:"kind"`
	Claim           string `json:"claim"`
	SessionID       string `json:"session_id"`
	Turn            int    `json:"turn"`
	Verdict         string `json:"verdict,omitempty"`
	Reason          string `json:"reason,omitempty"`
	Reviewer        string `json:"reviewer,omitempty"`
	DecidedAt       string `json:"decided_at,omitempty"`
	PrunedAt        string `json:"pruned_at,omitempty"`
}

func summary(e queue.Entry) ProposalSummary {
	p := e.Record
	out := ProposalSummary{ID: e.ID, EpistemicStatus: string(p.EpistemicStatus), Kind: string(p.Kind), Claim: p.Claim(),
		SessionID: p.SessionID, Turn: p.Turn, PrunedAt: p.PrunedAt}
	if d := p.Decision; d != nil {
		out.Verdict, out.Reason, out.Reviewer, out.DecidedAt = string(d.Verdict), string(d.Reason), d.Reviewer, d.DecidedAt
	}
	return out
}

func openQueue(c *cli.Context, io IO) (queue.Queue, store.Store, error) {
	s, err := openStore(c)
	if err != nil {
		return queue.Queue{}, nil, err
	}
	return queue.Queue{Store: s, Audit: auditWriter(s, io)}, s, nil
}

func runReviewList(c *cli.Context, io IO) error {
	if c.NArg() > 0 {
		return exitcode.Newf(exitcode.Usage, "review list: takes no arguments")
	}
	q, _, err := openQueue(c, io)
	if err != nil {
		return err
	}
	all, err := q.List(c.Context)
	if err != nil {
		return err
	}
	out := make([]ProposalSummary, len(all))
	for i, e := range all {
		out[i] = summary(e)
	}
	if wantJSON(c) {
		return writeJSON(io.Stdout, struct {
			Proposals []ProposalSummary `json:"proposals"`
		}{out})
	}
	for _, p := range out {
		state := "undecided"
		if p.Verdict != "" {
			state = p.Verdict + " (" + p.Reason + ")"
		}
		fmt.Fprintf(io.Stdout, "%s  %-11s  %-13s  %-28s  %s\n", p.ID[:12], p.EpistemicStatus, p.Kind, state, p.Claim)
	}
	fmt.Fprintf(io.Stdout, "%d proposal(s)\n", len(out))
	return nil
}

// ShowOutput is the --json document of `review show`.
type ShowOutput struct {
	ID        string             `json:"id"`
	Head      string             `json:"head"`
	Record    teaching.Proposal  `json:"record"`
	Coherence teaching.Coherence `json:"coherence"`
	// SignatureValid is set for a decided proposal: whether its decision
	// verifies (teaching.VerifyDecision).
	SignatureValid *bool `json:"signature_valid,omitempty"`
}

func proposalArg(c *cli.Context) (string, error) {
	if c.NArg() != 1 {
		return "", exitcode.Newf(exitcode.Usage, "review %s: give exactly one proposal ID", c.Command.Name)
	}
	return c.Args().First(), nil
}

func runReviewShow(c *cli.Context, io IO) error {
	id, err := proposalArg(c)
	if err != nil {
		return err
	}
	q, s, err := openQueue(c, io)
	if err != nil {
		return err
	}
	e, coh, err := judgedEntry(c, io, q, s, id)
	if err != nil {
		return err
	}
	out := ShowOutput{ID: e.ID, Head: e.Head, Record: e.Record, Coherence: coh}
	if e.Record.Decided() {
		ok := teaching.VerifyDecision(e.Record) == nil
		out.SignatureValid = &ok
	}
	if wantJSON(c) {
		return writeJSON(io.Stdout, out)
	}
	p := e.Record
	fmt.Fprintf(io.Stdout, "proposal %s\n  %s: %s\n  status %s\n", e.ID, p.Kind, p.Claim(), p.EpistemicStatus)
	if p.Words != "" {
		fmt.Fprintf(io.Stdout, "  words %q\n", p.Words)
	} else {
		fmt.Fprintf(io.Stdout, "  words pruned at %s\n", p.PrunedAt)
	}
	fmt.Fprintf(io.Stdout, "  session %s, turn %d, trace %s\n", p.SessionID, p.Turn, p.TraceHash)
	fmt.Fprintf(io.Stdout, "  coherence with the reviewed knowledge: %s\n", strings.ToUpper(string(out.Coherence.Status)))
	for _, x := range out.Coherence.Contradictions {
		fmt.Fprintf(io.Stdout, "    contradicts %s %s (sources %s)\n", x.Kind, x.Claim, shortList(x.Sources))
	}
	if d := p.Decision; d != nil {
		fmt.Fprintf(io.Stdout, "  %s (%s) by %s at %s; signature valid: %v\n", d.Verdict, d.Reason, d.Reviewer, d.DecidedAt, *out.SignatureValid)
	}
	return nil
}

func shortList(shas []string) string {
	out := make([]string, len(shas))
	for i, s := range shas {
		out[i] = short(s)
	}
	return strings.Join(out, ", ")
}

// reviewedIndex is the reviewed knowledge, as the runtime indexes it.
// judgedEntry reads a proposal's current record and judges it against
// reviewed knowledge, as show and a decision both need.
func judgedEntry(c *cli.Context, io IO, q queue.Queue, s store.Store, id string) (queue.Entry, teaching.Coherence, error) {
	e, err := q.Get(c.Context, id)
	if err != nil {
		return queue.Entry{}, teaching.Coherence{}, err
	}
	k, err := reviewedIndex(c, io, s)
	if err != nil {
		return queue.Entry{}, teaching.Coherence{}, err
	}
	return e, teaching.Judge(e.Record, k), nil
}

func reviewedIndex(c *cli.Context, io IO, s store.Store) (*knowledge.Knowledge, error) {
	snap, err := reviewed.Load(c.Context, s)
	if err != nil {
		return nil, auditStateError(c, io, s, "review", err)
	}
	return snap.Knowledge.Index()
}

// DecisionOutput is the --json document of `review accept|reject`.
type DecisionOutput struct {
	ID              string             `json:"id"`
	Head            string             `json:"head"`
	Verdict         string             `json:"verdict"`
	Reason          string             `json:"reason"`
	EpistemicStatus string             `json:"epistemic_status"`
	Coherence       teaching.Coherence `json:"coherence"`
	Reviewer        string             `json:"reviewer"`
}

func runReviewDecide(c *cli.Context, io IO, accept bool) error {
	id, err := proposalArg(c)
	if err != nil {
		return err
	}
	if c.String("reason") == "" || c.String("key") == "" {
		return exitcode.Newf(exitcode.Usage, "review %s: --reason and --key are required", c.Command.Name)
	}
	reason, err := teaching.ParseReason(c.String("reason"))
	if err != nil {
		return err
	}
	q, s, err := openQueue(c, io)
	if err != nil {
		return err
	}
	rev, err := proposalReviewer(c, io, q, id)
	if err != nil {
		return err
	}
	e, coh, err := judgedEntry(c, io, q, s, id)
	if err != nil {
		return err
	}
	decided, err := teaching.Decide(e.Record, id, accept, reason, coh, rev, io.Now())
	if err != nil {
		return refusedDecision(c, q, id, err)
	}
	done, err := q.Decide(c.Context, id, decided)
	if err != nil {
		return refusedDecision(c, q, id, err)
	}
	out := DecisionOutput{ID: id, Head: done.Head, Verdict: string(decided.Decision.Verdict), Reason: string(reason),
		EpistemicStatus: string(decided.EpistemicStatus), Coherence: coh, Reviewer: rev.ID}
	if wantJSON(c) {
		return writeJSON(io.Stdout, out)
	}
	fmt.Fprintf(io.Stdout, "%s %s (%s): %s — now %s; signed by %s\n", out.Verdict, short(id), reason, decided.Claim(),
		strings.ToUpper(out.EpistemicStatus), rev.ID)
	return nil
}

// proposalReviewer loads the key and finds its reviewer in the registry,
// who must have the proposal scope: anything else is exit 77, with an audit
// record, before anything is decided.
func proposalReviewer(c *cli.Context, io IO, q queue.Queue, id string) (teaching.Reviewer, error) {
	reg, err := reviewers.Load(c.Context, c.String("registry"))
	if err != nil {
		return teaching.Reviewer{}, exitcode.With(exitcode.SealInvalid, err)
	}
	key, err := reviewers.LoadPrivateKey(c.String("key"))
	if err != nil {
		return teaching.Reviewer{}, exitcode.With(exitcode.Rejected, err)
	}
	pub := key.Public().(ed25519.PublicKey)
	v, ok := reg.CanDecideProposals(pub)
	if ok {
		return teaching.Reviewer{ID: v.ID, Key: key}, nil
	}
	detail := fmt.Sprintf("the key %s is not the public_key of any reviewer in %s", short(reviewers.KeyID(pub)), c.String("registry"))
	if v.ID != "" {
		detail = fmt.Sprintf("reviewer '%s' (key %s) has no proposal scope in %s", v.ID, short(reviewers.KeyID(pub)), c.String("registry"))
	}
	return teaching.Reviewer{}, refusedDecision(c, q, id,
		&teaching.Error{Code: exitcode.SealInvalid, Reason: teaching.ReasonUnauthorized, Detail: detail})
}

// refusedDecision writes one audit record for a decision refused by the
// teaching rules or the registry, and returns err.
func refusedDecision(c *cli.Context, q queue.Queue, id string, err error) error {
	var te *teaching.Error
	if !errors.As(err, &te) || q.Audit == nil {
		return err
	}
	rec := audit.Record{Stage: queue.StageReview, Subject: queue.AuditSubject, Kind: audit.KindRejection,
		ReasonCode: te.Reason, Key: queue.Ref(id), Detail: te.Detail}
	if aerr := q.Audit.Append(c.Context, rec); aerr != nil {
		return errors.Join(err, fmt.Errorf("audit: %w", aerr))
	}
	return err
}

func runReviewPrune(c *cli.Context, io IO) error {
	if c.NArg() > 0 || c.String("older-than") == "" {
		return exitcode.Newf(exitcode.Usage, "review prune: give --older-than DURATION and no arguments")
	}
	age, err := parseAge(c.String("older-than"))
	if err != nil {
		return exitcode.Newf(exitcode.Usage, "review prune: --older-than: %v", err)
	}
	q, _, err := openQueue(c, io)
	if err != nil {
		return err
	}
	now := io.Now()
	pruned, err := q.Prune(c.Context, now.Add(-age), now)
	if err != nil {
		return err
	}
	if pruned == nil {
		pruned = []string{}
	}
	if wantJSON(c) {
		return writeJSON(io.Stdout, struct {
			Pruned []string `json:"pruned"`
		}{pruned})
	}
	fmt.Fprintf(io.Stdout, "dropped the words of %d decided proposal(s) decided before %s\n", len(pruned), now.Add(-age).UTC().Format(teaching.TimeLayout))
	return nil
}

// parseAge reads a Go duration, or a whole number of days ("30d").
func parseAge(s string) (time.Duration, error) {
	if days, ok := strings.CutSuffix(s, "d"); ok {
		n, err := strconv.Atoi(days)
		if err != nil || n < 0 {
			return 0, fmt.Errorf("%q is not a number of days", s)
		}
		return time.Duration(n) * 24 * time.Hour, nil
	}
	d, err := time.ParseDuration(s)
	if err == nil && d < 0 {
		err = fmt.Errorf("%q is negative", s)
	}
	return d, err
}
