package cli

import (
	"crypto/ed25519"
	"encoding/base64"
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/urfave/cli/v2"

	"formation/artifact"
	"formation/internal/exitcode"
	"formation/reviewers"
	"formation/signing"
)

func reviewersCommand(io IO) *cli.Command {
	return &cli.Command{
		Name:  "reviewers",
		Usage: "the reviewer registry (reviewers.yaml)",
		Subcommands: []*cli.Command{
			{
				Name:      "check",
				Usage:     "validate a registry and verify its claims' signatures",
				ArgsUsage: "FILE",
				Description: `Loads FILE with the registry's schema (schema_version 1: the original's
format, whose claims are unsigned and can never pass; schema_version 2:
reviewers carry ed25519 public keys and claims DSSE signatures) and verifies
every claim's signature against its signer's key. Exits 0 when the file is
valid and no signed claim fails, 77 otherwise.`,
				Action: func(c *cli.Context) error { return runReviewersCheck(c, io) },
			},
			{
				Name:  "init",
				Usage: "write a new schema_version 2 registry with one reviewer",
				Description: `Creates --out (never overwriting it) with one reviewer whose public_key is
taken from --public-key, a FILE.pub written by formation keygen. Claims are
added later with formation claim sign.`,
				Flags: []cli.Flag{
					&cli.StringFlag{Name: "out", Usage: "registry file to create"},
					&cli.StringFlag{Name: "id", Usage: "reviewer_id"},
					&cli.StringFlag{Name: "name", Usage: "display_name"},
					&cli.StringFlag{Name: "public-key", Usage: "the reviewer's FILE.pub (formation keygen)"},
					&cli.StringSliceFlag{Name: "domains", Usage: "domains of a domain reviewer (default: a primary reviewer of every domain)"},
					&cli.StringSliceFlag{Name: "scope", Value: cli.NewStringSlice(reviewers.ScopePack, reviewers.ScopeProposal, reviewers.ScopeChain, reviewers.ScopeEval),
						Usage: "review scopes"},
					&cli.StringFlag{Name: "provenance", Value: "formation reviewers init", Usage: "provenance text"},
				},
				Action: func(c *cli.Context) error { return runReviewersInit(c, io) },
			},
		},
	}
}

// ReviewersCheckOutput is the --json document of `formation reviewers check`.
type ReviewersCheckOutput struct {
	SchemaVersion         string        `json:"schema_version"`
	Path                  string        `json:"path"`
	Valid                 bool          `json:"valid"`
	Error                 string        `json:"error"`
	RegistrySchemaVersion int64         `json:"registry_schema_version"`
	Reviewers             []string      `json:"reviewers"`
	Claims                []ClaimStatus `json:"claims"`
}

// ClaimStatus is one claim's signature verdict.
type ClaimStatus struct {
	Domain   string `json:"domain"`
	SignedBy string `json:"signed_by"`
	Signed   bool   `json:"signed"` // carries a signature (schema 2)
	Verified bool   `json:"verified"`
	Reason   string `json:"reason"`
}

func runReviewersCheck(c *cli.Context, io IO) error {
	out := ReviewersCheckOutput{SchemaVersion: "1.0.0", Path: c.Args().First(), Reviewers: []string{}, Claims: []ClaimStatus{}}
	reg, lerr := reviewers.Load(c.Context, out.Path)
	if lerr != nil {
		out.Error = lerr.Error()
	} else {
		out.Valid, out.RegistrySchemaVersion = true, int64(reg.SchemaVersion())
		for _, r := range reg.Reviewers() {
			out.Reviewers = append(out.Reviewers, r.ID)
		}
		for _, cl := range reg.Claims() {
			st := ClaimStatus{Domain: cl.DomainID, SignedBy: cl.SignedBy, Signed: cl.Signature != nil}
			if verr := reg.VerifyClaim(cl); verr != nil {
				st.Reason = verr.Error()
			} else {
				st.Verified = true
			}
			out.Claims = append(out.Claims, st)
		}
	}
	if wantJSON(c) {
		if err := emit(io, out); err != nil {
			return err
		}
	} else {
		printReviewersCheck(io, out)
	}
	return reviewersCheckExit(out)
}

