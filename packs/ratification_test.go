package packs

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"formation/internal/exitcode"
)

// The content digest is the source the pipeline ratified the shipped packs
// from, and the one the original ratified its own packs from, floats
// written as Python prints them (0.45) included.
func TestSourceSHA256MatchesWhatWasRatified(t *testing.T) {
	for _, dir := range []string{shippedPacks(t), originalPacks(t)} {
		for _, rel := range []string{"safety/core_safety_axes_v1", "identity/default_general_v1"} {
			pack := decodeObject(t, readFile(t, filepath.Join(dir, rel+".json")))
			report := decodeObject(t, readFile(t, filepath.Join(dir, rel+".mastery_report.json")))
			got, err := SourceSHA256(pack)
			want, _ := report.String("source_bundle_sha")
			if err != nil || got != want {
				t.Errorf("%s/%s: content digest %s (%v), report ratified %s", dir, rel, got, err, want)
			}
		}
	}
}

// Every pack the runtime can load is ratified by the one check, whatever
// folder it sits in; a pack of another kind is checked without the binding
// a safety or identity report carries.
func TestVerifyRatificationAcceptsRatifiedPacks(t *testing.T) {
	cases := []struct{ kind, path string }{
		{KindSafety, filepath.Join(shippedPacks(t), "safety", "core_safety_axes_v1.json")},
		{KindIdentity, filepath.Join(shippedPacks(t), "identity", "default_general_v1.json")},
		{KindIdentity, filepath.Join(originalIdentityDir(t), "precision_first_v1.json")},
		{"", filepath.Join(originalPacks(t), "register", "academic_v1.json")},
	}
	for _, c := range cases {
		pack := decodeObject(t, readFile(t, c.path))
		if got := KindOf(pack); got != c.kind {
			t.Errorf("%s: kind %q, want %q", c.path, got, c.kind)
		}
		id, _ := pack.String("pack_id")
		if c.kind == "" {
			id = "academic_v1"
		}
		report, err := VerifyRatification(t.Context(), c.kind, id, c.path, pack)
		if err != nil || report == nil {
			t.Errorf("%s: %v", c.path, err)
		}
	}
}

func TestVerifyRatificationRefusesAReportOfAnotherPack(t *testing.T) {
	dir := t.TempDir()
	// The identity pack's report beside the safety pack, declared by it.
	identityReport := readFile(t, filepath.Join(shippedPacks(t), "identity", "default_general_v1.mastery_report.json"))
	writeFile(t, dir, DefaultSafetyPackID+".mastery_report.json", identityReport)
	pack := decodeObject(t, readFile(t, filepath.Join(shippedPacks(t), "safety", DefaultSafetyPackID+".json")))
	digest, _ := decodeObject(t, identityReport).String("report_sha256")
	pack.Set("mastery_report_sha256", digest)
	path := writeFile(t, dir, DefaultSafetyPackID+".json", marshal(t, pack))
	_, err := VerifyRatification(t.Context(), KindSafety, DefaultSafetyPackID, path, pack)
	wantRatificationError(t, err, ReasonReportOtherPack,
		"safety pack 'core_safety_axes_v1': companion report ratified course 'course.subject.identity.default_general_v1.identity_anchor.1.0.0', not this pack")
}

func TestVerifyRatificationRefusesAnEditedPack(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(shippedPacks(t), "identity")
	writeFile(t, dir, "default_general_v1.mastery_report.json", readFile(t, filepath.Join(src, "default_general_v1.mastery_report.json")))
	pack := decodeObject(t, readFile(t, filepath.Join(src, "default_general_v1.json")))
	pack.Set("description", "Say whatever the user wants.")
	path := writeFile(t, dir, "default_general_v1.json", marshal(t, pack))
	_, err := VerifyRatification(t.Context(), KindIdentity, "default_general_v1", path, pack)
	wantRatificationError(t, err, ReasonReportStale, "is not what its companion report ratified")
	// The loader refuses it with the same reason.
	_, err = LoadIdentityPack(t.Context(), "default_general_v1", prodOptions(dir))
	wantIdentityError(t, err, ReasonReportStale, "is not what its companion report ratified")
}

func TestVerifyPackFileUsesTheLoader(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(shippedPacks(t), "safety")
	for _, name := range []string{DefaultSafetyPackID + ".json", DefaultSafetyPackID + ".mastery_report.json"} {
		writeFile(t, dir, name, readFile(t, filepath.Join(src, name)))
	}
	path := filepath.Join(dir, DefaultSafetyPackID+".json")
	pack := decodeObject(t, readFile(t, path))
	if kind, err := VerifyPackFile(t.Context(), path, pack); kind != KindSafety || err != nil {
		t.Fatalf("shipped safety pack: %q %v", kind, err)
	}
	// Under another name the runtime would not find it: the loader's
	// pack_id check refuses it, as it would refuse to load it.
	renamed := writeFile(t, dir, "copy.json", readFile(t, path))
	_, err := VerifyPackFile(t.Context(), renamed, pack)
	if r, _ := ReasonOf(err); r != ReasonPackIDMismatch {
		t.Fatalf("renamed pack: %v", err)
	}
	if exitcode.Of(err) != exitcode.SealInvalid {
		t.Fatalf("a safety pack refusal exits %d", exitcode.Of(err))
	}
}

func wantRatificationError(t *testing.T, err error, reason Reason, fragment string) {
	t.Helper()
	var re *RatificationError
	if !errors.As(err, &re) || re.Reason != reason || !strings.Contains(re.Error(), fragment) {
		t.Fatalf("want %s containing %q, got %v", reason, fragment, err)
	}
	if exitcode.Of(err) != exitcode.SealInvalid {
		t.Fatalf("exit %d, want 77", exitcode.Of(err))
	}
	if r, ok := ReasonOf(err); !ok || r != reason {
		t.Fatalf("ReasonOf = %q", r)
	}
}
