package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"

	"formation/artifact"
	"formation/audit"
	"formation/canon"
	"formation/ident"
	"formation/internal/exitcode"
	"formation/reach"
	"formation/reviewed"
	"formation/store"
)

// minPrefix is the shortest hex prefix show accepts for an object digest.
const minPrefix = 6

func showCommand(io IO) *cli.Command {
	return &cli.Command{
		Name:      "show",
		Usage:     "print a stored artifact by ref or digest, as stored",
		ArgsUsage: "REF_OR_DIGEST",
		Description: `Prints the document a ref or digest names, like git cat-file -p: an
artifact's JSON indented for reading, other objects (course YAML, sources) as
they are. With --json the stored canonical JSON exactly (one document,
nothing around it); with --raw the stored bytes exactly. What was resolved
(the kind, the digest, the size) goes to stderr unless -q.

It resolves every identifier a verb prints: a ref name (subjects/optics/ratify,
knowledge/state, cache/last/optics/forge …; a ref holding a digest shows that
object, one holding JSON shows its value), an object digest or a unique
prefix of at least 6 hex characters (status prints 12), a stage-cache key
(--explain), a report's seal (report_sha256) and a validated_set_sha.

Exit 66 when nothing matches, 2 when a prefix is ambiguous.`,
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "raw", Usage: "print the stored bytes exactly"},
		},
		Action: func(c *cli.Context) error { return runShow(c, io) },
	}
}

// shown is what an identifier resolved to.
type shown struct {
	via    string // how it was found, e.g. "ref subjects/optics/ratify"
	digest string // the object, or "" for a ref's own value
	kind   string
	data   []byte
}

func runShow(c *cli.Context, io IO) error {
	if c.NArg() != 1 {
		return exitcode.Newf(exitcode.Usage, "show: give one REF or DIGEST (got %d arguments)", c.NArg())
	}
	s, err := openStore(c)
	if err != nil {
		return err
	}
	sh, err := resolve(c.Context, s, strings.TrimSpace(c.Args().First()))
	if err != nil {
		return err
	}
	if !quietFlag(c) {
		meta := sh.kind
		if sh.digest != "" {
			meta += " " + sh.digest
		}
		fmt.Fprintf(io.Stderr, "%s (%d bytes, %s)\n", meta, len(sh.data), sh.via)
	}
	switch {
	case c.Bool("raw"):
		_, err = io.Stdout.Write(sh.data)
	case wantJSON(c):
		if _, derr := canon.Decode(sh.data); derr != nil {
			return exitcode.Newf(exitcode.Rejected, "show --json: %s is not JSON (%s); use --raw", c.Args().First(), sh.kind)
		}
		_, err = io.Stdout.Write(append(bytes.Clone(sh.data), '\n'))
	default:
		_, err = io.Stdout.Write(readable(sh.data))
	}
	return err
}

// readable indents JSON; anything else is printed as it is.
func readable(data []byte) []byte {
	if _, err := canon.Decode(data); err != nil {
		return data
	}
	var b bytes.Buffer
	if err := json.Indent(&b, data, "", "  "); err != nil {
		return data
	}
	b.WriteByte('\n')
	return b.Bytes()
}

// resolve finds what an identifier names.
func resolve(ctx context.Context, s store.Store, id string) (shown, error) {
	if strings.Contains(id, "/") {
		return showRef(ctx, s, id)
	}
	if !ident.ValidDigest(id) {
		if !isHex(id) || len(id) < minPrefix {
			return shown{}, exitcode.Newf(exitcode.Usage,
				"show: %q is neither a ref name nor a digest (64 hex characters, or a prefix of at least %d)", id, minPrefix)
		}
		full, err := byPrefix(ctx, s, id)
		if err != nil {
			return shown{}, err
		}
		return showObject(ctx, s, full, "digest prefix "+id)
	}
	ok, err := s.Has(ctx, id)
	if err != nil {
		return shown{}, err
	}
	if ok {
		return showObject(ctx, s, id, "object")
	}
	for _, find := range []func(context.Context, store.Store, string) (shown, bool, error){byCacheKey, byValidatedSHA, bySeal} {
		sh, found, err := find(ctx, s, id)
		if err != nil || found {
			return sh, err
		}
	}
	return shown{}, exitcode.Newf(exitcode.NotFound,
		"show: %s is no object, cache key, report seal or validated_set_sha of this store", id)
}

func isHex(s string) bool {
	for i := 0; i < len(s); i++ {
		if !(s[i] >= '0' && s[i] <= '9' || s[i] >= 'a' && s[i] <= 'f') {
			return false
		}
	}
	return s != ""
}

