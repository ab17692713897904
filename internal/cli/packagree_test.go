package cli_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"formation/canon"
	"formation/internal/testutil"
	"formation/packs"
	"formation/seal"
)

// packFolder is a packs folder holding copies of the shipped packs and their
// reports, for one case to change.
type packFolder struct {
	t   *testing.T
	dir string
}

func newPackFolder(t *testing.T) packFolder {
	root, err := testutil.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	f := packFolder{t: t, dir: t.TempDir()}
	for _, rel := range []string{"safety/core_safety_axes_v1", "identity/default_general_v1"} {
		for _, suffix := range []string{".json", ".mastery_report.json"} {
			raw, err := os.ReadFile(filepath.Join(root, "packs", rel+suffix))
			if err != nil {
				t.Fatal(err)
			}
			f.write(rel+suffix, raw)
		}
	}
	return f
}

// pack and report are the file names of a kind's pack and its report.
func (f packFolder) pack(kind string) string {
	return map[string]string{"safety": "safety/core_safety_axes_v1.json", "identity": "identity/default_general_v1.json"}[kind]
}

func (f packFolder) report(kind string) string {
	return strings.TrimSuffix(f.pack(kind), ".json") + ".mastery_report.json"
}

func (f packFolder) path(rel string) string { return filepath.Join(f.dir, rel) }

func (f packFolder) write(rel string, data []byte) {
	f.t.Helper()
	if err := os.MkdirAll(filepath.Dir(f.path(rel)), 0o755); err != nil {
		f.t.Fatal(err)
	}
	if err := os.WriteFile(f.path(rel), data, 0o644); err != nil {
		f.t.Fatal(err)
	}
}

func (f packFolder) read(rel string) *canon.Object {
	f.t.Helper()
	raw, err := os.ReadFile(f.path(rel))
	if err != nil {
		f.t.Fatal(err)
	}
	v, err := canon.DecodeTolerant(raw)
	if err != nil {
		f.t.Fatal(err)
	}
	return v.(*canon.Object)
}

// edit rewrites a file after fn changed its document. Floats cannot be
// written canonically, so a document holding one is written by hand.
func (f packFolder) edit(rel string, fn func(*canon.Object)) {
	f.t.Helper()
	obj := f.read(rel)
	fn(obj)
	b, err := canon.Marshal(obj)
	if err != nil {
		f.t.Fatal(err)
	}
	f.write(rel, b)
}

// reseal seals a kind's report again after fn changed it, and makes the pack
// declare the new digest: a report that is well formed but says something
// else.
func (f packFolder) reseal(kind string, fn func(report *canon.Object)) {
	f.t.Helper()
	report := f.read(f.report(kind))
	fn(report)
	sealed, digest, err := seal.SelfSeal(report, seal.DefaultField)
	if err != nil {
		f.t.Fatal(err)
	}
	b, _ := canon.Marshal(sealed)
	f.write(f.report(kind), b)
	f.edit(f.pack(kind), func(p *canon.Object) { p.Set("mastery_report_sha256", digest) })
}

// reratify makes a pack's report ratify the pack as it now is (a forged but
// consistent report), so that only the runtime's other checks can refuse it.
func (f packFolder) reratify(kind string) {
	f.t.Helper()
	source, err := packs.SourceSHA256(f.read(f.pack(kind)))
	if err != nil {
		f.t.Fatal(err)
	}
	f.reseal(kind, func(r *canon.Object) { r.Set("source_bundle_sha", source) })
}

// packCases are the pack files `formation verify` and `formation ask` must
// agree on: the shipped packs, then each way a pack can fail to be ratified,
// for both kinds. want is the reason code both give ("" = both accept).
var packCases = []struct {
	name, kind, want string
	change           func(f packFolder, kind string)
}{
	{"shipped", "safety", "", nil},
	{"shipped", "identity", "", nil},
	{"tampered description", "safety", "companion_report_stale", tamperDescription},
	{"tampered description", "identity", "companion_report_stale", tamperDescription},
	{"missing companion report", "safety", "companion_report_missing", removeReport},
	{"missing companion report", "identity", "companion_report_missing", removeReport},
	{"report with a broken seal", "safety", "companion_report_seal_invalid", breakSeal},
	{"report with a broken seal", "identity", "companion_report_seal_invalid", breakSeal},
	{"report sealed ratified:false", "safety", "pack_not_ratified", reportNotRatified},
	{"report sealed ratified:false", "identity", "pack_not_ratified", reportNotRatified},
	{"report of another pack", "safety", "companion_report_other_pack", reportOfOtherPack},
	{"report of another pack", "identity", "companion_report_other_pack", reportOfOtherPack},
	{"declared digest mismatch", "safety", "companion_report_sha_mismatch", otherDigest},
	{"declared digest mismatch", "identity", "companion_report_sha_mismatch", otherDigest},
	{"no declared digest", "safety", "pack_not_ratified", noDigest},
	{"no declared digest", "identity", "pack_not_ratified", noDigest},
	{"float in pack", "safety", "companion_report_stale", addFloat},
	{"float in pack", "identity", "companion_report_stale", addFloat},
	{"report not JSON", "identity", "companion_report_unreadable", func(f packFolder, kind string) { f.write(f.report(kind), []byte("{")) }},
	{"report not an object", "safety", "companion_report_not_object", func(f packFolder, kind string) { f.write(f.report(kind), []byte("[]")) }},
	{"ratified but malformed", "safety", "duplicate_boundary_id", func(f packFolder, kind string) {
		f.edit(f.pack(kind), func(p *canon.Object) { p.Set("boundary_ids", []any{"no_fabricated_source", "no_fabricated_source"}) })
		f.reratify(kind)
	}},
	{"ratified but malformed", "identity", "invalid_alignment_threshold", func(f packFolder, kind string) {
		f.edit(f.pack(kind), func(p *canon.Object) { p.Set("alignment_threshold", "2") })
		f.reratify(kind)
	}},
}

