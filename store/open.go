package store

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	"formation/store/filestore"
	"formation/store/internal/core"
	"formation/store/s3store"
)

// DefaultURL is the store used when none is named: a folder in the working
// directory.
const DefaultURL = "file://./.formation"

// Open opens the store named by rawURL, creating a file:// folder that does
// not exist yet. Commands that only read use OpenExisting.
//
//	file://DIR or DIR      a local folder
//	s3://bucket[/prefix]   an S3 bucket
//	""                     DefaultURL
//
// Anything else with a ':' before its first '/' (s3:/x, file:x, http://…)
// is refused with ErrInvalid, never taken for a folder name.
//
// For S3 the endpoint comes from FORMATION_S3_ENDPOINT (host:port, or an
// http:// or https:// URL; AWS_ENDPOINT_URL_S3 and AWS_ENDPOINT_URL are
// fallbacks; default s3.amazonaws.com), credentials from AWS_ACCESS_KEY_ID,
// AWS_SECRET_ACCESS_KEY and AWS_SESSION_TOKEN (else the AWS credentials file
// or the instance role), the region from AWS_REGION or AWS_DEFAULT_REGION.
// A host:port endpoint uses https unless FORMATION_S3_INSECURE=1. A malformed
// endpoint, credential or deadline setting is ErrConfig.
// FORMATION_S3_TIMEOUT (a Go duration, default 30s) bounds every attempt of
// an operation, and FORMATION_S3_RETRY_BUDGET (default 60s) how long one
// operation may go on retrying transient failures; a dead endpoint fails an
// operation with ErrUnavailable within their sum.
func Open(ctx context.Context, rawURL string) (Store, error) {
	return openEnv(ctx, rawURL, create, os.Getenv)
}

// OpenExisting opens the store named by rawURL (as Open does) without
// creating anything: a file:// folder that does not hold a store is
// ErrNotFound. Read-only commands use it, so that a mistyped --store never
// leaves a folder behind.
func OpenExisting(ctx context.Context, rawURL string) (Store, error) {
	return openEnv(ctx, rawURL, existing, os.Getenv)
}

// AcceptedURLs names the forms of a store URL, for messages.
const AcceptedURLs = "file://DIR, s3://bucket/prefix or a plain folder path"

// openMode says whether opening may create a file:// folder.
type openMode int

const (
	existing openMode = iota
	create
)

func openEnv(ctx context.Context, rawURL string, mode openMode, getenv func(string) string) (Store, error) {
	if err := ctx.Err(); err != nil {
		return nil, core.E("open", "", nil, err)
	}
	if rawURL == "" {
		rawURL = DefaultURL
	}
	scheme, rest, err := splitURL(rawURL)
	if err != nil {
		return nil, err
	}
	switch scheme {
	case "", "file":
		if mode == create {
			return filestore.Open(rest)
		}
		return filestore.OpenExisting(rest)
	}
	bucket, prefix, _ := strings.Cut(rest, "/")
	if err := checkBucketPrefix(bucket, strings.TrimSuffix(prefix, "/")); err != nil {
		return nil, core.E("open", "s3://"+rest, core.ErrInvalid, err)
	}
	cfg, err := s3Config(rest, getenv)
	if err != nil {
		return nil, core.E("open", "s3://"+rest, core.ErrConfig, err)
	}
	return s3store.New(cfg)
}

// splitURL returns the scheme ("" for a plain path, "file" or "s3") and the
// rest. A plain path has no ':' before its first '/': "s3:/x" or "c:x" are
// mistyped URLs, not folder names.
func splitURL(raw string) (scheme, rest string, err error) {
	if s, r, ok := strings.Cut(raw, "://"); ok && (s == "file" || s == "s3") {
		if r == "" {
			return "", "", core.Errorf("open", raw, core.ErrInvalid, "nothing after "+s+"://; want "+AcceptedURLs)
		}
		return s, r, nil
	}
	head, _, _ := strings.Cut(raw, "/")
	if strings.Contains(head, ":") {
		return "", "", core.Errorf("open", raw, core.ErrInvalid, "not a store URL; want "+AcceptedURLs)
	}
	return "", raw, nil
}

