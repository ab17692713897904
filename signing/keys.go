package signing

import (
	"bytes"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"runtime"
	"slices"

	"formation/artifact"
	"formation/canon"
	"formation/internal/exitcode"
)

// maxKeyFile bounds key and trusted-key files: they are small by nature, and
// a huge file is a mistake, not a key list.
const maxKeyFile = 1 << 20

// KeyFile is a private key file (mode 0600). PrivateKey is the
// base64 (standard, padded) of the 32-byte RFC 8032 seed; PublicKey is the
// base64 of the 32-byte public key; KeyID is the lowercase hex SHA-256 of the
// raw public key bytes (all 64 characters).
type KeyFile struct {
	SchemaVersion string `json:"schema_version"`
	KeyID         string `json:"key_id"`
	PublicKey     string `json:"public_key"`
	PrivateKey    string `json:"private_key"`
}

// TrustedKey is one public key a verifier trusts.
type TrustedKey struct {
	KeyID     string `json:"key_id"`
	PublicKey string `json:"public_key"`
	Label     string `json:"label,omitempty"`
}

// TrustedKeysFile is the --trusted-keys document. keygen writes FILE.pub in
// this very format with one key, so a public key file is a trusted-keys file.
type TrustedKeysFile struct {
	SchemaVersion string       `json:"schema_version"`
	Keys          []TrustedKey `json:"keys"`
}

// SigningKey is a loaded private key.
type SigningKey struct {
	KeyID   string
	Public  ed25519.PublicKey
	private ed25519.PrivateKey
}

// Private is the ed25519 private key, for signers that hold a key in
// another form too (reviewers accept PEM keys as well).
func (k SigningKey) Private() ed25519.PrivateKey { return k.private }

// Sign signs message with the key (deterministic, as ed25519 is).
func (k SigningKey) Sign(message []byte) []byte { return ed25519.Sign(k.private, message) }

// TrustedKeys maps key ids to public keys.
type TrustedKeys struct {
	keys map[string]ed25519.PublicKey
}

// KeyID is the hex SHA-256 of a raw ed25519 public key.
func KeyID(pub ed25519.PublicKey) string {
	sum := sha256.Sum256(pub)
	return hex.EncodeToString(sum[:])
}

// GenerateKey makes a key from rand (crypto/rand.Reader in
// production; a fixed reader in tests).
func GenerateKey(rand io.Reader) (SigningKey, error) {
	pub, priv, err := ed25519.GenerateKey(rand)
	if err != nil {
		return SigningKey{}, fmt.Errorf("signing: generate key: %w", err)
	}
	return SigningKey{KeyID: KeyID(pub), Public: pub, private: priv}, nil
}

// PublicFile is the trusted-keys document naming only k.
func (k SigningKey) PublicFile(label string) TrustedKeysFile {
	return TrustedKeysFile{SchemaVersion: artifact.SchemaVersion, Keys: []TrustedKey{{
		KeyID: k.KeyID, PublicKey: base64.StdEncoding.EncodeToString(k.Public), Label: label}}}
}

// Trusted is the set holding only k.
func (k SigningKey) Trusted() TrustedKeys {
	return TrustedKeys{keys: map[string]ed25519.PublicKey{k.KeyID: k.Public}}
}

// WriteKeyFiles writes the private key to path (mode 0600) and the public
// key to path+".pub" (mode 0644). Neither file may exist already: a key is
// never overwritten.
func WriteKeyFiles(path string, k SigningKey, label string) error {
	pubPath := path + ".pub"
	for _, p := range []string{path, pubPath} {
		if _, err := os.Lstat(p); err == nil {
			return refuse(exitcode.Rejected, ReasonKeyFileExists, "%s already exists; a key is never overwritten", p)
		} else if !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("signing: keygen: %w", err)
		}
	}
	private, err := canon.Marshal(KeyFile{SchemaVersion: artifact.SchemaVersion, KeyID: k.KeyID,
		PublicKey:  base64.StdEncoding.EncodeToString(k.Public),
		PrivateKey: base64.StdEncoding.EncodeToString(k.private.Seed())})
	if err != nil {
		return fmt.Errorf("signing: keygen: %w", err)
	}
	public, err := canon.Marshal(k.PublicFile(label))
	if err != nil {
		return fmt.Errorf("signing: keygen: %w", err)
	}
	if err := writeNew(path, append(private, '\n'), 0o600); err != nil {
		return err
	}
	if err := writeNew(pubPath, append(public, '\n'), 0o644); err != nil {
		os.Remove(path) // no private key without its public half
		return err
	}
	return nil
}

// writeNew creates path exclusively with perm and syncs it.
func writeNew(path string, data []byte, perm fs.FileMode) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		if errors.Is(err, fs.ErrExist) {
			return refuse(exitcode.Rejected, ReasonKeyFileExists, "%s already exists; a key is never overwritten", path)
		}
		return fmt.Errorf("signing: keygen: %w", err)
	}
	_, werr := f.Write(data)
	serr := f.Sync()
	cerr := f.Close()
	if err := errors.Join(werr, serr, cerr); err != nil {
		os.Remove(path)
		return fmt.Errorf("signing: keygen: write %s: %w", path, err)
	}
	return nil
}