func tamperDescription(f packFolder, kind string) {
	f.edit(f.pack(kind), func(p *canon.Object) { p.Set("description", "Anything goes.") })
}

func removeReport(f packFolder, kind string) {
	if err := os.Remove(f.path(f.report(kind))); err != nil {
		f.t.Fatal(err)
	}
}

func breakSeal(f packFolder, kind string) {
	f.edit(f.report(kind), func(r *canon.Object) { r.Set("issued_at", "2030-01-01T00:00:00Z") })
}

func reportNotRatified(f packFolder, kind string) {
	f.reseal(kind, func(r *canon.Object) { r.Set("ratified", false) })
}

func reportOfOtherPack(f packFolder, kind string) {
	other := map[string]string{"safety": "identity", "identity": "safety"}[kind]
	raw, err := os.ReadFile(f.path(f.report(other)))
	if err != nil {
		f.t.Fatal(err)
	}
	f.write(f.report(kind), raw)
	digest, _ := f.read(f.report(other)).String(seal.DefaultField)
	f.edit(f.pack(kind), func(p *canon.Object) { p.Set("mastery_report_sha256", digest) })
}

func otherDigest(f packFolder, kind string) {
	f.edit(f.pack(kind), func(p *canon.Object) { p.Set("mastery_report_sha256", strings.Repeat("ab", 32)) })
}

func noDigest(f packFolder, kind string) {
	f.edit(f.pack(kind), func(p *canon.Object) { p.Set("mastery_report_sha256", "") })
}

// addFloat writes a number as a float, as the original's packs do: the
// identity pack's threshold, or an extra field of the safety pack.
func addFloat(f packFolder, kind string) {
	f.t.Helper()
	raw, err := os.ReadFile(f.path(f.pack(kind)))
	if err != nil {
		f.t.Fatal(err)
	}
	text := string(raw)
	if kind == "identity" {
		text = strings.Replace(text, `"alignment_threshold": "0.45"`, `"alignment_threshold": 0.45`, 1)
	} else {
		text = strings.Replace(text, `"pack_id":`, `"weight": 0.5, "pack_id":`, 1)
	}
	if text == string(raw) {
		f.t.Fatal("no float written")
	}
	f.write(f.pack(kind), []byte(text))
}

var askReason = regexp.MustCompile(`(?m)^formation: ([a-z_]+): `)

// `formation verify PACK` and `formation ask` under a packs folder holding
// that pack give the same verdict on every file: both accept, or both exit
// 77 with the same reason code.
func TestVerifyAndAskAgreeOnEveryPack(t *testing.T) {
	t.Setenv(packs.EnvAllowUnratifiedSafety, "")
	t.Setenv(packs.EnvAllowUnratifiedIdentity, "")
	vts := filepath.Join(t.TempDir(), "lens.json")
	if err := os.WriteFile(vts, []byte(lensVTS), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range packCases {
		t.Run(c.kind+"/"+c.name, func(t *testing.T) {
			f := newPackFolder(t)
			if c.change != nil {
				c.change(f, c.kind)
			}
			vCode, out, _ := run(t, "", "--json", "verify", f.path(f.pack(c.kind)))
			var doc struct {
				Files []struct {
					Valid        bool
					Reason, Code string
				}
			}
			if err := json.Unmarshal([]byte(out), &doc); err != nil || len(doc.Files) != 1 {
				t.Fatalf("verify output %q: %v", out, err)
			}
			aCode, _, aErr := run(t, "", "--packs-dir", f.dir, "ask", "--knowledge", vts, "What is refraction?")
			aWhy := ""
			if m := askReason.FindStringSubmatch(aErr); m != nil {
				aWhy = m[1]
			}
			t.Logf("verify: exit %d %s | ask: exit %d %s", vCode, doc.Files[0].Code, aCode, aWhy)
			switch {
			case c.want == "" && (vCode != 0 || aCode != 0 || !doc.Files[0].Valid):
				t.Fatalf("want both to accept: verify exit %d (%s), ask exit %d (%s)", vCode, doc.Files[0].Reason, aCode, aErr)
			case c.want != "" && (vCode != 77 || aCode != 77 || doc.Files[0].Code != c.want || aWhy != c.want):
				t.Fatalf("want both to exit 77 with %s: verify exit %d %s (%s), ask exit %d %q",
					c.want, vCode, doc.Files[0].Code, doc.Files[0].Reason, aCode, aErr)
			}
		})
	}
}
