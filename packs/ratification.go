package packs

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"strings"

	"formation/canon"
	"formation/internal/exitcode"
	"formation/seal"
)

// The kinds of pack the runtime loads, named as their folders. Any other
// pack (a register, a lens, an ethics pack) has kind "".
const (
	KindSafety   = SafetyDir
	KindIdentity = IdentityDir
)

// KindOf names the kind of a pack document by its fields: value_axes make
// an identity pack, boundary_ids a safety pack; anything else is "".
func KindOf(pack *canon.Object) string {
	switch {
	case pack.Has("value_axes"):
		return KindIdentity
	case pack.Has("boundary_ids"):
		return KindSafety
	}
	return ""
}

// companionSuffix ends the file name of a pack's mastery report.
const companionSuffix = ".mastery_report.json"

// CompanionReportPath is where the mastery report of the pack file at
// packPath lives: beside it, <name>.mastery_report.json.
func CompanionReportPath(packPath string) string {
	return strings.TrimSuffix(packPath, ".json") + companionSuffix
}

// IsCompanionReport reports whether a file name is a pack's mastery report.
func IsCompanionReport(name string) bool { return strings.HasSuffix(name, companionSuffix) }

// RatificationError says why a pack is not ratified. The runtime's loaders
// report the same refusals inside a *SafetyPackError or *IdentityPackError.
type RatificationError struct {
	Reason Reason
	PackID string
	Detail string // the full message
	Err    error  // the underlying cause, when there is one
}

func (e *RatificationError) Error() string { return e.Detail }

// Unwrap exposes the cause to errors.Is and errors.As.
func (e *RatificationError) Unwrap() error { return e.Err }

// ExitCode is 77: a pack whose ratification does not verify is a seal that
// does not hold.
func (e *RatificationError) ExitCode() int { return exitcode.SealInvalid }

// ReasonCode is the refusal's reason code (exitcode.Reasoner).
func (e *RatificationError) ReasonCode() string { return string(e.Reason) }

// VerifyRatification is the one check that a pack is ratified. pack is the
// document read from path; kind is KindSafety, KindIdentity or "" and id the
// pack's id. It verifies, in this order, and refuses with the first failing
// condition's reason:
//
//   - the pack declares a non-empty mastery_report_sha256 (pack_not_ratified);
//   - the companion report exists beside it (companion_report_missing), is
//     JSON (companion_report_unreadable) and an object
//     (companion_report_not_object);
//   - the report's report_sha256 is the declared digest
//     (companion_report_sha_mismatch) and its self-seal verifies
//     (companion_report_seal_invalid);
//   - the report says ratified=true (pack_not_ratified);
//   - for a safety or identity pack, the report is of this pack: its
//     course_id names the pack (companion_report_other_pack) and its
//     source_bundle_sha is the pack's content digest, SourceSHA256
//     (companion_report_stale: the pack changed after it was ratified).
//
// It returns the verified report, or a *RatificationError.
func VerifyRatification(ctx context.Context, kind, id, path string, pack *canon.Object) (*canon.Object, error) {
	report, f := ratification(ctx, kind, id, path, pack)
	if f != nil {
		return nil, &RatificationError{Reason: f.reason, PackID: id, Detail: f.detail, Err: f.cause}
	}
	return report, nil
}

func ratification(ctx context.Context, kind, id, path string, pack *canon.Object) (*canon.Object, *fault) {
	name := packName(kind, id)
	declared, f := declaredDigest(name, pack)
	if f != nil {
		return nil, f
	}
	if declared == "" {
		return nil, newFault(ReasonNotRatified, nil, "%s is not ratified (mastery_report_sha256 empty); %s", name, ratifyHint(kind))
	}
	reportPath := CompanionReportPath(path)
	if _, err := os.Stat(reportPath); err != nil {
		return nil, newFault(ReasonReportMissing, err, "%s: companion report %s is missing", name, pyRepr(filepath.Base(reportPath)))
	}
	report, f := readReport(ctx, name, reportPath)
	if f != nil {
		return nil, f
	}
	claimed, _ := report.String(seal.DefaultField)
	if claimed != declared {
		return nil, newFault(ReasonReportSHAMismatch, nil, "%s: companion report SHA %s... does not match pack's declared %s...",
			name, prefix(claimed, 12), prefix(declared, 12))
	}
	if res := seal.VerifySeal(report, seal.DefaultField); !res.Valid {
		return nil, newFault(ReasonReportSealInvalid, nil, "%s: companion report failed self-seal verification (%s)", name, res.Reason)
	}
	if r, _ := report.Get("ratified"); r != true {
		return nil, newFault(ReasonNotRatified, nil, "%s: companion report has ratified=%s", name, pyValue(report, "ratified"))
	}
	if kind == KindSafety || kind == KindIdentity {
		if f := reportNamesPack(kind, id, name, report, pack); f != nil {
			return nil, f
		}
	}
	return report, nil
}

