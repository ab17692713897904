// Package faultproxy is an HTTP proxy that injects the faults an S3 client
// meets in production, for tests in front of the real S3 server: throttling
// (503 SlowDown), connection resets, lost replies (the request reaches the
// server and is applied, the reply is dropped), a frozen server (connections
// accepted, nothing answered) and outages (connections refused).
//
// The proxy forwards requests unchanged, Host header included, so the
// client's signatures stay valid. Faults are chosen by rules over the
// requests, with a seeded random source so that a run can be repeated.
package faultproxy

import (
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

// Fault is what the proxy does to a request.
type Fault int

// The faults.
const (
	Pass      Fault = iota // forward the request and its reply
	SlowDown               // answer 503 SlowDown without forwarding
	Reset                  // reset the connection without forwarding
	LoseReply              // forward the request (the server applies it), then drop the connection instead of replying
	Freeze                 // hold the request unanswered until Thaw or the client gives up
)

func (f Fault) String() string {
	return [...]string{"pass", "slowdown", "reset", "lose-reply", "freeze"}[f]
}

// Rule picks a fault for the requests it matches.
type Rule struct {
	Match func(*http.Request) bool // nil matches every request
	Fault Fault
	Rate  float64 // probability per matching request; 0 means always
	Count int     // at most this many faults from this rule; 0 means no limit
	// FirstTry fires at most once per distinct request (method, path, query
	// and conditional headers): the client's first attempt meets the fault,
	// its retry goes through.
	FirstTry bool
	// Applied, for LoseReply, runs after the server applied the request and
	// before the reply is dropped (to interleave another writer, say).
	Applied func(*http.Request)
}

// ObjectWrite matches uploads of objects (a whole object or one part).
func ObjectWrite(r *http.Request) bool {
	return (r.Method == http.MethodPut || r.Method == http.MethodPost) && strings.Contains(r.URL.Path, "/objects/")
}

// RefWrite matches the conditional writes of refs (compare-and-swap).
func RefWrite(r *http.Request) bool {
	return r.Method == http.MethodPut && strings.Contains(r.URL.Path, "/refs/") &&
		(r.Header.Get("If-Match") != "" || r.Header.Get("If-None-Match") != "")
}

// Either matches what any of ms matches.
func Either(ms ...func(*http.Request) bool) func(*http.Request) bool {
	return func(r *http.Request) bool {
		for _, m := range ms {
			if m(r) {
				return true
			}
		}
		return false
	}
}

// Proxy is a running fault-injecting proxy.
type Proxy struct {
	addr     string
	upstream string
	fwd      *http.Transport
	srv      *http.Server

	mu      sync.Mutex
	rng     *rand.Rand
	rules   []Rule
	used    []int
	tried   []map[string]bool
	counts  map[Fault]int
	frozen  chan struct{} // closed when thawed; nil when not frozen
	ln      net.Listener
	conns   map[net.Conn]bool
	closed  bool
	outages sync.WaitGroup
}

// Start runs a proxy in front of upstream (host:port) on a free local port
// until the test ends. seed fixes the random choices of Rate rules.
func Start(t testing.TB, upstream string, seed uint64) *Proxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("faultproxy: %v", err)
	}
	p := &Proxy{
		addr: ln.Addr().String(), upstream: upstream, ln: ln,
		fwd:    &http.Transport{MaxIdleConnsPerHost: 16, DisableCompression: true},
		rng:    rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)),
		counts: map[Fault]int{},
		conns:  map[net.Conn]bool{},
	}
	p.srv = &http.Server{Handler: p, ConnState: p.track}
	go func() { _ = p.srv.Serve(ln) }()
	t.Cleanup(p.close)
	return p
}

// Endpoint is the proxy's host:port, to use as the S3 endpoint.
func (p *Proxy) Endpoint() string { return p.addr }

// SetRules replaces the rules; the first rule that matches a request and
// fires decides its fault.
func (p *Proxy) SetRules(rules ...Rule) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.rules, p.used, p.tried = rules, make([]int, len(rules)), make([]map[string]bool, len(rules))
	for i := range p.tried {
		p.tried[i] = map[string]bool{}
	}
}

// Counts returns how many times each fault was injected.
func (p *Proxy) Counts() map[Fault]int {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := map[Fault]int{}
	for f, n := range p.counts {
		out[f] = n
	}
	return out
}

// Freeze holds every request from now on unanswered until Thaw.
func (p *Proxy) Freeze() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.frozen == nil {
		p.frozen = make(chan struct{})
	}
}

// Thaw releases held requests (they are then forwarded) and ends Freeze.
func (p *Proxy) Thaw() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.frozen != nil {
		close(p.frozen)
		p.frozen = nil
	}
}

