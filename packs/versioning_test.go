package packs

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"formation/canon"
	"formation/internal/exitcode"
)

func shippedDoc(t *testing.T, kind, id string) *canon.Object {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(shippedPacks(t), kind, id+".json"))
	if err != nil {
		t.Fatal(err)
	}
	doc, err := canon.DecodeTolerant(raw)
	if err != nil {
		t.Fatal(err)
	}
	return doc.(*canon.Object)
}

// edit returns a copy of doc changed by f.
func edit(doc *canon.Object, f func(o *canon.Object)) *canon.Object {
	c := doc.Clone()
	f(c)
	return c
}

func set(k string, v any) func(*canon.Object) { return func(o *canon.Object) { o.Set(k, v) } }

func both(fs ...func(*canon.Object)) func(*canon.Object) {
	return func(o *canon.Object) {
		for _, f := range fs {
			f(o)
		}
	}
}

// appendID adds a boundary (and, for safety packs, its description).
func appendID(id string) func(*canon.Object) {
	return func(o *canon.Object) {
		v, _ := o.Get("boundary_ids")
		o.Set("boundary_ids", append(append([]any{}, v.([]any)...), id))
		if d, ok := o.Get("boundary_descriptions"); ok {
			dd := d.(*canon.Object).Clone()
			dd.Set(id, "a new boundary")
			o.Set("boundary_descriptions", dd)
		}
	}
}

func dropFirstID(o *canon.Object) {
	v, _ := o.Get("boundary_ids")
	list := v.([]any)
	o.Set("boundary_ids", append([]any{}, list[1:]...))
	if d, ok := o.Get("boundary_descriptions"); ok {
		dd := d.(*canon.Object).Clone()
		dd.Delete(list[0].(string))
		o.Set("boundary_descriptions", dd)
	}
}

// axisEdit changes one field of the first axis.
func axisEdit(field string, value any) func(*canon.Object) {
	return func(o *canon.Object) {
		v, _ := o.Get("value_axes")
		axes := append([]any{}, v.([]any)...)
		first := axes[0].(*canon.Object).Clone()
		first.Set(field, value)
		axes[0] = first
		o.Set("value_axes", axes)
	}
}

func addAxis(o *canon.Object) {
	v, _ := o.Get("value_axes")
	axis := canon.NewObject()
	axis.Set("axis_id", "humility")
	axis.Set("name", "humility")
	axis.Set("direction", []any{canon.Number("0"), canon.Number("0"), canon.Number("1")})
	axis.Set("weight", canon.Number("1"))
	o.Set("value_axes", append(append([]any{}, v.([]any)...), axis))
}

func dropAxis(o *canon.Object) {
	v, _ := o.Get("value_axes")
	o.Set("value_axes", append([]any{}, v.([]any)[1:]...))
}