// reviewersCheckExit fails an invalid file and a signed claim that does not
// verify; a schema 1 claim is reported unsigned but does not fail the file.
func reviewersCheckExit(out ReviewersCheckOutput) error {
	if !out.Valid {
		return quietExit(exitcode.SealInvalid, out.Path+": invalid registry: "+out.Error)
	}
	for _, cl := range out.Claims {
		if cl.Signed && !cl.Verified {
			return quietExit(exitcode.SealInvalid, "claim "+cl.Domain+" by "+cl.SignedBy+": "+cl.Reason)
		}
	}
	return nil
}

func printReviewersCheck(io IO, out ReviewersCheckOutput) {
	if !out.Valid {
		fmt.Fprintf(io.Stdout, "%s: INVALID: %s\n", out.Path, out.Error)
		return
	}
	fmt.Fprintf(io.Stdout, "%s: valid, schema_version %d, %d reviewer(s), %d claim(s)\n", out.Path, out.RegistrySchemaVersion, len(out.Reviewers), len(out.Claims))
	for _, cl := range out.Claims {
		verdict := "signature verifies"
		if !cl.Verified {
			verdict = "NOT VERIFIED: " + cl.Reason
		}
		fmt.Fprintf(io.Stdout, "  claim %s by %s: %s\n", cl.Domain, cl.SignedBy, verdict)
	}
}

func runReviewersInit(c *cli.Context, io IO) error {
	out, id, name, pubPath := c.String("out"), c.String("id"), c.String("name"), c.String("public-key")
	if out == "" || id == "" || name == "" || pubPath == "" {
		return exitcode.Newf(exitcode.Usage, "reviewers init: --out, --id, --name and --public-key are all required")
	}
	pub, err := readPublicKeyFile(pubPath)
	if err != nil {
		return err
	}
	r := reviewers.Reviewer{ID: id, DisplayName: name, Role: reviewers.RolePrimary, Domains: []string{reviewers.Wildcard},
		ReviewScope: c.StringSlice("scope"), Provenance: c.String("provenance"), PublicKey: pub}
	if ds := c.StringSlice("domains"); len(ds) > 0 {
		r.Role, r.Domains = reviewers.RoleDomain, ds
	}
	src, err := reviewers.Render(reviewers.SchemaV2, []reviewers.Reviewer{r}, nil)
	if err != nil {
		return err
	}
	if _, err := reviewers.Parse([]byte(src)); err != nil { // the same validation every reader applies
		return exitcode.With(exitcode.Rejected, err)
	}
	f, err := os.OpenFile(out, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if errors.Is(err, fs.ErrExist) {
		return exitcode.Newf(exitcode.Rejected, "reviewers init: %s already exists; a registry is never overwritten", out)
	}
	if err != nil {
		return fmt.Errorf("reviewers init: %w", err)
	}
	_, werr := f.WriteString(src)
	if err := errors.Join(werr, f.Close()); err != nil {
		return fmt.Errorf("reviewers init: write %s: %w", out, err)
	}
	fmt.Fprintf(io.Stderr, "wrote %s with reviewer %s (key %s)\n", out, id, reviewers.KeyID(pub)[:16])
	return nil
}

// readPublicKeyFile reads the one key of a keygen FILE.pub.
func readPublicKeyFile(path string) (ed25519.PublicKey, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, exitcode.With(exitcode.NotFound, fmt.Errorf("reviewers init: %w", err))
	}
	f, err := artifact.Decode[signing.TrustedKeysFile](raw)
	if err != nil || len(f.Keys) != 1 {
		return nil, exitcode.Newf(exitcode.Rejected, "reviewers init: %s is not a FILE.pub with exactly one key", path)
	}
	pub, err := base64.StdEncoding.Strict().DecodeString(f.Keys[0].PublicKey)
	if err != nil || len(pub) != ed25519.PublicKeySize || reviewers.KeyID(pub) != f.Keys[0].KeyID {
		return nil, exitcode.Newf(exitcode.Rejected, "reviewers init: %s holds a malformed public key", path)
	}
	return pub, nil
}
