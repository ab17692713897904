package teaching

import (
	"bytes"
	"crypto/ed25519"
	"encoding/base64"
	"errors"
	"fmt"
	"time"

	"formation/canon"
	"formation/ident"
	"formation/internal/exitcode"
	"formation/runtime/epistemic"
	"formation/signing"
)

// Verdict is what a curator decided.
type Verdict string

// The verdicts.
const (
	Accepted Verdict = "accepted"
	Rejected Verdict = "rejected"
)

// Reason is a curator's argument: a closed set of coherence arguments. There
// is no reason that appeals to who said a thing, how many say it or what
// credentials they hold, and no "other".
type Reason string

// The reasons, each with the verdict and status it gives.
const (
	// Coheres: the proposal fits the reviewed knowledge. Accepted, Coherent.
	Coheres Reason = "coheres"
	// ContradictsReviewed: it is incoherent with a reviewed claim. Rejected,
	// Contested.
	ContradictsReviewed Reason = "contradicts_reviewed"
	// Falsified: it is incoherent with accumulated reviewed evidence.
	// Rejected, Falsified.
	Falsified Reason = "falsified"
	// NotAClaim: the words make no claim about the subject. Rejected, status
	// unchanged.
	NotAClaim Reason = "not_a_claim"
	// Duplicate: the reviewed knowledge, or an earlier proposal, already has
	// it. Rejected, status unchanged.
	Duplicate Reason = "duplicate"
)

// Reasons lists the reasons in a fixed order.
func Reasons() []Reason {
	return []Reason{Coheres, ContradictsReviewed, Falsified, NotAClaim, Duplicate}
}

// ParseReason reads a reason; anything outside the set is refused (65).
func ParseReason(s string) (Reason, error) {
	for _, r := range Reasons() {
		if string(r) == s {
			return r, nil
		}
	}
	return "", refuse(exitcode.Usage, ReasonUnknownReason, "%q is not one of %v", s, Reasons())
}

// Verdict is the verdict the reason gives: only Coheres accepts.
func (r Reason) Verdict() Verdict {
	if r == Coheres {
		return Accepted
	}
	return Rejected
}

// Status is the status a proposal with status before has after a decision
// for this reason.
func (r Reason) Status(before epistemic.Status) epistemic.Status {
	switch r {
	case Coheres:
		return epistemic.Coherent
	case ContradictsReviewed:
		return epistemic.Contested
	case Falsified:
		return epistemic.Falsified
	}
	return before
}

// PayloadType is the DSSE payload type of a signed decision.
const PayloadType = "application/vnd.formation.proposal-decision+json"

// Decision is a curator's signed decision of one proposal.
type Decision struct {
	Verdict Verdict `json:"verdict"`
	Reason  Reason  `json:"reason"`
	// Coherence is the coherence the curator saw: Judge against the
	// reviewed knowledge when deciding.
	Coherence Coherence `json:"coherence"`
	// Reviewer is the reviewer_id of the registry entry whose key signed.
	Reviewer string `json:"reviewer"`
	// KeyID and PublicKey (standard base64) name the signing key, so a
	// decision verifies offline; the registry decides whether it may sign.
	KeyID     string           `json:"key_id"`
	PublicKey string           `json:"public_key"`
	DecidedAt string           `json:"decided_at"`
	Signature signing.Envelope `json:"signature"`
}

// Statement is what a reviewer signs: the canonical JSON of the decision of
// one proposal.
type Statement struct {
	Proposal        string           `json:"proposal"`
	Verdict         Verdict          `json:"verdict"`
	Reason          Reason           `json:"reason"`
	EpistemicStatus epistemic.Status `json:"epistemic_status"`
	Coherence       epistemic.Status `json:"coherence"`
	Reviewer        string           `json:"reviewer"`
	KeyID           string           `json:"key_id"`
	DecidedAt       string           `json:"decided_at"`
}

func (d Decision) clone() Decision {
	d.Coherence = d.Coherence.clone()
	d.Signature.Signatures = append([]signing.Signature(nil), d.Signature.Signatures...)
	return d
}

// Reviewer is who decides: the registry id and the private key of an entry
// that has the proposal scope (the caller checks the registry).
type Reviewer struct {
	ID  string
	Key ed25519.PrivateKey
}

// Decide returns the decided copy of the proposal p (whose id is id) for
// reason: p.WithStatus(reason's status), naming id, with the decision signed
// by rev. p itself is not changed. Accepting (Coheres) a proposal that coh
// does not find Coherent is refused, and so is a reason that does not belong
// to the verb (accept takes Coheres; reject every other reason).
func Decide(p Proposal, id string, accept bool, reason Reason, coh Coherence, rev Reviewer, at time.Time) (Proposal, error) {
	if !p.Original() {
		return Proposal{}, refuse(exitcode.Rejected, ReasonAlreadyDecided, "proposal %s is already decided", short(id))
	}
	if err := checkVerb(accept, reason); err != nil {
		return Proposal{}, err
	}
	if reason == Coheres && coh.Status != epistemic.Coherent {
		return Proposal{}, refuse(exitcode.Rejected, ReasonIncoherentAccept,
			"proposal %s is %s against the reviewed knowledge (%s); a curator may not accept it as coherent",
			short(id), coh.Status, coh.Summary())
	}
	pub, ok := rev.Key.Public().(ed25519.PublicKey)
	if !ok || len(rev.Key) != ed25519.PrivateKeySize || ident.CheckID(rev.ID) != nil {
		return Proposal{}, errors.New("teaching: decide: a reviewer needs a registry id and an ed25519 key")
	}
	out := p.WithStatus(reason.Status(p.EpistemicStatus))
	out.Proposal = id
	d := Decision{Verdict: reason.Verdict(), Reason: reason, Coherence: coh.clone(), Reviewer: rev.ID,
		KeyID: signing.KeyID(pub), PublicKey: base64.StdEncoding.EncodeToString(pub), DecidedAt: at.UTC().Format(TimeLayout)}
	payload, err := canon.Marshal(d.statement(id, out.EpistemicStatus))
	if err != nil {
		return Proposal{}, fmt.Errorf("teaching: decide: %w", err)
	}
	sig := ed25519.Sign(rev.Key, signing.PAE(PayloadType, payload))
	d.Signature = signing.Envelope{PayloadType: PayloadType, Payload: base64.StdEncoding.EncodeToString(payload),
		Signatures: []signing.Signature{{KeyID: d.KeyID, Sig: base64.StdEncoding.EncodeToString(sig)}}}
	out.Decision = &d
	if err := out.Check(); err != nil {
		return Proposal{}, err
	}
	return out, nil
}

