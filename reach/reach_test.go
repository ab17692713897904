package reach

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"formation/artifact"
	"formation/eval"
	"formation/ident"
	"formation/reviewed"
	"formation/signing"
)

// digestField matches the JSON names of fields that hold, or may hold, a
// digest. Each such field of a walked kind is either followed by its walk
// or listed in notObjects with the reason it names no object.
var digestField = regexp.MustCompile(`(_sha|_sha256|_shas|_object|_hashes|_hash|^previous|^knowledge|^index|^promotions|^output)$`)

// notObjects are digest-like fields that name no stored object.
var notObjects = map[string]string{
	"report_sha256":     "a report's seal: the digest of its canonical form with the seal blanked",
	"plan_sha256":       "the digest of a plan's projection, not of the stored plan object",
	"trace_hashes":      "runtime trace hashes",
	"trace_hash":        "a runtime trace hash",
	"review_hash":       "the hash of a candidate's review",
	"supersedes":        "a report seal",
	"cited_source_shas": "event telemetry; the sources are kept through the bundles",
}

// fill sets every string of v (recursively) to a digest derived from its
// field path, and records path → digest.
func fill(v reflect.Value, path string, digests map[string]string) {
	switch v.Kind() {
	case reflect.String:
		sum := sha256.Sum256([]byte(path))
		d := hex.EncodeToString(sum[:])
		v.SetString(d)
		digests[d] = path
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
		fill(v.Elem(), path, digests)
	case reflect.Struct:
		for i := range v.NumField() {
			f := v.Type().Field(i)
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			fill(v.Field(i), path+"."+name, digests)
		}
	case reflect.Slice:
		v.Set(reflect.MakeSlice(v.Type(), 1, 1))
		fill(v.Index(0), path+"[]", digests)
	case reflect.Map:
		v.Set(reflect.MakeMap(v.Type()))
		val := reflect.New(v.Type().Elem()).Elem()
		fill(val, path+"{}", digests)
		v.SetMapIndex(reflect.ValueOf("course").Convert(v.Type().Key()), val)
	}
}

// TestEveryDigestFieldIsWalked: for each kind with a walk, every field whose
// name says it may hold a digest is followed (as an object or a
// validated-set lookup) or is listed in notObjects; a field added to an
// artifact without a decision here fails.
func TestEveryDigestFieldIsWalked(t *testing.T) {
	for kind, zero := range map[Kind]any{
		OreBundle: artifact.OreBundle{}, SmeltedBundle: artifact.SmeltedBundle{}, ValidatedSet: artifact.ValidatedTripleSet{},
		Course: artifact.Course{}, Plan: artifact.FormationPlan{}, RunRecord: artifact.RunRecord{},
		Report: artifact.MasteryReport{}, State: reviewed.State{}, Knowledge: reviewed.Knowledge{},
		Index: artifact.MasteredCoursesIndex{}, Envelope: reviewed.Statement{}, LaneResult: eval.LaneResult{},
	} {
		digests := map[string]string{}
		v := reflect.New(reflect.TypeOf(zero)).Elem()
		fill(v, string(kind), digests)
		raw, err := artifact.Encode(v.Interface())
		if err != nil {
			t.Fatalf("%s: %v", kind, err)
		}
		if kind == Envelope {
			env := signing.Envelope{PayloadType: reviewed.PayloadType, Payload: base64.StdEncoding.EncodeToString(raw),
				Signatures: []signing.Signature{{KeyID: "k", Sig: "s"}}}
			if raw, err = artifact.Encode(env); err != nil {
				t.Fatal(err)
			}
		}
		_, names, err := Of(kind, raw)
		if err != nil {
			t.Fatalf("%s: %v", kind, err)
		}
		followed := map[string]bool{}
		for _, e := range names.Objects {
			followed[digests[e.Digest]] = true
		}
		for _, sha := range names.Validated {
			followed[digests[sha]] = true
		}
		var paths []string
		for _, p := range digests {
			paths = append(paths, p)
		}
		slices.Sort(paths)
		for _, p := range paths {
			field := p[strings.LastIndexAny(p, ".")+1:]
			field = strings.TrimRight(field, "[]{}")
			if followed[p] || !digestField.MatchString(field) {
				continue
			}
			if _, ok := notObjects[field]; !ok {
				t.Errorf("%s: field %s may hold a digest, but the walk does not follow it and notObjects does not explain it", kind, p)
			}
		}
		if len(followed) == 0 {
			t.Errorf("%s: the walk follows nothing", kind)
		}
	}
}

// TestSniff: each kind's document is recognised as that kind, and bytes
// that are no artifact are Unknown.
func TestSniff(t *testing.T) {
	for want, zero := range map[Kind]any{
		OreBundle: artifact.OreBundle{}, Course: artifact.Course{}, RunRecord: artifact.RunRecord{},
		Report: artifact.MasteryReport{}, State: reviewed.State{}, LaneResult: eval.LaneResult{},
	} {
		v := reflect.New(reflect.TypeOf(zero)).Elem()
		fill(v, "x", map[string]string{})
		raw, err := artifact.Encode(v.Interface())
		if err != nil {
			t.Fatal(err)
		}
		if got := Sniff(raw); got != want {
			t.Errorf("Sniff(%s) = %q", want, got)
		}
	}
	events := []byte(`[[{"trace_hash":"` + strings.Repeat("a", 64) + `","turn":1},null,{"bound_trace_hashes":1,"step_type":"replay_assertion","trace_hash":"b"}]]`)
	if got := Sniff(events); got != TurnEvents {
		t.Errorf("Sniff(events) = %q", got)
	}
	for _, raw := range []string{"", "# a course\n", `{"unknown":1}`, `[1,2]`, "\x00\x01"} {
		if got := Sniff([]byte(raw)); got != Unknown {
			t.Errorf("Sniff(%q) = %q, want Unknown", raw, got)
		}
	}
}

// TestOfRefuses: a document that is not the kind it was reached as is an
// error, never an empty list.
func TestOfRefuses(t *testing.T) {
	ore, _ := artifact.Encode(artifact.OreBundle{SubjectID: "x", Entries: []artifact.OreEntry{}, SchemaVersion: "1"})
	for _, k := range []Kind{ValidatedSet, Course, RunRecord, Report, State, Envelope} {
		if _, _, err := Of(k, ore); err == nil {
			t.Errorf("an OreBundle read as %s was accepted", k)
		}
	}
	if _, err := OfRef("subjects/x/forge", []byte("not a digest")); err == nil {
		t.Error("a stage ref without a digest was accepted")
	}
	if _, err := OfRef("cache/last/x/forge", []byte(`{"no":"output"}`)); err == nil {
		t.Error("a cache record without an output was accepted")
	}
	n, err := OfRef("packs/x", []byte(strings.Repeat("c", 64)))
	if err != nil || len(n.Objects) != 1 || n.Objects[0].Kind != Unknown || !ident.ValidDigest(n.Objects[0].Digest) {
		t.Errorf("a ref of another namespace holding a digest: %+v, %v", n, err)
	}
}