// packName is how messages name a pack: "safety pack 'x'", "pack 'x'".
func packName(kind, id string) string {
	if kind == "" {
		return "pack " + pyRepr(id)
	}
	return kind + " pack " + pyRepr(id)
}

func ratifyHint(kind string) string {
	if kind == "" {
		return "production refuses unratified packs."
	}
	return "production refuses unratified " + kind + " packs.  Ratify it with `formation pack ratify`."
}

// declaredDigest reads mastery_report_sha256, which may be absent ("").
func declaredDigest(name string, pack *canon.Object) (string, *fault) {
	v, present := pack.Get("mastery_report_sha256")
	if !present {
		return "", nil
	}
	s, ok := v.(string)
	if !ok {
		return "", newFault(ReasonInvalidField, nil, "%s: mastery_report_sha256 must be a string", name)
	}
	return s, nil
}

// readReport reads the companion report tolerantly: a float inside it must
// surface as a failed seal (canonical JSON cannot carry it), not as a read
// error, so that the reason names the real problem.
func readReport(ctx context.Context, name, path string) (*canon.Object, *fault) {
	data, err := readBounded(ctx, path)
	if err != nil {
		reason := ReasonReportUnreadable
		if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
			reason = ReasonCanceled
		}
		return nil, newFault(reason, err, "%s: failed to read companion report: %v", name, err)
	}
	doc, err := canon.DecodeTolerant(data)
	if err != nil {
		return nil, newFault(ReasonReportUnreadable, err, "%s: failed to read companion report: %v", name, err)
	}
	report, ok := doc.(*canon.Object)
	if !ok {
		return nil, newFault(ReasonReportNotObject, nil, "%s: companion report is not a JSON object", name)
	}
	return report, nil
}

// reportNamesPack binds a safety or identity pack's report to the pack: pack
// ratification names its course course.subject.<kind>.<id>.… and takes the
// pack's content digest as its source bundle. The original's reports follow
// the same rule, so its packs pass too.
func reportNamesPack(kind, id, name string, report, pack *canon.Object) *fault {
	course, _ := report.String("course_id")
	if !strings.HasPrefix(course, "course.subject."+kind+"."+id+".") {
		return newFault(ReasonReportOtherPack, nil, "%s: companion report ratified course %s, not this pack",
			name, pyValue(report, "course_id"))
	}
	source, err := SourceSHA256(pack)
	if err != nil {
		return newFault(ReasonReportStale, err, "%s: its content digest cannot be computed: %v", name, err)
	}
	if ratified, _ := report.String("source_bundle_sha"); ratified != source {
		return newFault(ReasonReportStale, nil, "%s: content %s... is not what its companion report ratified (%s...); %s",
			name, prefix(source, 12), prefix(ratified, 12), "ratify it again with `formation pack ratify`")
	}
	return nil
}

// SourceSHA256 is the content digest of a pack, the source its ratification
// reads: the SHA-256 of its canonical JSON with mastery_report_sha256 blanked
// (the digest cannot cover itself). A float, which canonical JSON refuses, is
// written as the text it has in the file — how the original, which wrote its
// floats as Python prints them, digested its packs.
func SourceSHA256(pack *canon.Object) (string, error) {
	blank := pack.Clone()
	blank.Set("mastery_report_sha256", "")
	b, err := appendSource(nil, blank)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:]), nil
}

// appendSource appends the canonical JSON of v, floats as their text.
func appendSource(buf []byte, v any) ([]byte, error) {
	switch x := v.(type) {
	case canon.Float:
		return append(buf, x...), nil
	case *canon.Object:
		buf = append(buf, '{')
		for i, k := range x.SortedKeys() {
			if i > 0 {
				buf = append(buf, ',')
			}
			var err error
			if buf, err = canon.AppendMarshal(buf, k); err != nil {
				return nil, err
			}
			buf = append(buf, ':')
			val, _ := x.Get(k)
			if buf, err = appendSource(buf, val); err != nil {
				return nil, err
			}
		}
		return append(buf, '}'), nil
	case []any:
		buf = append(buf, '[')
		for i, item := range x {
			if i > 0 {
				buf = append(buf, ',')
			}
			var err error
			if buf, err = appendSource(buf, item); err != nil {
				return nil, err
			}
		}
		return append(buf, ']'), nil
	}
	return canon.AppendMarshal(buf, v)
}
