package cli

import (
	"context"
	"fmt"
	"os"

	"github.com/urfave/cli/v2"

	"formation/artifact"
	"formation/canon"
	"formation/compose"
	"formation/internal/exitcode"
	"formation/pipeline"
	"formation/stage"
)

func composeCommand(io IO) *cli.Command {
	cmd := stageCommand(io, "compose", "render the subject's validated set into a course (canonical YAML)",
		[]cli.Flag{
			&cli.StringFlag{Name: "template", Usage: "definition, composed_relation, procedural, falsification or identity_anchor (default: subject.yaml)"},
			&cli.StringFlag{Name: "vts", Usage: "file form: a ValidatedTripleSet JSON file (no store, no subject folder)"},
			&cli.StringFlag{Name: "spec", Usage: "file form: a SubjectSpec JSON file"},
			&cli.StringFlag{Name: "bundle", Usage: "file form: the source_bundle_sha", Value: zeroSHA},
		},
		func(ctx context.Context, c *cli.Context, p *pipeline.Pipeline, subject string) (stage.Result, error) {
			p.Template = c.String("template")
			return p.Compose(ctx, subject)
		})
	storeAction := cmd.Action
	cmd.ArgsUsage = "[SUBJECT]"
	cmd.Action = func(c *cli.Context) error {
		if c.String("vts") != "" || c.String("spec") != "" {
			return composeFiles(c, io)
		}
		return storeAction(c)
	}
	return cmd
}

const zeroSHA = "0000000000000000000000000000000000000000000000000000000000000000"

// composeFiles is compose's file form: it reads the set and the spec from
// files and writes the YAML to stdout (or, with --json, the Course record
// with the YAML as a string).
func composeFiles(c *cli.Context, io IO) error {
	if c.String("vts") == "" || c.String("spec") == "" || c.String("template") == "" {
		return exitcode.Newf(exitcode.Usage, "compose: the file form needs --vts, --spec and --template")
	}
	vts, err := readArtifactFile[artifact.ValidatedTripleSet](c.String("vts"))
	if err != nil {
		return err
	}
	spec, err := readArtifactFile[artifact.SubjectSpec](c.String("spec"))
	if err != nil {
		return err
	}
	version, err := compose.TemplateVersion(c.String("template"))
	if err != nil {
		return exitcode.With(exitcode.Usage, err)
	}
	course, yaml, err := compose.Compose(vts, spec, c.String("bundle"), c.String("template"), version)
	if err != nil {
		return exitcode.With(exitcode.Rejected, err)
	}
	if wantJSON(c) {
		return emit(io, map[string]any{"course": course, "yaml": string(yaml)})
	}
	_, err = io.Stdout.Write(yaml)
	return err
}

// readArtifactFile reads a JSON file strictly into T (any JSON layout; the
// content must be canonicalisable: no floats, no duplicate keys).
func readArtifactFile[T any](path string) (T, error) {
	var zero T
	raw, err := os.ReadFile(path)
	if err != nil {
		return zero, exitcode.With(exitcode.NotFound, err)
	}
	var v T
	if err := canon.Unmarshal(raw, &v); err != nil {
		return zero, exitcode.With(exitcode.Rejected, fmt.Errorf("%s: %w", path, err))
	}
	return v, nil
}
