package cli_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"formation/internal/testutil"
	"formation/packs"
)

// The shipped packs: exactly one safety pack, and every shipped pack passes
// `pack ratify --check` (CI fails on a pack edited without re-ratification).
func TestShippedPacksAreOneSafetyPackAndCurrent(t *testing.T) {
	root, err := testutil.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	var all []string
	for _, kind := range []string{packs.KindSafety, packs.KindIdentity} {
		entries, err := os.ReadDir(filepath.Join(root, "packs", kind))
		if err != nil {
			t.Fatal(err)
		}
		var found []string
		for _, e := range entries {
			n := e.Name()
			if strings.HasSuffix(n, ".json") && !packs.IsCompanionReport(n) && !packs.IsSignature(n) {
				found = append(found, filepath.Join(root, "packs", kind, n))
			}
		}
		if kind == packs.KindSafety && len(found) != 1 {
			t.Fatalf("shipped safety packs: %v; exactly one ships", found)
		}
		all = append(all, found...)
	}
	code, out, errs := run(t, "", append([]string{"pack", "ratify", "--check"}, all...)...)
	if code != 0 || strings.Count(out, "ratified and current") != len(all) {
		t.Fatalf("pack ratify --check on the shipped packs: %d\n%s%s", code, out, errs)
	}
}

// A pack edited without re-ratification fails `pack ratify --check` (65),
// and `pack check` holds the edit to its versioning rule.
func TestPackCheckCommands(t *testing.T) {
	f := newPackFolder(t)
	old := f.path(f.pack("safety"))
	raw, _ := os.ReadFile(old)
	edited := strings.Replace(string(raw), `"description": "`, `"description": "Edited: `, 1)
	if edited == string(raw) {
		t.Fatal("the edit did not apply")
	}
	newPath := filepath.Join(t.TempDir(), "core_safety_axes_v1.json")
	if err := os.WriteFile(newPath, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs := run(t, "", "pack", "check", old, newPath)
	if code != 65 || !strings.Contains(errs, "bump_too_small") {
		t.Fatalf("description edited, version kept: %d %s %s", code, out, errs)
	}
	bumped := strings.Replace(edited, `"version": "1.0.0"`, `"version": "1.0.1"`, 1)
	if err := os.WriteFile(newPath, []byte(bumped), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs = run(t, "", "--json", "pack", "check", old, newPath)
	var vc packs.VersionCheck
	if code != 0 || json.Unmarshal([]byte(out), &vc) != nil || !vc.Valid || vc.Required != "patch" {
		t.Fatalf("a patch for a description edit: %d %s %s", code, out, errs)
	}
	f.write(f.pack("safety"), []byte(bumped))
	code, out, _ = run(t, "", "pack", "ratify", "--check", f.path(f.pack("safety")))
	if code != 65 || !strings.Contains(out, "companion_report_stale") && !strings.Contains(out, "not what its companion report ratified") {
		t.Fatalf("pack ratify --check on an edited pack: %d %s", code, out)
	}
}

// Pack signatures: without trusted pack keys the runtime starts as before
// (with a note); with them it refuses unsigned, foreign-signed or tampered
// packs (77) and starts with packs a trusted key signed.
func TestPackSignatures(t *testing.T) {
	t.Setenv(packs.EnvAllowUnratifiedSafety, "")
	f := newPackFolder(t)
	dir := t.TempDir()
	key, other := filepath.Join(dir, "pack.key"), filepath.Join(dir, "other.key")
	for _, k := range []string{key, other} {
		if code, _, errs := run(t, "", "keygen", "--out", k); code != 0 {
			t.Fatal(errs)
		}
	}
	storeURL := "file://" + filepath.Join(dir, "store")
	ask := func(trusted string) (int, string) {
		args := []string{"--store", storeURL, "--packs-dir", f.dir}
		if trusted != "" {
			args = append(args, "--trusted-pack-keys", trusted)
		}
		code, _, errs := run(t, "", append(args, "ask", "What is refraction?")...)
		return code, errs
	}
	if code, errs := ask(""); code != 0 || !strings.Contains(errs, "pack signatures were not checked") {
		t.Fatalf("without pack keys: %d %s", code, errs)
	}
	if code, errs := ask(key + ".pub"); code != 77 || !strings.Contains(errs, "pack_signature_missing") {
		t.Fatalf("unsigned packs under pack keys: %d %s", code, errs)
	}
	for _, kind := range []string{"safety", "identity"} {
		if code, out, errs := run(t, "", "pack", "promote", "--key", key, f.path(f.pack(kind))); code != 0 {
			t.Fatalf("pack promote %s: %d %s %s", kind, code, out, errs)
		}
	}
	if code, errs := ask(key + ".pub"); code != 0 || strings.Contains(errs, "not checked") {
		t.Fatalf("signed packs under their key: %d %s", code, errs)
	}
	if code, errs := ask(other + ".pub"); code != 77 || !strings.Contains(errs, "pack_signature_invalid") {
		t.Fatalf("signed packs under another key: %d %s", code, errs)
	}
	sig := packs.SignaturePath(f.path(f.pack("identity")))
	raw, _ := os.ReadFile(sig)
	if err := os.WriteFile(sig, []byte(strings.Replace(string(raw), `"sig":"`, `"sig":"A`, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, errs := ask(key + ".pub"); code != 77 || !strings.Contains(errs, "pack_signature_invalid") {
		t.Fatalf("a tampered signature: %d %s", code, errs)
	}
	// The curator trust root neither replaces nor narrows the pack one.
	if code, _, errs := run(t, "", "--store", storeURL, "--packs-dir", f.dir, "--trusted-keys", key+".pub", "ask", "What is refraction?"); code != 0 {
		t.Fatalf("ask --trusted-keys on packs without pack keys configured: %d %s", code, errs)
	}
}
