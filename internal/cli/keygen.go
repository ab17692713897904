package cli

import (
	"crypto/rand"
	"fmt"

	"github.com/urfave/cli/v2"

	"formation/internal/exitcode"
	"formation/signing"
)

func keygenCommand(io IO) *cli.Command {
	return &cli.Command{
		Name:  "keygen",
		Usage: "make a curator ed25519 key pair for signing promotions",
		Description: `Writes the private key to FILE (mode 0600) and the public key to FILE.pub,
a trusted-keys file naming that one key (give it to verifiers with
--trusted-keys). Neither file may exist already. Formats: promote/README.md.`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "out", Usage: "private key file to create (FILE.pub is written beside it)"},
			&cli.StringFlag{Name: "label", Usage: "label of the key in FILE.pub"},
		},
		Action: func(c *cli.Context) error { return runKeygen(c, io) },
	}
}

// KeygenOutput is the --json document of `formation keygen`.
type KeygenOutput struct {
	SchemaVersion  string `json:"schema_version"`
	KeyID          string `json:"key_id"`
	PrivateKeyFile string `json:"private_key_file"`
	PublicKeyFile  string `json:"public_key_file"`
}

func runKeygen(c *cli.Context, io IO) error {
	out := c.String("out")
	if out == "" {
		return exitcode.Newf(exitcode.Usage, "keygen: give the key file with --out FILE")
	}
	k, err := signing.GenerateKey(rand.Reader)
	if err != nil {
		return err
	}
	if err := signing.WriteKeyFiles(out, k, c.String("label")); err != nil {
		return err
	}
	res := KeygenOutput{SchemaVersion: "1.0.0", KeyID: k.KeyID, PrivateKeyFile: out, PublicKeyFile: out + ".pub"}
	if wantJSON(c) {
		return emit(io, res)
	}
	fmt.Fprintf(io.Stdout, "key %s\n", res.KeyID)
	fmt.Fprintf(io.Stderr, "private key: %s (keep it secret; mode 0600)\npublic key:  %s (add it to the trusted keys)\n", res.PrivateKeyFile, res.PublicKeyFile)
	return nil
}
