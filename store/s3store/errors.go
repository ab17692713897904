package s3store

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"

	"github.com/minio/minio-go/v7"

	"formation/store/internal/core"
)

// mapErr turns a minio-go or transport error into a store error of the right
// kind: 404 → ErrNotFound, 412 → ErrPrecondition, a key that collides with a
// folder on posix-backed servers → ErrInvalid, 5xx / throttling / network /
// timeout → ErrUnavailable (retryable). Anything else (e.g. access denied)
// keeps a nil kind.
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
		return core.E(op, key, kindOf(resp), err)
	}
	var netErr net.Error
	if errors.Is(err, context.DeadlineExceeded) || errors.As(err, &netErr) ||
		errors.Is(err, io.ErrUnexpectedEOF) {
		return core.E(op, key, core.ErrUnavailable, err)
	}
	return core.E(op, key, nil, err)
}

func kindOf(resp minio.ErrorResponse) error {
	switch resp.Code {
	case "NoSuchKey", "NoSuchBucket":
		return core.ErrNotFound
	case "PreconditionFailed":
		return core.ErrPrecondition
	case "ObjectParentIsFile", "ExistingObjectIsDirectory":
		return core.ErrInvalid
	case "SlowDown", "RequestTimeout", "ServiceUnavailable", "InternalError":
		return core.ErrUnavailable
	}
	switch {
	case resp.StatusCode == http.StatusNotFound:
		return core.ErrNotFound
	case resp.StatusCode == http.StatusPreconditionFailed:
		return core.ErrPrecondition
	case resp.StatusCode == http.StatusTooManyRequests, resp.StatusCode >= 500:
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
