package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/urfave/cli/v2"

	"formation/canon"
	"formation/internal/exitcode"
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
{"schema_version","files":[{"path","kind","valid","reason"}]}).

  report   a self-sealed report: a *.mastery_report.json file, or any document
           with a report_sha256 field; valid when its seal verifies.
  pack     a document with mastery_report_sha256: valid when the companion
           <pack>.mastery_report.json beside it exists, its seal verifies and
           it carries the same digest. Packs are read tolerantly (floats are
           allowed in a pack; only its companion report is sealed).
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
}

// VerifyOutput is the --json document of `formation verify`.
type VerifyOutput struct {
	SchemaVersion string        `json:"schema_version"`
	Files         []FileVerdict `json:"files"`
}

func runVerify(c *cli.Context, io IO) error {
	if err := requireArgs(c, 1, "FILE"); err != nil {
		return err
	}
	out := VerifyOutput{SchemaVersion: "1.0.0", Files: []FileVerdict{}}
	allValid := true
	trusted := globalString(c, flagTrustedKeys)
	for _, path := range c.Args().Slice() {
		v := VerifyFileWithKeys(path, trusted)
		allValid = allValid && v.Valid
		out.Files = append(out.Files, v)
	}
	if wantJSON(c) {
		if err := writeJSON(io.Stdout, out); err != nil {
			return err
		}
	} else {
		for _, f := range out.Files {
			verdict := "valid"
			if !f.Valid {
				verdict = "INVALID: " + f.Reason
			}
			fmt.Fprintf(io.Stdout, "%-7s %s  %s\n", f.Kind, f.Path, verdict)
		}
	}
	if !allValid {
		return quietExit(exitcode.SealInvalid)
	}
	return nil
}

// VerifyFile classifies one file and checks it, without trusted keys.
func VerifyFile(path string) FileVerdict { return VerifyFileWithKeys(path, "") }

// VerifyFileWithKeys classifies one file and checks it; promotion envelopes
// are checked against the trusted keys file.
func VerifyFileWithKeys(path, trustedKeys string) FileVerdict {
	v := FileVerdict{Path: path, Kind: "unknown"}
	doc, err := readTolerant(path)
	if err != nil {
		v.Reason = err.Error()
		return v
	}
	obj, _ := doc.(*canon.Object)
	switch {
	case strings.HasSuffix(filepath.Base(path), ".mastery_report.json") || (obj != nil && obj.Has(seal.DefaultField) && !obj.Has("mastery_report_sha256")):
		v.Kind = "report"
		r := seal.VerifySeal(doc, seal.DefaultField)
		v.Valid, v.Reason = r.Valid, r.Reason
	case obj != nil && obj.Has("mastery_report_sha256"):
		v.Kind = "pack"
		v.Valid, v.Reason = verifyPack(path, obj)
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

// CompanionReportPath is where a pack's mastery report lives.
func CompanionReportPath(packPath string) string {
	return strings.TrimSuffix(packPath, ".json") + ".mastery_report.json"
}

func verifyPack(path string, pack *canon.Object) (bool, string) {
	declared, ok := pack.String("mastery_report_sha256")
	if !ok || declared == "" {
		return false, "pack declares no mastery_report_sha256"
	}
	companion := CompanionReportPath(path)
	report, err := readTolerant(companion)
	if err != nil {
		return false, "companion report " + filepath.Base(companion) + ": " + err.Error()
	}
	r := seal.VerifySeal(report, seal.DefaultField)
	if !r.Valid {
		return false, "companion report: " + r.Reason
	}
	obj := report.(*canon.Object)
	if got, _ := obj.String(seal.DefaultField); got != declared {
		return false, fmt.Sprintf("pack names report %s but the companion is %s", declared, got)
	}
	return true, ""
}
