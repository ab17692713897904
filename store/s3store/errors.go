package s3store

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"

	"github.com/minio/minio-go/v7"

	"formation/store/internal/core"
)

// mapErr turns a minio-go or transport error into a store error of the right
// kind:
//
//   - 404 → ErrNotFound, 412 → ErrPrecondition, a key that collides with a
//     folder on posix-backed servers → ErrInvalid;
//   - credentials the server refuses (InvalidAccessKeyId,
//     SignatureDoesNotMatch, AccessDenied …) → ErrDenied;
//   - a missing bucket, a reply that is not an S3 reply (an error status with
//     no S3 error document), a TLS mismatch or an endpoint name that does not
//     resolve → ErrConfig: no retry can help;
//   - 5xx, throttling, refused or reset connections and timeouts →
//     ErrUnavailable (retryable).
//
// Anything else keeps a nil kind (exit 1).
func mapErr(op, key string, err error) error {
	var se *core.Error
	if errors.As(err, &se) {
		return err
	}
	if errors.Is(err, context.Canceled) {
		return core.E(op, key, nil, err)
	}
	var resp minio.ErrorResponse
	if errors.As(err, &resp) && (resp.StatusCode != 0 || resp.Code != "") {
		kind := kindOf(resp)
		if kind == core.ErrConfig && !isS3Code(resp.Code) {
			err = fmt.Errorf("the endpoint answered %q, which is not an S3 reply: is FORMATION_S3_ENDPOINT an S3 server?", resp.Code)
		}
		return core.E(op, key, kind, err)
	}
	if kind := transportKind(err); kind != nil {
		return core.E(op, key, kind, err)
	}
	return core.E(op, key, nil, err)
}

func kindOf(resp minio.ErrorResponse) error {
	switch resp.Code {
	case "NoSuchKey":
		return core.ErrNotFound
	case "NoSuchBucket":
		return core.ErrConfig
	case "PreconditionFailed":
		return core.ErrPrecondition
	case "ObjectParentIsFile", "ExistingObjectIsDirectory":
		return core.ErrInvalid
	case "SlowDown", "RequestTimeout", "ServiceUnavailable", "InternalError":
		return core.ErrUnavailable
	case "InvalidAccessKeyId", "SignatureDoesNotMatch", "AccessDenied", "InvalidToken", "ExpiredToken",
		"TokenRefreshRequired", "AllAccessDisabled", "AccountProblem", "InvalidSecurity",
		"XAdminUserNotFound": // versitygw's answer to an unknown access key
		return core.ErrDenied
	}
	switch {
	case resp.StatusCode == http.StatusNotFound:
		return core.ErrNotFound
	case resp.StatusCode == http.StatusPreconditionFailed:
		return core.ErrPrecondition
	case resp.StatusCode == http.StatusTooManyRequests, resp.StatusCode >= 500:
		return core.ErrUnavailable
	case !isS3Code(resp.Code):
		return core.ErrConfig
	}
	return nil
}

// isS3Code tells an S3 error code (NoSuchKey, SlowDown …) from the HTTP
// status minio-go puts in its place when the reply carried no S3 error
// document ("400 Bad Request").
func isS3Code(code string) bool {
	return code != "" && !strings.ContainsAny(code[:1], "0123456789")
}

// transportKind classifies a failure below HTTP: a TLS mismatch or a name
// that does not resolve is configuration; anything else on the network
// (refused, reset, timed out, cut short) is worth a retry.
func transportKind(err error) error {
	var recordErr tls.RecordHeaderError
	var certErr *tls.CertificateVerificationError
	var unknownAuthority x509.UnknownAuthorityError
	var hostname x509.HostnameError
	var invalid x509.CertificateInvalidError
	var dnsErr *net.DNSError
	switch {
	case errors.As(err, &recordErr), errors.As(err, &certErr), errors.As(err, &unknownAuthority),
		errors.As(err, &hostname), errors.As(err, &invalid),
		strings.Contains(err.Error(), "server gave HTTP response to HTTPS client"):
		return core.ErrConfig
	case errors.As(err, &dnsErr) && dnsErr.IsNotFound:
		return core.ErrConfig
	}
	var netErr net.Error
	if errors.Is(err, context.DeadlineExceeded) || errors.As(err, &netErr) || errors.Is(err, io.ErrUnexpectedEOF) {
		return core.ErrUnavailable
	}
	return nil
}

// isNoSuchBucket tells a missing bucket (a configuration problem) apart from
// a missing key.
func isNoSuchBucket(err error) bool {
	var resp minio.ErrorResponse
	return errors.As(err, &resp) && resp.Code == "NoSuchBucket"
}

// classify refines a mapped error with what only the store knows:
//
//   - a 404 may come from a server that is not S3 at all, or from a bucket
//     that does not exist (a HEAD reply has no body to say which), so the
//     bucket is looked up once per store and, when the endpoint does not
//     hold it, the 404 becomes ErrConfig;
//   - a refusal of anonymous requests, when no credentials were found
//     anywhere, is missing configuration (ErrConfig), not refused
//     credentials.
func (s *Store) classify(ctx context.Context, mapped error) error {
	if errors.Is(mapped, core.ErrDenied) && s.anonymous() {
		return core.E("open", s.String(), core.ErrConfig, errors.New("no S3 credentials found: set AWS_ACCESS_KEY_ID and "+
			"AWS_SECRET_ACCESS_KEY, or provide an AWS credentials file or an instance role"))
	}
	if !errors.Is(mapped, core.ErrNotFound) && !isNoSuchBucket(mapped) {
		return mapped
	}
	ok, err := s.bucketReachable(ctx)
	if err != nil {
		return err
	}
	if !ok {
		return core.E("open", s.String(), core.ErrConfig,
			fmt.Errorf("the endpoint %s answers 404 for the bucket %q: not an S3 server, or no such bucket there", s.cfg.Endpoint, s.cfg.Bucket))
	}
	return mapped
}

// anonymous reports whether requests go out unsigned because no credentials
// were configured or found.
func (s *Store) anonymous() bool {
	if s.cfg.AccessKey != "" {
		return false
	}
	v, err := s.creds.GetWithContext(nil)
	return err != nil || v.SignerType.IsAnonymous()
}

// bucketReachable asks once whether the bucket exists; a definite answer is
// kept for the life of the store, a failure is not. It lists (a GET, whose
// error reply has a body naming its cause) rather than HEADs the bucket, so
// that refused credentials are told apart from a missing bucket.
func (s *Store) bucketReachable(ctx context.Context) (bool, error) {
	s.probe.Lock()
	defer s.probe.Unlock()
	if s.probed {
		return s.bucketOK, nil
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel() // one page is enough: stop the listing after it
	ok := true
	opts := minio.ListObjectsOptions{Prefix: s.Key(core.RefsDir) + "/", MaxKeys: 1}
	if obj, more := <-s.client.ListObjects(ctx, s.cfg.Bucket, opts); more && obj.Err != nil {
		mapped := mapErr("open", s.String(), obj.Err)
		if !errors.Is(mapped, core.ErrConfig) && !errors.Is(mapped, core.ErrNotFound) {
			return false, mapped
		}
		ok = false
	}
	s.probed, s.bucketOK = true, ok
	return ok, nil
}
