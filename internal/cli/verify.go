package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/urfave/cli/v2"

	"formation/canon"
	"formation/internal/exitcode"
	"formation/packs"
	"formation/reviewed"
	"formation/seal"
	"formation/signing"
)

func verifyCommand(io IO) *cli.Command {
	return &cli.Command{
		Name:      "verify",
		Usage:     "check the seals of mastery reports and the ratification of packs",
		ArgsUsage: "FILE...",
		Description: `Checks each file and prints one line per file (or, with --json, one document
{"schema_version","files":[{"path","kind","valid","reason","code"}]}).

  report   a self-sealed report: a *.mastery_report.json file, or any document
           with a report_sha256 field; valid when its seal verifies.
  pack     a document with mastery_report_sha256 (or with a pack_id and the
           fields of a safety or identity pack): valid when it is ratified,
           judged by the runtime's own check. Its companion
           <pack>.mastery_report.json must exist, carry the digest the pack
           declares, verify its seal and say ratified=true; a safety or
           identity pack's report must also be of this pack (its course names
           the pack, its source_bundle_sha is the pack's content digest: an
           edited pack is stale), and such a pack must pass every other check
           of the runtime's loader under its own name, <pack_id>.json. An
           invalid pack shows the runtime's reason code (pack_not_ratified,
           companion_report_seal_invalid, ...; see packs/README.md): verify
           refuses exactly the packs that ask, chat and run refuse. Floats are
           allowed in a pack (read tolerantly); only its report is sealed.
  envelope a DSSE envelope of a promotion (payloadType, payload, signatures):
           valid when its signature verifies, offline, against a key of
           --trusted-keys FILE (a promotion signed by any other key is invalid).
  unknown  anything else: invalid.

Exits 0 when every file is valid, 77 otherwise.`,
		Action: func(c *cli.Context) error { return runVerify(c, io) },
	}
}

// FileVerdict is one line of `formation verify`.
type FileVerdict struct {
	Path   string `json:"path"`
	Kind   string `json:"kind"`
	Valid  bool   `json:"valid"`
	Reason string `json:"reason"`
	Code   string `json:"code,omitempty"` // an invalid pack's reason code, as the runtime names it
}

// VerifyOutput is the --json document of `formation verify`.
type VerifyOutput struct {
	SchemaVersion string        `json:"schema_version"`
	Files         []FileVerdict `json:"files"`
}

func runVerify(c *cli.Context, io IO) error {
	out := VerifyOutput{SchemaVersion: "1.0.0", Files: []FileVerdict{}}
	invalid := 0
	trusted := globalString(c, flagTrustedKeys)
	for _, path := range c.Args().Slice() {
		v := VerifyFileWithKeys(c.Context, path, trusted)
		if !v.Valid {
			invalid++
		}
		out.Files = append(out.Files, v)
	}
	if wantJSON(c) {
		if err := emit(io, out); err != nil {
			return err
		}
	} else {
		for _, f := range out.Files {
			verdict := "valid"
			switch {
			case !f.Valid && f.Code != "":
				verdict = "INVALID: " + f.Code + ": " + f.Reason
			case !f.Valid:
				verdict = "INVALID: " + f.Reason
			}
			fmt.Fprintf(io.Stdout, "%-7s %s  %s\n", f.Kind, f.Path, verdict)
		}
	}
	if invalid > 0 {
		return quietExit(exitcode.SealInvalid, fmt.Sprintf("%d of %d file(s) invalid", invalid, len(out.Files)))
	}
	return nil
}

// VerifyFile classifies one file and checks it, without trusted keys.
func VerifyFile(ctx context.Context, path string) FileVerdict {
	return VerifyFileWithKeys(ctx, path, "")
}

// VerifyFileWithKeys classifies one file and checks it; promotion envelopes
// are checked against the trusted keys file.
func VerifyFileWithKeys(ctx context.Context, path, trustedKeys string) FileVerdict {
	v := FileVerdict{Path: path, Kind: "unknown"}
	doc, err := readTolerant(path)
	if err != nil {
		v.Reason = err.Error()
		return v
	}
	obj, _ := doc.(*canon.Object)
	switch {
	case packs.IsCompanionReport(filepath.Base(path)) || (obj != nil && obj.Has(seal.DefaultField) && !obj.Has("mastery_report_sha256")):
		v.Kind = "report"
		r := seal.VerifySeal(doc, seal.DefaultField)
		v.Valid, v.Reason = r.Valid, r.Reason
	case obj != nil && (obj.Has("mastery_report_sha256") || obj.Has("pack_id") && packs.KindOf(obj) != ""):
		v.Kind = "pack"
		if _, err := packs.VerifyPackFile(ctx, path, obj); err != nil {
			code, _ := packs.ReasonOf(err)
			v.Reason, v.Code = err.Error(), string(code)
		} else {
			v.Valid = true
		}
	case signing.LooksLikeEnvelope(doc):
		v.Kind = "envelope"
		v.Valid, v.Reason = reviewed.VerifyEnvelopeFile(path, trustedKeys)
	default:
		v.Reason = "not a sealed report or a pack"
	}
	return v
}

func readTolerant(path string) (any, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read: %w", err)
	}
	doc, err := canon.DecodeTolerant(raw)
	if err != nil {
		return nil, fmt.Errorf("not JSON: %w", err)
	}
	return doc, nil
}