// s3Config builds the backend configuration from bucket/prefix and the
// environment.
func s3Config(bucketPrefix string, getenv func(string) string) (s3store.Config, error) {
	bucket, prefix, _ := strings.Cut(bucketPrefix, "/")
	prefix = strings.TrimSuffix(prefix, "/")
	endpoint, secure, err := s3Endpoint(getenv)
	if err != nil {
		return s3store.Config{}, err
	}
	access, secret := getenv("AWS_ACCESS_KEY_ID"), getenv("AWS_SECRET_ACCESS_KEY")
	if err := checkCredentials(access, secret); err != nil {
		return s3store.Config{}, err
	}
	timeout, err := envDuration(getenv, "FORMATION_S3_TIMEOUT", false)
	if err != nil {
		return s3store.Config{}, err
	}
	budget, err := envDuration(getenv, "FORMATION_S3_RETRY_BUDGET", true)
	if err != nil {
		return s3store.Config{}, err
	}
	region := getenv("AWS_REGION")
	if region == "" {
		region = getenv("AWS_DEFAULT_REGION")
	}
	return s3store.Config{
		Endpoint:     endpoint,
		Secure:       secure,
		AccessKey:    access,
		SecretKey:    secret,
		SessionToken: getenv("AWS_SESSION_TOKEN"),
		Region:       region,
		Bucket:       bucket,
		Prefix:       prefix,
		Timeout:      timeout,
		RetryBudget:  budget,
	}, nil
}

// checkCredentials refuses a half-set or malformed key pair from the
// environment (neither set means: the credentials file or the instance role).
func checkCredentials(access, secret string) error {
	switch {
	case access == "" && secret == "":
		return nil
	case access == "" || secret == "":
		return errors.New("bad credentials: AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY must be set together")
	case strings.ContainsFunc(access+secret, func(r rune) bool { return r <= ' ' || r == 0x7f }):
		return errors.New("bad credentials: AWS_ACCESS_KEY_ID or AWS_SECRET_ACCESS_KEY holds spaces or control characters")
	}
	return nil
}

// envDuration reads a Go duration from the environment; unset is 0 (the
// backend's default). A zero budget means no retries, which the backend
// spells as a negative one.
func envDuration(getenv func(string) string, name string, zeroAllowed bool) (time.Duration, error) {
	v := getenv(name)
	if v == "" {
		return 0, nil
	}
	d, err := time.ParseDuration(v)
	switch {
	case err != nil || d < 0:
		return 0, fmt.Errorf("%s=%q: want a Go duration such as 30s or 2m", name, v)
	case d == 0 && !zeroAllowed:
		return 0, fmt.Errorf("%s=%q: must be more than 0", name, v)
	case d == 0:
		return -1, nil
	}
	return d, nil
}

func checkBucketPrefix(bucket, prefix string) error {
	if bucket == "" {
		return errors.New("missing bucket name")
	}
	for i := 0; i < len(bucket); i++ {
		c := bucket[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '.') {
			return fmt.Errorf("bucket name: character %q not allowed", c)
		}
	}
	if prefix == "" {
		return nil
	}
	for _, seg := range strings.Split(prefix, "/") {
		if err := core.ValidSubjectID(seg); err != nil {
			return fmt.Errorf("prefix segment %q: must be [A-Za-z0-9._-]+, not starting with '.'", seg)
		}
	}
	return nil
}

// s3Endpoint returns host[:port] and whether to use https.
func s3Endpoint(getenv func(string) string) (string, bool, error) {
	raw := firstSet(getenv, "FORMATION_S3_ENDPOINT", "AWS_ENDPOINT_URL_S3", "AWS_ENDPOINT_URL")
	insecure := false
	if v := getenv("FORMATION_S3_INSECURE"); v != "" {
		b, err := strconv.ParseBool(v)
		if err != nil {
			return "", false, fmt.Errorf("FORMATION_S3_INSECURE=%q: want 1 or 0", v)
		}
		insecure = b
	}
	if raw == "" {
		return "s3.amazonaws.com", !insecure, nil
	}
	if !strings.Contains(raw, "://") {
		return raw, !insecure, nil
	}
	u, err := url.Parse(raw)
	if err != nil {
		// The parse error quotes the URL, which might hold a password.
		return "", false, errors.New("S3 endpoint is not a valid URL")
	}
	if u.Host == "" || (u.Path != "" && u.Path != "/") || u.User != nil || u.RawQuery != "" {
		return "", false, errors.New("S3 endpoint: want scheme://host[:port] and nothing else")
	}
	switch u.Scheme {
	case "http":
		return u.Host, false, nil
	case "https":
		return u.Host, true, nil
	}
	return "", false, fmt.Errorf("S3 endpoint: unsupported scheme %q", u.Scheme)
}

func firstSet(getenv func(string) string, names ...string) string {
	for _, n := range names {
		if v := getenv(n); v != "" {
			return v
		}
	}
	return ""
}
