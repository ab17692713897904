package signing

import (
	"bytes"
	"crypto/ed25519"
	"encoding/base64"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"formation/internal/exitcode"
)

func TestKeygenFilesRoundTrip(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "curator.key")
	k := fixedKey(t, 7)
	if err := WriteKeyFiles(path, k, "alice"); err != nil {
		t.Fatal(err)
	}
	for p, mode := range map[string]os.FileMode{path: 0o600, path + ".pub": 0o644} {
		info, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if got := info.Mode().Perm(); got&^mode != 0 {
			t.Errorf("%s mode %04o, want at most %04o", p, got, mode)
		}
	}
	loaded, err := LoadSigningKey(path)
	if err != nil || loaded.KeyID != k.KeyID || !loaded.Public.Equal(k.Public) {
		t.Fatalf("load: %+v %v", loaded, err)
	}
	trusted, err := LoadTrustedKeys(path + ".pub")
	if err != nil || trusted.Len() != 1 {
		t.Fatalf("the .pub file is a trusted-keys file: %v", err)
	}
	pub, _ := os.ReadFile(path + ".pub")
	if bytes.Contains(pub, []byte("private")) || !bytes.Contains(pub, []byte(`"label":"alice"`)) {
		t.Fatalf("public file %s", pub)
	}
	// A key is never overwritten.
	err = WriteKeyFiles(path, fixedKey(t, 8), "")
	wantRefusal(t, err, exitcode.Rejected, ReasonKeyFileExists)
	if again, _ := LoadSigningKey(path); again.KeyID != k.KeyID {
		t.Fatal("the private key was overwritten")
	}
}

func TestKeyIDIsSHA256OfThePublicKey(t *testing.T) {
	pub := ed25519.PublicKey(bytes.Repeat([]byte{0}, 32))
	// sha256 of 32 zero bytes
	if KeyID(pub) != "66687aadf862bd776c8fc18b8e9f8e20089714856ee233b3902a591d0d5f2925" {
		t.Fatalf("key id %s", KeyID(pub))
	}
}

func TestLoadSigningKeyRefuses(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "k")
	if err := WriteKeyFiles(path, fixedKey(t, 3), ""); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := LoadSigningKey(path)
	wantRefusal(t, err, exitcode.Rejected, ReasonKeyFileExposed)

	raw, _ := os.ReadFile(path)
	other := fixedKey(t, 4)
	for name, bad := range map[string]string{
		"foreign public key": strings.Replace(string(raw), base64.StdEncoding.EncodeToString(fixedKey(t, 3).Public), base64.StdEncoding.EncodeToString(other.Public), 1),
		"wrong key id":       strings.Replace(string(raw), fixedKey(t, 3).KeyID, other.KeyID, 1),
		"unknown field":      strings.Replace(string(raw), `{"key_id"`, `{"extra":1,"key_id"`, 1),
		"not json":           "ed25519 key",
	} {
		p := filepath.Join(dir, strings.ReplaceAll(name, " ", "_"))
		if err := os.WriteFile(p, []byte(bad), 0o600); err != nil {
			t.Fatal(err)
		}
		_, err := LoadSigningKey(p)
		wantRefusal(t, err, exitcode.Rejected, ReasonKeyFileInvalid)
	}
	_, err = LoadSigningKey(filepath.Join(dir, "missing"))
	wantRefusal(t, err, exitcode.NotFound, ReasonKeyFileInvalid)
}

func TestTrustedKeysRefusals(t *testing.T) {
	k := fixedKey(t, 5)
	pub := base64.StdEncoding.EncodeToString(k.Public)
	for name, doc := range map[string]string{
		"no keys":      `{"schema_version":"1.0.0","keys":[]}`,
		"key id":       `{"schema_version":"1.0.0","keys":[{"key_id":"` + strings.Repeat("0", 64) + `","public_key":"` + pub + `"}]}`,
		"short key":    `{"schema_version":"1.0.0","keys":[{"key_id":"` + k.KeyID + `","public_key":"AAAA"}]}`,
		"twice":        `{"schema_version":"1.0.0","keys":[{"key_id":"` + k.KeyID + `","public_key":"` + pub + `"},{"key_id":"` + k.KeyID + `","public_key":"` + pub + `"}]}`,
		"float":        `{"schema_version":"1.0.0","keys":[],"n":1.5}`,
		"missing keys": `{"schema_version":"1.0.0"}`,
	} {
		_, err := ParseTrustedKeys([]byte(doc))
		var e *Error
		if err == nil || exitcode.Of(err) != exitcode.SealInvalid {
			t.Errorf("%s: %v", name, err)
		} else if !errors.As(err, &e) || e.Reason != ReasonTrustedKeysBad {
			t.Errorf("%s: reason %v", name, err)
		}
	}
	// Pretty-printed files are read like canonical ones.
	pretty := "{\n  \"schema_version\": \"1.0.0\",\n  \"keys\": [\n    {\"key_id\": \"" + k.KeyID + "\", \"public_key\": \"" + pub + "\", \"label\": \"ci\"}\n  ]\n}\n"
	if tk, err := ParseTrustedKeys([]byte(pretty)); err != nil || tk.Len() != 1 {
		t.Fatalf("pretty file: %v", err)
	}
}

// fixedKey is a deterministic key.
func fixedKey(t *testing.T, b byte) SigningKey {
	t.Helper()
	k, err := GenerateKey(bytes.NewReader(bytes.Repeat([]byte{b}, 32)))
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func wantRefusal(t *testing.T, err error, code int, reason string) {
	t.Helper()
	var e *Error
	if !errors.As(err, &e) || e.Reason != reason || exitcode.Of(err) != code {
		t.Fatalf("error %v (exit %d), want %s exit %d", err, exitcode.Of(err), reason, code)
	}
}

func TestPAEMatchesTheDSSESpec(t *testing.T) {
	// The example of the DSSE protocol description.
	got := string(PAE("http://example.com/HelloWorld", []byte("hello world")))
	if got != "DSSEv1 29 http://example.com/HelloWorld 11 hello world" {
		t.Fatalf("PAE %q", got)
	}
}

func TestOpenChecksTypeAndEverySignature(t *testing.T) {
	k, other := fixedKey(t, 1), fixedKey(t, 2)
	env := Sign("application/x-test", []byte("payload"), k)
	if again := Sign("application/x-test", []byte("payload"), k); again.Signatures[0].Sig != env.Signatures[0].Sig {
		t.Fatal("signing is not deterministic")
	}
	if got, err := Open(env, "application/x-test", k.Trusted()); err != nil || string(got) != "payload" {
		t.Fatalf("open: %q %v", got, err)
	}
	_, err := Open(env, "application/other", k.Trusted())
	wantRefusal(t, err, exitcode.SealInvalid, ReasonPayloadType)
	_, err = Open(env, "application/x-test", other.Trusted())
	wantRefusal(t, err, exitcode.SealInvalid, ReasonUntrustedKey)
	forged := env
	forged.Payload = base64.StdEncoding.EncodeToString([]byte("payloaD"))
	_, err = Open(forged, "application/x-test", k.Trusted())
	wantRefusal(t, err, exitcode.SealInvalid, ReasonSignatureInvalid)
	if !Verify(k.Public, PAE("application/x-test", []byte("payload")), env.Signatures[0].Sig) || Verify(k.Public, []byte("x"), env.Signatures[0].Sig) {
		t.Fatal("Verify disagrees with Open")
	}
}