// LoadSigningKey reads a private key file. It refuses a file that group or
// others may read (as ssh does) and any key whose parts disagree.
func LoadSigningKey(path string) (SigningKey, error) {
	info, err := os.Stat(path)
	if err != nil {
		return SigningKey{}, refuse(exitcode.NotFound, ReasonKeyFileInvalid, "%v", err)
	}
	if runtime.GOOS != "windows" && info.Mode().Perm()&0o077 != 0 {
		return SigningKey{}, refuse(exitcode.Rejected, ReasonKeyFileExposed,
			"%s has mode %04o; a private key must be readable by its owner only (chmod 600)", path, info.Mode().Perm())
	}
	raw, err := readSmall(path)
	if err != nil {
		return SigningKey{}, refuse(exitcode.Rejected, ReasonKeyFileInvalid, "%v", err)
	}
	kf, err := artifact.Decode[KeyFile](raw)
	if err != nil {
		return SigningKey{}, refuse(exitcode.Rejected, ReasonKeyFileInvalid, "%s: %v", path, err)
	}
	return parseKeyFile(kf, path)
}

func parseKeyFile(kf KeyFile, path string) (SigningKey, error) {
	seed, err := base64.StdEncoding.DecodeString(kf.PrivateKey)
	if err != nil || len(seed) != ed25519.SeedSize {
		return SigningKey{}, refuse(exitcode.Rejected, ReasonKeyFileInvalid, "%s: private_key is not the base64 of a 32-byte seed", path)
	}
	priv := ed25519.NewKeyFromSeed(seed)
	pub := priv.Public().(ed25519.PublicKey)
	stated, err := base64.StdEncoding.DecodeString(kf.PublicKey)
	if err != nil || !bytes.Equal(stated, pub) {
		return SigningKey{}, refuse(exitcode.Rejected, ReasonKeyFileInvalid, "%s: public_key does not belong to private_key", path)
	}
	if kf.KeyID != KeyID(pub) {
		return SigningKey{}, refuse(exitcode.Rejected, ReasonKeyFileInvalid, "%s: key_id is not the SHA-256 of the public key", path)
	}
	return SigningKey{KeyID: kf.KeyID, Public: pub, private: priv}, nil
}

// LoadTrustedKeys reads a trusted-keys file (or a FILE.pub written by
// keygen). Any malformed entry makes the whole file invalid (exit 77): a
// verifier never runs on a half-read key list.
func LoadTrustedKeys(path string) (TrustedKeys, error) {
	raw, err := readSmall(path)
	if err != nil {
		return TrustedKeys{}, refuse(exitcode.SealInvalid, ReasonTrustedKeysBad, "%v", err)
	}
	return ParseTrustedKeys(raw)
}

// ParseTrustedKeys decodes a trusted-keys document strictly.
func ParseTrustedKeys(raw []byte) (TrustedKeys, error) {
	f, err := artifact.Decode[TrustedKeysFile](raw)
	if err != nil {
		return TrustedKeys{}, refuse(exitcode.SealInvalid, ReasonTrustedKeysBad, "%v", err)
	}
	if len(f.Keys) == 0 {
		return TrustedKeys{}, refuse(exitcode.SealInvalid, ReasonTrustedKeysBad, "the file lists no key")
	}
	t := TrustedKeys{keys: map[string]ed25519.PublicKey{}}
	for i, k := range f.Keys {
		pub, err := base64.StdEncoding.DecodeString(k.PublicKey)
		if err != nil || len(pub) != ed25519.PublicKeySize {
			return TrustedKeys{}, refuse(exitcode.SealInvalid, ReasonTrustedKeysBad, "key %d: public_key is not the base64 of 32 bytes", i)
		}
		if k.KeyID != KeyID(pub) {
			return TrustedKeys{}, refuse(exitcode.SealInvalid, ReasonTrustedKeysBad, "key %d: key_id %q is not the SHA-256 of its public key", i, k.KeyID)
		}
		if _, dup := t.keys[k.KeyID]; dup {
			return TrustedKeys{}, refuse(exitcode.SealInvalid, ReasonTrustedKeysBad, "key %s listed twice", k.KeyID)
		}
		t.keys[k.KeyID] = pub
	}
	return t, nil
}

// Len is the number of trusted keys.
func (t TrustedKeys) Len() int { return len(t.keys) }

// Lookup returns the public key of a trusted key id.
func (t TrustedKeys) Lookup(keyID string) (ed25519.PublicKey, bool) {
	pub, ok := t.keys[keyID]
	return pub, ok
}

// KeyIDs lists the trusted key ids, sorted.
func (t TrustedKeys) KeyIDs() []string {
	return slices.Sorted(maps.Keys(t.keys))
}

// ReadSmall reads a file of at most 1 MiB (keys, envelopes, trusted-keys
// files): a larger one is a mistake, not a key.
func ReadSmall(path string) ([]byte, error) { return readSmall(path) }

func readSmall(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	raw, err := io.ReadAll(io.LimitReader(f, maxKeyFile+1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	if len(raw) > maxKeyFile {
		return nil, fmt.Errorf("%s is larger than %d bytes", path, maxKeyFile)
	}
	return raw, nil
}