// checkVerb: accept takes Coheres; reject takes every other reason.
func checkVerb(accept bool, r Reason) error {
	switch {
	case accept && r != Coheres:
		return refuse(exitcode.Usage, ReasonWrongVerb, "accept takes the reason %s; %s is a reason to reject", Coheres, r)
	case !accept && r == Coheres:
		return refuse(exitcode.Usage, ReasonWrongVerb, "reject takes %s, %s, %s or %s; %s is the reason to accept",
			ContradictsReviewed, Falsified, NotAClaim, Duplicate, Coheres)
	}
	return nil
}

func (d Decision) statement(id string, status epistemic.Status) Statement {
	return Statement{Proposal: id, Verdict: d.Verdict, Reason: d.Reason, EpistemicStatus: status,
		Coherence: d.Coherence.Status, Reviewer: d.Reviewer, KeyID: d.KeyID, DecidedAt: d.DecidedAt}
}

// check validates a decision's fields (not its signature).
func (d Decision) check() error {
	if _, err := ParseReason(string(d.Reason)); err != nil {
		return err
	}
	switch {
	case d.Verdict != d.Reason.Verdict():
		return fmt.Errorf("verdict %q does not follow from reason %q", d.Verdict, d.Reason)
	case !d.Coherence.Status.Valid() || d.Coherence.Status == epistemic.Speculative:
		return fmt.Errorf("coherence %q", d.Coherence.Status)
	case ident.CheckID(d.Reviewer) != nil:
		return fmt.Errorf("reviewer %q", d.Reviewer)
	case !ident.ValidDigest(d.KeyID):
		return fmt.Errorf("key_id %q is not a digest", d.KeyID)
	}
	if _, err := time.Parse(TimeLayout, d.DecidedAt); err != nil {
		return fmt.Errorf("decided_at %q is not %s", d.DecidedAt, TimeLayout)
	}
	return nil
}

// PublicKeyOf is the decision's signing key, checked against its key id.
func (d Decision) PublicKeyOf() (ed25519.PublicKey, error) {
	raw, err := base64.StdEncoding.Strict().DecodeString(d.PublicKey)
	if err != nil || len(raw) != ed25519.PublicKeySize || signing.KeyID(raw) != d.KeyID {
		return nil, refuse(exitcode.SealInvalid, ReasonSignature, "public_key is not the base64 of the key %s", short(d.KeyID))
	}
	return ed25519.PublicKey(raw), nil
}

// VerifyDecision checks the decision of a decided record: its one signature
// is by the key it names and verifies over exactly the statement its fields
// make. Any failure is ReasonSignature (77). Whether that key may decide
// proposals is the registry's question, not this one.
func VerifyDecision(p Proposal) error {
	if p.Decision == nil {
		return refuse(exitcode.Rejected, ReasonNotDecided, "the record carries no decision")
	}
	d := p.Decision
	pub, err := d.PublicKeyOf()
	if err != nil {
		return err
	}
	env := d.Signature
	want, err := canon.Marshal(d.statement(p.Proposal, p.EpistemicStatus))
	if err != nil {
		return fmt.Errorf("teaching: verify: %w", err)
	}
	payload, err := base64.StdEncoding.Strict().DecodeString(env.Payload)
	switch {
	case env.PayloadType != PayloadType:
		return refuse(exitcode.SealInvalid, ReasonSignature, "payloadType %q, want %q", env.PayloadType, PayloadType)
	case err != nil || !bytes.Equal(payload, want):
		return refuse(exitcode.SealInvalid, ReasonSignature, "the signed statement is not the record's decision")
	case len(env.Signatures) != 1 || env.Signatures[0].KeyID != d.KeyID:
		return refuse(exitcode.SealInvalid, ReasonSignature, "want exactly one signature, by key %s", short(d.KeyID))
	case !signing.Verify(pub, signing.PAE(PayloadType, payload), env.Signatures[0].Sig):
		return refuse(exitcode.SealInvalid, ReasonSignature, "the signature by key %s does not verify", short(d.KeyID))
	}
	return nil
}

// Pruned returns the copy of a decided record without the user's words,
// stamped with when they were dropped; its id and decision stay.
func Pruned(p Proposal, at time.Time) (Proposal, error) {
	if p.Decision == nil {
		return Proposal{}, refuse(exitcode.Rejected, ReasonNotDecided, "only a decided proposal is pruned")
	}
	out := p.WithStatus(p.EpistemicStatus)
	out.Words, out.PrunedAt = "", at.UTC().Format(TimeLayout)
	return out, out.Check()
}

func short(id string) string {
	if len(id) > 12 {
		return id[:12]
	}
	return id
}
