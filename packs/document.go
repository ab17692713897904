package packs

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"formation/canon"
	"formation/ident"
)

// kind describes what differs between the safety and identity loaders: the
// word used in messages and the fields a pack must carry.
type kind struct {
	name           string   // "safety" or "identity"
	required       []string // in the order the original lists them
	notFoundSuffix string
}

func safetyKind() kind {
	return kind{
		name:           "safety",
		required:       []string{"pack_id", "version", "description", "schema_version", "boundary_ids"},
		notFoundSuffix: " — refusing to start without an operative safety pack",
	}
}

func identityKind() kind {
	return kind{
		name: "identity",
		required: []string{"pack_id", "version", "description", "schema_version",
			"alignment_threshold", "boundary_ids", "value_axes"},
	}
}

// envelope is what every pack carries, read and checked before the kind's own
// fields.
type envelope struct {
	obj                 *canon.Object
	path                string
	version             string
	description         string
	masteryReportSHA256 string
	ratified            bool
}

// readEnvelope runs the checks shared by both kinds, in the original's order:
// id, location, JSON, required fields, schema version, declared id, and (unless
// allowUnratified) the ratification block.
func readEnvelope(ctx context.Context, k kind, id string, searchPaths []string, allowUnratified bool) (*envelope, *fault) {
	if !validPackID(id) {
		return nil, newFault(ReasonInvalidPackID, nil, "invalid %s pack_id: %s", k.name, pyRepr(id))
	}
	path, f := locate(k, id, searchPaths)
	if f != nil {
		return nil, f
	}
	obj, f := readObject(ctx, k, path)
	if f != nil {
		return nil, f
	}
	env := &envelope{obj: obj, path: path}
	if f := checkHeader(k, id, env); f != nil {
		return nil, f
	}
	if allowUnratified {
		return env, nil
	}
	if f := verifyRatification(ctx, k, id, env); f != nil {
		return nil, f
	}
	env.ratified = true
	return env, nil
}

// validPackID keeps ids usable as file names and nothing more: the
// original's rule (non-empty, no "/" and no "..") tightened to the one id
// rule of Formation's keys, so no separator, backslash, NUL or leading dot
// gets in.
func validPackID(id string) bool { return ident.CheckID(id) == nil }

// locate finds <dir>/<id>.json in the first search path that has it.
func locate(k kind, id string, searchPaths []string) (string, *fault) {
	for _, dir := range searchPaths {
		candidate := filepath.Join(dir, id+".json")
		if _, err := os.Stat(candidate); err == nil {
			return candidate, nil
		}
	}
	return "", newFault(ReasonNotFound, nil, "%s pack %s not found in %s%s",
		k.name, pyRepr(id), pyList(searchPaths), k.notFoundSuffix)
}

// readBounded reads at most MaxPackBytes from path; a longer file is refused
// rather than truncated.
func readBounded(ctx context.Context, path string) ([]byte, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxPackBytes+1))
	if err != nil {
		return nil, err
	}
	if len(data) > MaxPackBytes {
		return nil, fmt.Errorf("file is larger than %d bytes", MaxPackBytes)
	}
	return data, nil
}

func readObject(ctx context.Context, k kind, path string) (*canon.Object, *fault) {
	data, err := readBounded(ctx, path)
	if err != nil {
		reason := ReasonUnreadable
		if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
			reason = ReasonCanceled
		}
		return nil, newFault(reason, err, "failed to read %s pack %s: %v", k.name, path, err)
	}
	doc, err := canon.DecodeTolerant(data)
	if err != nil {
		return nil, newFault(ReasonUnreadable, err, "failed to read %s pack %s: %v", k.name, path, err)
	}
	obj, ok := doc.(*canon.Object)
	if !ok {
		return nil, newFault(ReasonNotObject, nil, "%s pack %s did not deserialize to a dict", k.name, path)
	}
	return obj, nil
}

// checkHeader checks presence of the required fields, the schema version, the
// declared id and the types of the envelope's strings.
func checkHeader(k kind, id string, env *envelope) *fault {
	var missing []string
	for _, field := range k.required {
		if !env.obj.Has(field) {
			missing = append(missing, field)
		}
	}
	if len(missing) > 0 {
		return newFault(ReasonMissingFields, nil, "%s pack %s missing required fields: %s", k.name, pyRepr(id), pyList(missing))
	}
	if v, ok := env.obj.String("schema_version"); !ok || v != SchemaVersion {
		return newFault(ReasonUnsupportedSchema, nil, "%s pack %s: unsupported schema_version %s",
			k.name, pyRepr(id), pyValue(env.obj, "schema_version"))
	}
	if declared, ok := env.obj.String("pack_id"); !ok || declared != id {
		return newFault(ReasonPackIDMismatch, nil, "%s pack file declares pack_id=%s but was requested as %s",
			k.name, pyValue(env.obj, "pack_id"), pyRepr(id))
	}
	var f *fault
	env.version, f = stringField(k, id, env.obj, "version", false)
	if f != nil {
		return f
	}
	env.description, f = stringField(k, id, env.obj, "description", false)
	if f != nil {
		return f
	}
	env.masteryReportSHA256, f = stringField(k, id, env.obj, "mastery_report_sha256", true)
	return f
}

// stringField reads a string field; optional fields default to "".
func stringField(k kind, id string, obj *canon.Object, field string, optional bool) (string, *fault) {
	v, present := obj.Get(field)
	if !present && optional {
		return "", nil
	}
	s, ok := v.(string)
	if !ok {
		return "", newFault(ReasonInvalidField, nil, "%s pack %s: %s must be a string", k.name, pyRepr(id), field)
	}
	return s, nil
}

// verifyRatification is the production block: VerifyRatification, the one
// check that a pack is ratified.
func verifyRatification(ctx context.Context, k kind, id string, env *envelope) *fault {
	_, f := ratification(ctx, k.name, id, env.path, env.obj)
	return f
}

// prefix is the first n characters of s, as Python's s[:n] would cut it.
func prefix(s string, n int) string {
	for i := range s {
		if n == 0 {
			return s[:i]
		}
		n--
	}
	return s
}

// pyValue renders the value of field roughly as Python's repr would, for
// messages: strings quoted, booleans and null capitalised.
func pyValue(obj *canon.Object, field string) string {
	v, ok := obj.Get(field)
	if !ok {
		return "None"
	}
	switch x := v.(type) {
	case nil:
		return "None"
	case bool:
		if x {
			return "True"
		}
		return "False"
	case string:
		return pyRepr(x)
	case canon.Number:
		return string(x)
	case canon.Float:
		return string(x)
	case []any:
		return "<list>"
	case *canon.Object:
		return "<dict>"
	}
	return fmt.Sprintf("<%T>", v)
}
