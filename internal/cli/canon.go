package cli

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"

	"github.com/urfave/cli/v2"

	"formation/canon"
	"formation/internal/exitcode"
)

func canonCommand(io IO) *cli.Command {
	return &cli.Command{
		Name:  "canon",
		Usage: "write the canonical JSON of the document on stdin",
		Description: `Reads one JSON document on stdin and writes its canonical bytes to stdout,
with no trailing newline: keys sorted by code point, no whitespace, raw UTF-8,
integers only. --sha256 prints the lowercase hex SHA-256 of those bytes and a
newline instead. Input that has no canonical form (floats, duplicate keys,
invalid UTF-8, lone surrogates, trailing data, nesting deeper than 512 or
integers longer than 4300 digits) exits 65 with the reason on stderr.`,
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "sha256", Usage: "print the digest instead of the bytes"},
		},
		Action: func(c *cli.Context) error { return runCanon(c, io) },
	}
}

func runCanon(c *cli.Context, iox IO) error {
	in, err := io.ReadAll(iox.Stdin)
	if err != nil {
		return fmt.Errorf("canon: read stdin: %w", err)
	}
	v, err := canon.Decode(in)
	if err != nil {
		return exitcode.With(exitcode.Rejected, fmt.Errorf("canon: %w", err))
	}
	out, err := canon.Marshal(v)
	if err != nil {
		return exitcode.With(exitcode.Rejected, fmt.Errorf("canon: %w", err))
	}
	if c.Bool("sha256") {
		sum := sha256.Sum256(out)
		_, err = fmt.Fprintln(iox.Stdout, hex.EncodeToString(sum[:]))
		return err
	}
	_, err = iox.Stdout.Write(out)
	return err
}
