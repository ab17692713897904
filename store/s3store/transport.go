package s3store

import (
	"context"
	"net"
	"net/http"
	"time"

	"github.com/minio/minio-go/v7"
)

// A dial or TLS handshake never waits longer than maxConnectWait (or the
// attempt timeout when that is shorter).
const maxConnectWait = 10 * time.Second

// newTransport is minio-go's default transport with deadlines: the response
// headers must arrive within timeout, and a connection on which no byte moves
// for timeout fails (a frozen server mid-body), whatever the request.
func newTransport(secure bool, timeout time.Duration) (*http.Transport, error) {
	tr, err := minio.DefaultTransport(secure)
	if err != nil {
		return nil, err
	}
	connect := min(timeout, maxConnectWait)
	dialer := &net.Dialer{Timeout: connect, KeepAlive: 30 * time.Second}
	tr.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := dialer.DialContext(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		return &idleConn{Conn: c, idle: timeout}, nil
	}
	tr.TLSHandshakeTimeout = connect
	tr.ResponseHeaderTimeout = timeout
	// A pooled connection is closed well before its idle deadline could fail
	// the next request sent on it.
	tr.IdleConnTimeout = timeout / 2
	tr.ExpectContinueTimeout = min(timeout, tr.ExpectContinueTimeout)
	return tr, nil
}

// idleConn fails a read or write that makes no progress for idle. A write
// also moves the read deadline: the transport's reader is already blocked
// waiting for the reply to the request being written.
type idleConn struct {
	net.Conn
	idle time.Duration
}

func (c *idleConn) Read(p []byte) (int, error) {
	if err := c.Conn.SetReadDeadline(time.Now().Add(c.idle)); err != nil {
		return 0, err
	}
	return c.Conn.Read(p)
}

func (c *idleConn) Write(p []byte) (int, error) {
	if err := c.Conn.SetDeadline(time.Now().Add(c.idle)); err != nil {
		return 0, err
	}
	return c.Conn.Write(p)
}