// showRef shows the object a ref names or, for a ref holding JSON, its value.
func showRef(ctx context.Context, s store.Store, name string) (shown, error) {
	if err := store.ValidRefName(name); err != nil {
		return shown{}, exitcode.With(exitcode.Usage, err)
	}
	val, _, err := s.GetRef(ctx, name)
	if errors.Is(err, store.ErrNotFound) {
		return shown{}, exitcode.Newf(exitcode.NotFound, "show: no ref %s", name)
	}
	if err != nil {
		return shown{}, err
	}
	if d := strings.TrimSpace(string(val)); ident.ValidDigest(d) {
		return showObject(ctx, s, d, "ref "+name)
	}
	kind := refKind(name)
	if kind == "audit_batch" {
		// A large batch is stored compressed; show its records.
		if val, err = audit.Unpack(val); err != nil {
			return shown{}, exitcode.With(exitcode.Rejected, fmt.Errorf("show: ref %s: %w", name, err))
		}
	}
	return shown{via: "ref " + name, kind: kind, data: val}, nil
}

// refKind names what a ref that holds JSON is.
func refKind(name string) string {
	switch {
	case strings.HasPrefix(name, "cache/runs/"):
		return "last_run_note"
	case strings.HasPrefix(name, "cache/"):
		return "cache_record"
	case strings.HasPrefix(name, "audit/"):
		return "audit_batch"
	case strings.HasPrefix(name, "locks/"):
		return "lock"
	}
	return "ref_value"
}

func showObject(ctx context.Context, s store.Store, digest, via string) (shown, error) {
	data, err := s.Get(ctx, digest)
	if errors.Is(err, store.ErrNotFound) {
		return shown{}, exitcode.Newf(exitcode.NotFound, "show: %s names object %s, which the store does not hold", via, digest)
	}
	if err != nil {
		return shown{}, err
	}
	kind := string(reach.Sniff(data))
	if kind == "" {
		kind = "bytes"
	}
	return shown{via: via, digest: digest, kind: kind, data: data}, nil
}

// byPrefix finds the one object whose digest starts with prefix.
func byPrefix(ctx context.Context, s store.Store, prefix string) (string, error) {
	all, err := s.ListObjects(ctx)
	if err != nil {
		return "", err
	}
	var found []string
	for _, d := range all {
		if strings.HasPrefix(d, prefix) {
			found = append(found, d)
		}
	}
	switch len(found) {
	case 0:
		return "", exitcode.Newf(exitcode.NotFound, "show: no object starts with %s", prefix)
	case 1:
		return found[0], nil
	}
	return "", exitcode.Newf(exitcode.Usage, "show: %s is ambiguous: %s", prefix, strings.Join(found, ", "))
}

// byCacheKey finds the action record of a stage-cache key.
func byCacheKey(ctx context.Context, s store.Store, key string) (shown, bool, error) {
	names, err := s.ListRefs(ctx, "cache/")
	if err != nil {
		return shown{}, false, err
	}
	for _, n := range names {
		if strings.HasSuffix(n, "/"+key) {
			sh, err := showRef(ctx, s, n)
			return sh, err == nil, err
		}
	}
	return shown{}, false, nil
}

// byValidatedSHA follows the lookup index/validated/<sha>.
func byValidatedSHA(ctx context.Context, s store.Store, sha string) (shown, bool, error) {
	d, ok, err := reviewed.FindValidatedSet(ctx, s, sha)
	if err != nil || !ok {
		return shown{}, false, err
	}
	sh, err := showObject(ctx, s, d, "validated_set_sha "+sha)
	return sh, err == nil, err
}

// bySeal finds the stored report whose seal (report_sha256) is seal: among
// the subjects' ratify outputs and the reports the reviewed state promoted.
func bySeal(ctx context.Context, s store.Store, seal string) (shown, bool, error) {
	candidates, err := reportObjects(ctx, s)
	if err != nil {
		return shown{}, false, err
	}
	for _, d := range candidates {
		raw, err := s.Get(ctx, d)
		if err != nil {
			continue
		}
		if r, err := artifact.Decode[artifact.MasteryReport](raw); err == nil && r.ReportSHA256 == seal {
			sh, err := showObject(ctx, s, d, "report seal "+seal)
			return sh, err == nil, err
		}
	}
	return shown{}, false, nil
}

// reportObjects lists the report objects the store's refs lead to.
func reportObjects(ctx context.Context, s store.Store) ([]string, error) {
	names, err := s.ListRefs(ctx, "subjects/")
	if err != nil {
		return nil, err
	}
	var out []string
	for _, n := range names {
		if strings.HasSuffix(n, "/ratify") {
			if v, _, err := s.GetRef(ctx, n); err == nil {
				out = append(out, strings.TrimSpace(string(v)))
			}
		}
	}
	snap, err := reviewed.Load(ctx, s)
	if err != nil {
		return out, nil // an unreadable reviewed state: the subjects' reports still count
	}
	for _, env := range snap.State.Promotions {
		raw, err := s.Get(ctx, env.String())
		if err != nil {
			continue
		}
		if _, n, err := reach.Of(reach.Envelope, raw); err == nil {
			for _, e := range n.Objects {
				if e.Kind == reach.Report {
					out = append(out, e.Digest)
				}
			}
		}
	}
	return out, nil
}
