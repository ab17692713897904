package cli

import (
	"crypto/ed25519"
	"errors"
	"fmt"

	"github.com/urfave/cli/v2"

	"formation/internal/exitcode"
	"formation/ledger"
	"formation/reviewers"
)

func claimCommand(io IO) *cli.Command {
	return &cli.Command{
		Name:  "claim",
		Usage: "audit-passed claims for the reviewer registry",
		Subcommands: []*cli.Command{{
			Name:  "sign",
			Usage: "sign an audit-passed claim over the current lane evidence and print the block to add",
			Description: `Computes the evidence digest of the domain's latest public and holdout results
of --lanes at --revision (the selection the ledger replays), refuses evidence
the promotion gate would reject (lanes not declared for the domain, missing,
stale-version or failing results: exit 65), signs the claim with the reviewer's
ed25519 key (--key: a key file from formation keygen, or PKCS#8 PEM) as a
DSSE envelope, and prints the YAML list item to add under
audit_passed_claims: in a schema_version 2 reviewers.yaml. With --registry,
the signer must be registered there with this very key and eval scope for
the domain (exit 77 otherwise).`,
			Flags: []cli.Flag{
				&cli.StringFlag{Name: "domain", Usage: "domain id"},
				&cli.StringSliceFlag{Name: "lanes", Usage: "evidence lanes (comma-separated or repeated)"},
				&cli.StringFlag{Name: "revision", Usage: "evidence revision label or git sha"},
				&cli.StringFlag{Name: "key", Usage: "the reviewer's private key file"},
				&cli.StringFlag{Name: "signer", Usage: "the reviewer_id the claim names in signed_by"},
				&cli.StringFlag{Name: "registry", Usage: "check the signer and key against this registry"},
			},
			Action: func(c *cli.Context) error { return runClaimSign(c, io) },
		}},
	}
}

// ClaimOutput is the --json document of `formation claim sign`.
type ClaimOutput struct {
	SchemaVersion    string             `json:"schema_version"`
	DomainID         string             `json:"domain_id"`
	EvidenceLanes    []string           `json:"evidence_lanes"`
	EvidenceRevision string             `json:"evidence_revision"`
	SignedBy         string             `json:"signed_by"`
	ClaimDigest      string             `json:"claim_digest"`
	Signature        reviewers.Envelope `json:"signature"`
	Block            string             `json:"block"`
}

func runClaimSign(c *cli.Context, io IO) error {
	domain, revision, keyPath, signer := c.String("domain"), c.String("revision"), c.String("key"), c.String("signer")
	lanes := c.StringSlice("lanes")
	if domain == "" || revision == "" || keyPath == "" || signer == "" || len(lanes) == 0 {
		return exitcode.Newf(exitcode.Usage, "claim sign: --domain, --lanes, --revision, --key and --signer are all required")
	}
	key, err := reviewers.LoadPrivateKey(keyPath)
	if err != nil {
		return exitcode.With(exitcode.Rejected, err)
	}
	if path := c.String("registry"); path != "" {
		if err := checkSigner(c, path, domain, signer, key); err != nil {
			return err
		}
	}
	s, err := openStore(c)
	if err != nil {
		return err
	}
	digest, err := ledger.EvidenceFor(c.Context, ledger.Sources{Store: s, CoursesDir: coursesDir(c)}, domain, revision, lanes)
	if err != nil {
		var ee *ledger.EvidenceError
		if errors.As(err, &ee) {
			return exitcode.With(exitcode.Rejected, err)
		}
		return inputError("claim sign", err)
	}
	claim, err := reviewers.SignClaim(reviewers.Claim{DomainID: domain, EvidenceLanes: lanes, EvidenceRevision: revision,
		SignedBy: signer, ClaimDigest: digest}, key)
	if err != nil {
		return err
	}
	block, err := reviewers.ClaimBlock(claim)
	if err != nil {
		return err
	}
	if wantJSON(c) {
		return emit(io, ClaimOutput{SchemaVersion: "1.0.0", DomainID: domain, EvidenceLanes: lanes, EvidenceRevision: revision,
			SignedBy: signer, ClaimDigest: digest, Signature: *claim.Signature, Block: block})
	}
	_, err = fmt.Fprint(io.Stdout, block)
	return err
}

// checkSigner wants the signer registered, with eval scope, under the
// public key of the signing key.
func checkSigner(c *cli.Context, path, domain, signer string, key ed25519.PrivateKey) error {
	reg, err := reviewers.Load(c.Context, path)
	if err != nil {
		return exitcode.With(exitcode.SealInvalid, err)
	}
	r, ok := reg.Resolve(signer)
	switch {
	case !ok:
		return exitcode.Newf(exitcode.SealInvalid, "claim sign: signer '%s' is not in %s", signer, path)
	case r.PublicKey == nil || !r.PublicKey.Equal(key.Public()):
		return exitcode.Newf(exitcode.SealInvalid, "claim sign: the key is not signer '%s''s registered public_key", signer)
	case !reg.CanReview(signer, domain, reviewers.ScopeEval):
		return exitcode.Newf(exitcode.SealInvalid, "claim sign: signer '%s' cannot review eval-scope artifacts for domain '%s'", signer, domain)
	}
	return nil
}