// TestVersioningPolicy: one row per rule, each with the right bump accepted
// and a wrong one refused with the rule's reason, for both kinds of pack.
func TestVersioningPolicy(t *testing.T) {
	safety := shippedDoc(t, KindSafety, "core_safety_axes_v1")
	identity := shippedDoc(t, KindIdentity, "default_general_v1")
	cases := []struct {
		name   string
		old    *canon.Object
		change func(*canon.Object)
		reason Reason // "" = accepted
	}{
		{"safety: nothing changed, same version", safety, func(*canon.Object) {}, ""},
		{"safety: ratification changed only", safety, set("mastery_report_sha256", "0"), ""},
		{"safety: version moved without a change", safety, set("version", "1.0.1"), ReasonBumpWithoutChange},
		{"safety: description edit, patch", safety, both(set("description", "Edited."), set("version", "1.0.1")), ""},
		{"safety: description edit, no bump", safety, set("description", "Edited."), ReasonBumpTooSmall},
		{"safety: description edit, minor", safety, both(set("description", "Edited."), set("version", "1.1.0")), ReasonBumpTooLarge},
		{"safety: boundary description edit, patch", safety, both(func(o *canon.Object) {
			d, _ := o.Get("boundary_descriptions")
			dd := d.(*canon.Object).Clone()
			dd.Set("no_hot_path_repair", "Edited.")
			o.Set("boundary_descriptions", dd)
		}, set("version", "1.0.1")), ""},
		{"safety: boundary added, minor", safety, both(appendID("no_secret_exfiltration"), set("version", "1.1.0")), ""},
		{"safety: boundary added, patch", safety, both(appendID("no_secret_exfiltration"), set("version", "1.0.1")), ReasonBumpTooSmall},
		{"safety: boundary added, renamed", safety, both(appendID("x_y"), set("version", "1.1.0"), set("pack_id", "core_safety_axes_v1b")), ReasonPackIDRenamed},
		{"safety: boundary removed, major and new id", safety, both(dropFirstID, set("version", "2.0.0"), set("pack_id", "core_safety_axes_v2")), ""},
		{"safety: boundary removed, major, same id", safety, both(dropFirstID, set("version", "2.0.0")), ReasonPackIDNotRenamed},
		{"safety: boundary removed, major, wrong suffix", safety, both(dropFirstID, set("version", "2.0.0"), set("pack_id", "core_safety_axes_v3")), ReasonPackIDWrongMajor},
		{"safety: boundary removed, minor", safety, both(dropFirstID, set("version", "1.1.0")), ReasonBumpTooSmall},
		{"safety: schema change, major, new schema and id", safety, both(set("schema_version", "2.0.0"), set("version", "2.0.0"), set("pack_id", "core_safety_axes_v2")), ""},
		{"safety: new field without a new schema_version", safety, both(set("severity", "high"), set("version", "2.0.0"), set("pack_id", "core_safety_axes_v2")), ReasonSchemaNotBumped},
		{"safety: version backwards", safety, set("version", "0.9.0"), ReasonVersionBackwards},
		{"safety: not semver", safety, set("version", "1.1"), ReasonVersionNotSemver},
		{"identity: axis added, minor", identity, both(addAxis, set("version", "1.1.0")), ""},
		{"identity: axis added, major", identity, both(addAxis, set("version", "2.0.0"), set("pack_id", "default_general_v2")), ReasonBumpTooLarge},
		{"identity: axis removed, major and new id", identity, both(dropAxis, set("version", "2.0.0"), set("pack_id", "default_general_v2")), ""},
		{"identity: axis removed, minor", identity, both(dropAxis, set("version", "1.1.0")), ReasonBumpTooSmall},
		{"identity: direction changed, major", identity, both(axisEdit("direction", []any{canon.Number("0"), canon.Number("0"), canon.Number("1")}), set("version", "2.0.0"), set("pack_id", "default_general_v2")), ""},
		{"identity: direction changed, patch", identity, both(axisEdit("direction", []any{canon.Number("0"), canon.Number("0"), canon.Number("1")}), set("version", "1.0.1")), ReasonBumpTooSmall},
		{"identity: threshold changed, major", identity, both(set("alignment_threshold", "0.5"), set("version", "2.0.0"), set("pack_id", "default_general_v2")), ""},
		{"identity: threshold changed, minor", identity, both(set("alignment_threshold", "0.5"), set("version", "1.1.0")), ReasonBumpTooSmall},
		{"identity: axis note edited, patch", identity, both(axisEdit("theological_note", "Edited."), set("version", "1.0.1")), ""},
		{"identity: boundary added, minor", identity, both(appendID("no_identity_override"), set("version", "1.1.0")), ""},
		{"identity: kind changed", identity, func(o *canon.Object) { o.Delete("value_axes") }, ReasonKindChanged},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			vc, err := CheckVersion(c.old, edit(c.old, c.change))
			if c.reason == "" {
				if err != nil || !vc.Valid {
					t.Fatalf("refused: %v (%+v)", err, vc.Changes)
				}
				return
			}
			var ve *VersionError
			if !errors.As(err, &ve) || ve.Check.Reason != c.reason || exitcode.Of(err) != exitcode.Rejected {
				t.Fatalf("got %v (%+v), want reason %s", err, vc.Changes, c.reason)
			}
		})
	}
}