// Outage refuses connections for d: the listener closes, open connections
// are cut, and after d the proxy listens again on the same address. It
// returns at once; Wait waits for the end of every outage.
func (p *Proxy) Outage(d time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return
	}
	_ = p.ln.Close()
	for c := range p.conns {
		_ = c.Close()
	}
	p.outages.Add(1)
	go func() {
		defer p.outages.Done()
		time.Sleep(d)
		p.relisten()
	}()
}

// Wait waits until every outage has ended.
func (p *Proxy) Wait() { p.outages.Wait() }

func (p *Proxy) relisten() {
	for range 50 {
		p.mu.Lock()
		if p.closed {
			p.mu.Unlock()
			return
		}
		ln, err := net.Listen("tcp", p.addr)
		if err == nil {
			p.ln = ln
			p.mu.Unlock()
			go func() { _ = p.srv.Serve(ln) }()
			return
		}
		p.mu.Unlock()
		time.Sleep(100 * time.Millisecond)
	}
	panic("faultproxy: cannot listen again on " + p.addr)
}

func (p *Proxy) close() {
	p.mu.Lock()
	p.closed = true
	if p.frozen != nil {
		close(p.frozen)
		p.frozen = nil
	}
	p.mu.Unlock()
	_ = p.srv.Close()
	p.outages.Wait()
	p.fwd.CloseIdleConnections()
}

func (p *Proxy) track(c net.Conn, state http.ConnState) {
	p.mu.Lock()
	defer p.mu.Unlock()
	switch state {
	case http.StateNew:
		p.conns[c] = true
	case http.StateClosed, http.StateHijacked:
		delete(p.conns, c)
	}
}

// pick decides the fault for a request.
func (p *Proxy) pick(r *http.Request) (Fault, func(*http.Request), chan struct{}) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.frozen != nil {
		p.counts[Freeze]++
		return Freeze, nil, p.frozen
	}
	for i, rule := range p.rules {
		if rule.Match != nil && !rule.Match(r) {
			continue
		}
		if rule.Count > 0 && p.used[i] >= rule.Count {
			continue
		}
		key := requestKey(r)
		if rule.FirstTry && p.tried[i][key] {
			continue
		}
		if rule.Rate > 0 && p.rng.Float64() >= rule.Rate {
			continue
		}
		p.tried[i][key] = true
		p.used[i]++
		p.counts[rule.Fault]++
		return rule.Fault, rule.Applied, nil
	}
	return Pass, nil, nil
}

// requestKey names a request the same way on every attempt of it.
func requestKey(r *http.Request) string {
	return r.Method + " " + r.URL.RequestURI() + " " + r.Header.Get("If-Match") + " " + r.Header.Get("If-None-Match")
}

func (p *Proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	fault, applied, frozen := p.pick(r)
	switch fault {
	case Freeze:
		select {
		case <-frozen:
		case <-r.Context().Done():
			return
		}
	case SlowDown:
		slowDown(w, r)
		return
	case Reset:
		reset(w)
		return
	}
	resp, err := p.forward(r)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	defer resp.Body.Close()
	if fault == LoseReply {
		_, _ = io.Copy(io.Discard, resp.Body)
		if applied != nil {
			applied(r)
		}
		reset(w)
		return
	}
	for k, vs := range resp.Header {
		w.Header()[k] = vs
	}
	w.WriteHeader(resp.StatusCode)
	_, _ = io.Copy(w, resp.Body)
}

// forward sends the request to the upstream server as it came.
func (p *Proxy) forward(r *http.Request) (*http.Response, error) {
	out := r.Clone(r.Context())
	out.URL.Scheme, out.URL.Host = "http", p.upstream
	out.RequestURI = ""
	out.Host = r.Host
	if r.ContentLength == 0 {
		out.Body = nil
	}
	resp, err := p.fwd.RoundTrip(out)
	if err != nil {
		return nil, fmt.Errorf("faultproxy: upstream: %w", err)
	}
	return resp, nil
}

// slowDown answers as a throttling S3 server does.
func slowDown(w http.ResponseWriter, r *http.Request) {
	_, _ = io.Copy(io.Discard, r.Body)
	w.Header().Set("Content-Type", "application/xml")
	w.Header().Set("Retry-After", "0")
	w.WriteHeader(http.StatusServiceUnavailable)
	_, _ = io.WriteString(w, `<?xml version="1.0" encoding="UTF-8"?>`+
		`<Error><Code>SlowDown</Code><Message>Please reduce your request rate.</Message></Error>`)
}

// reset closes the client's connection with a TCP reset, no reply written.
func reset(w http.ResponseWriter) {
	conn, _, err := http.NewResponseController(w).Hijack()
	if err != nil {
		panic(http.ErrAbortHandler)
	}
	if tcp, ok := conn.(*net.TCPConn); ok {
		_ = tcp.SetLinger(0)
	}
	_ = conn.Close()
}
