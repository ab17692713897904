package reviewers

import (
	"crypto/ed25519"
	"crypto/x509"
	"encoding/base64"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"formation/signing"
)

// maxKeyFileBytes bounds a key file; a PEM ed25519 key is about 120 bytes.
const maxKeyFileBytes = 16 << 10

// GenerateKey makes a reviewer key from rand and returns the private key as
// PKCS#8 PEM (the form openssl and the Go standard library read) and the
// public key as the registry's public_key value.
func GenerateKey(rand io.Reader) (privPEM []byte, pubB64 string, err error) {
	pub, priv, err := ed25519.GenerateKey(rand)
	if err != nil {
		return nil, "", fmt.Errorf("reviewers: generate key: %w", err)
	}
	der, err := x509.MarshalPKCS8PrivateKey(priv)
	if err != nil {
		return nil, "", fmt.Errorf("reviewers: encode key: %w", err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}), EncodePublicKey(pub), nil
}

// EncodePublicKey is the registry's public_key form: standard base64 of the
// 32 key bytes.
func EncodePublicKey(pub ed25519.PublicKey) string { return base64.StdEncoding.EncodeToString(pub) }

// LoadPrivateKey reads a reviewer's ed25519 private key: the key file
// `formation keygen` writes (the signing package's format, whose checks apply: owner-only
// permissions, parts that agree), a PKCS#8 PEM block ("PRIVATE KEY"), or one
// line of standard base64 holding the 32-byte seed or the 64-byte key.
func LoadPrivateKey(path string) (ed25519.PrivateKey, error) {
	if looksLikeKeyFile(path) {
		return loadKeygenKey(path)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("reviewers: read key: %w", err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxKeyFileBytes+1))
	if err != nil {
		return nil, fmt.Errorf("reviewers: read key: %w", err)
	}
	if len(data) > maxKeyFileBytes {
		return nil, errors.New("reviewers: key file too large")
	}
	return ParsePrivateKey(data)
}

// ParsePrivateKey decodes the forms LoadPrivateKey accepts.
func ParsePrivateKey(data []byte) (ed25519.PrivateKey, error) {
	if block, _ := pem.Decode(data); block != nil {
		if block.Type != "PRIVATE KEY" {
			return nil, fmt.Errorf("reviewers: key: PEM block %q, want PRIVATE KEY", block.Type)
		}
		k, err := x509.ParsePKCS8PrivateKey(block.Bytes)
		if err != nil {
			return nil, fmt.Errorf("reviewers: key: %w", err)
		}
		priv, ok := k.(ed25519.PrivateKey)
		if !ok {
			return nil, fmt.Errorf("reviewers: key: %T is not ed25519", k)
		}
		return priv, nil
	}
	raw, err := base64.StdEncoding.Strict().DecodeString(strings.TrimSpace(string(data)))
	if err != nil {
		return nil, errors.New("reviewers: key: neither PKCS#8 PEM nor standard base64")
	}
	switch len(raw) {
	case ed25519.SeedSize:
		return ed25519.NewKeyFromSeed(raw), nil
	case ed25519.PrivateKeySize:
		priv := ed25519.PrivateKey(raw)
		// A 64-byte key whose second half is not the public key of its seed
		// would sign with one key and claim another.
		if !priv.Public().(ed25519.PublicKey).Equal(ed25519.NewKeyFromSeed(raw[:32]).Public()) {
			return nil, errors.New("reviewers: key: inconsistent 64-byte ed25519 key")
		}
		return priv, nil
	}
	return nil, fmt.Errorf("reviewers: key: %d bytes, want 32 or 64", len(raw))
}

// looksLikeKeyFile reports whether path holds a JSON document (a keygen
// key file) rather than PEM or base64.
func looksLikeKeyFile(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	head := make([]byte, 64)
	n, _ := f.Read(head)
	return strings.HasPrefix(strings.TrimSpace(string(head[:n])), "{")
}

// loadKeygenKey reads the key file `formation keygen` writes, with the
// signing package's checks (owner-only permissions, parts that agree).
func loadKeygenKey(path string) (ed25519.PrivateKey, error) {
	sk, err := signing.LoadSigningKey(path)
	if err != nil {
		return nil, fmt.Errorf("reviewers: key: %w", err)
	}
	return sk.Private(), nil
}
