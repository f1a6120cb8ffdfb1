// Package directhttp is an http.RoundTripper for plain http:// services on
// the loopback or the LAN (a facilitator's POST /settle, a JSON-RPC eth_call)
// that performs each exchange on the caller's goroutine.
//
// net/http's Transport hands every exchange to the two goroutines it keeps
// per connection (persistConn's writeLoop and readLoop), and each handoff
// readies a goroutine and may wake a P and start an M (a futex wake):
// profiles of farebox put that at ~80-100 µs of CPU per loopback exchange
// on top of the syscalls. Here the caller writes the request, reads the
// whole response and puts the connection back in the pool before RoundTrip
// returns: an exchange costs its syscalls and little else
// (BenchmarkRoundTrip compares the two).
//
// Left out on purpose: https, HTTP/2, proxies, Expect: 100-continue (the
// body is always sent at once), transparent gzip (no Accept-Encoding is
// added), protocol upgrades, and streaming response bodies: the body is read
// whole, up to a cap, so a response may not be an endless stream.
package directhttp

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"sync"
	"time"

	"golang.org/x/net/http/httpguts"
	"golang.org/x/net/http/httpproxy"
)

// Defaults of Options' zero fields.
const (
	defaultDialTimeout      = 10 * time.Second
	defaultMaxIdlePerHost   = 32
	defaultIdleTimeout      = 90 * time.Second
	defaultMaxResponseBytes = 64 << 20

	// writeBufferBytes holds the headers and a request body of a few KiB
	// (a settlement, an eth_call), so the request goes out in one write.
	writeBufferBytes = 32 << 10
	// readBufferBytes holds a typical response's headers and body in one
	// read; larger bodies are read past the buffer, straight into theirs.
	readBufferBytes = 8 << 10
	// preallocMax bounds the body buffer allocated up front from a
	// response's Content-Length, so a lying header costs at most this much
	// before any byte arrived; larger bodies grow as they are read.
	preallocMax = 1 << 20
	// max1xx bounds the interim (1xx) responses skipped before the final one.
	max1xx = 5
)

// aLongTimeAgo is a deadline in the past: setting it fails a blocked read or
// write at once, which is how a cancelled context interrupts an exchange.
var aLongTimeAgo = time.Unix(1, 0)

// Options tunes a Transport so callers can bound dials, idle sockets and the
// memory of a response; every zero field takes its default.
type Options struct {
	// DialTimeout bounds a dial so an unreachable host fails on its own even
	// under a context without deadline (default 10s).
	DialTimeout time.Duration
	// MaxIdlePerHost caps the idle connections kept per host:port so a burst
	// of concurrency leaves a bounded number of sockets open (default 32).
	MaxIdlePerHost int
	// IdleTimeout is how long an idle connection stays reusable, so a socket
	// the server likely dropped meanwhile is not written to (default 90s).
	IdleTimeout time.Duration
	// MaxResponseBytes caps a response body, which is read whole into
	// memory, so a runaway server cannot exhaust it (default 64 MiB).
	MaxResponseBytes int64
}

// Transport is an http.RoundTripper for http:// URLs that writes the request
// and reads the response on the caller's goroutine over pooled keep-alive
// connections (no per-connection goroutines), saving net/http's goroutine
// handoffs on every exchange. https and proxies are not its job: callers use
// it only for plain http without a proxy (see Eligible).
//
// The response body RoundTrip returns is already in memory: the connection
// is back in the pool (or closed) when RoundTrip returns, and closing the
// body is optional. A Transport is safe for concurrent use; the zero value
// is not usable: call New.
type Transport struct {
	dialer           net.Dialer
	maxIdlePerHost   int
	idleTimeout      time.Duration
	maxResponseBytes int64

	mu   sync.Mutex
	idle map[string][]*conn // per host:port, oldest first; reuse takes the newest (LIFO)

	usableHook func(*conn) bool // tests: replaces the liveness probe of an idle connection
}

// New returns a Transport with opts' limits, so callers get the defaults
// filled in for the fields they leave zero.
func New(opts Options) *Transport {
	if opts.DialTimeout <= 0 {
		opts.DialTimeout = defaultDialTimeout
	}
	if opts.MaxIdlePerHost <= 0 {
		opts.MaxIdlePerHost = defaultMaxIdlePerHost
	}
	if opts.IdleTimeout <= 0 {
		opts.IdleTimeout = defaultIdleTimeout
	}
	if opts.MaxResponseBytes <= 0 {
		opts.MaxResponseBytes = defaultMaxResponseBytes
	}
	return &Transport{
		// net sets TCP_NODELAY on every TCP connection (Go's default), so
		// the request's single write leaves at once.
		dialer:           net.Dialer{Timeout: opts.DialTimeout, KeepAlive: 30 * time.Second},
		maxIdlePerHost:   opts.MaxIdlePerHost,
		idleTimeout:      opts.IdleTimeout,
		maxResponseBytes: opts.MaxResponseBytes,
		idle:             make(map[string][]*conn),
	}
}

// conn is one keep-alive connection, used by one exchange at a time.
type conn struct {
	nc        net.Conn
	addr      string // the pool's key: host:port
	cw        countingWriter
	bw        *bufio.Writer // over cw, writeBufferBytes
	br        *bufio.Reader // over nc
	idleSince time.Time
	live      liveness // the platform's probe of an idle connection
}

// countingWriter counts the bytes the connection accepted and keeps the
// first write error, so a failed write is known to have sent nothing.
type countingWriter struct {
	nc  net.Conn
	n   int64
	err error
}

func (w *countingWriter) Write(p []byte) (int, error) {
	n, err := w.nc.Write(p)
	w.n += int64(n)
	if err != nil && w.err == nil {
		w.err = err
	}
	return n, err
}

func newConn(nc net.Conn, addr string) *conn {
	c := &conn{nc: nc, addr: addr, cw: countingWriter{nc: nc}}
	c.bw = bufio.NewWriterSize(&c.cw, writeBufferBytes)
	c.br = bufio.NewReaderSize(nc, readBufferBytes)
	c.live.init(nc)
	return c
}

// usable reports whether an idle connection can carry a request: no
// unsolicited bytes are buffered and the peer has not closed it.
func (t *Transport) usable(c *conn) bool {
	if t.usableHook != nil {
		return t.usableHook(c)
	}
	return c.br.Buffered() == 0 && c.live.usable(time.Since(c.idleSince))
}

// RoundTrip performs one HTTP/1.1 exchange on the caller's goroutine, so a
// loopback exchange costs its syscalls and not goroutine handoffs; it reads
// the whole response body (up to MaxResponseBytes) before returning.
//
// The request's context bounds the whole exchange: its deadline becomes the
// connection's, and cancelling it interrupts a blocked read or write. When
// the context ended, the error satisfies errors.Is with ctx.Err().
//
// A request is sent at most once, with one exception: when writing it to a
// reused idle connection failed before the connection accepted a single
// byte (the server had closed it after the liveness probe passed), the
// server cannot have seen any of it, and a body that can be replayed (none,
// or GetBody) is sent again on a fresh connection. Once any byte went out,
// and certainly once the request was fully written, a failure is returned
// as is: a POST /settle may have reached the server, the caller treats it as
// pending, and a retry here could settle twice.
func (t *Transport) RoundTrip(req *http.Request) (*http.Response, error) {
	if err := checkRequest(req); err != nil {
		closeBody(req)
		return nil, err
	}
	ctx := req.Context()
	if err := ctx.Err(); err != nil {
		closeBody(req)
		return nil, fmt.Errorf("directhttp: %w", err)
	}
	base := withURLAuth(req)
	addr := hostPort(req.URL)
	r := base
	for retry := false; ; retry = true {
		c, reused, err := t.getConn(ctx, addr, retry)
		if err != nil {
			closeBody(r)
			return nil, err
		}
		resp, replayable, err := t.exchange(ctx, c, r)
		if err == nil {
			resp.Request = req
			return resp, nil
		}
		if retry || !reused || !replayable || ctx.Err() != nil {
			return nil, err
		}
		if r = rewind(base); r == nil {
			return nil, err
		}
	}
}

// exchange writes req on c and reads the whole response. On error c is
// closed, and replayable reports that c accepted no byte of the request.
func (t *Transport) exchange(ctx context.Context, c *conn, req *http.Request) (resp *http.Response, replayable bool, err error) {
	deadline, hasDeadline := ctx.Deadline()
	if hasDeadline {
		c.nc.SetDeadline(deadline)
	}
	var stop func() bool
	if ctx.Done() != nil {
		nc := c.nc
		stop = context.AfterFunc(ctx, func() { nc.SetDeadline(aLongTimeAgo) })
	}
	resp, what, err := t.do(c, req)
	// interrupted: the AfterFunc ran (or is running), so c's deadline is
	// in the past, or about to be: c cannot be pooled.
	interrupted := stop != nil && !stop()
	if err != nil {
		c.nc.Close()
		replayable = what == phaseWrite && c.cw.n == 0 && c.cw.err != nil
		return nil, replayable, failure(ctx, deadline, hasDeadline, what, err)
	}
	if resp.Close || req.Close || !resp.ProtoAtLeast(1, 1) || interrupted {
		c.nc.Close()
		return resp, false, nil
	}
	if hasDeadline {
		c.nc.SetDeadline(time.Time{})
	}
	t.putConn(c)
	return resp, false, nil
}

// The phases of an exchange, named in its errors: a failure while writing
// may have left the request incomplete, one while reading came after the
// whole request was sent.
const (
	phaseWrite = "writing the request"
	phaseRead  = "reading the response"
)

// do writes req and reads the response, body included, into memory.
func (t *Transport) do(c *conn, req *http.Request) (*http.Response, string, error) {
	c.cw.n, c.cw.err = 0, nil
	if err := req.Write(c.bw); err != nil {
		return nil, phaseWrite, err
	}
	if err := c.bw.Flush(); err != nil {
		return nil, phaseWrite, err
	}
	var resp *http.Response
	for n := 0; ; n++ {
		var err error
		if resp, err = http.ReadResponse(c.br, req); err != nil {
			return nil, phaseRead, err
		}
		if resp.StatusCode >= 200 {
			break
		}
		if resp.StatusCode == http.StatusSwitchingProtocols {
			return nil, phaseRead, errors.New("protocol upgrades are not supported")
		}
		if n == max1xx {
			return nil, phaseRead, fmt.Errorf("more than %d interim responses", max1xx)
		}
	}
	body, err := t.readBody(resp)
	if err != nil {
		return nil, phaseRead, err
	}
	resp.Body = body
	return resp, "", nil
}

// readBody reads resp's whole body, capped by maxResponseBytes.
func (t *Transport) readBody(resp *http.Response) (io.ReadCloser, error) {
	if resp.Body == http.NoBody {
		return http.NoBody, nil
	}
	cl := resp.ContentLength
	if cl > t.maxResponseBytes {
		return nil, fmt.Errorf("a body of %d bytes is over the %d-byte cap", cl, t.maxResponseBytes)
	}
	var data []byte
	if cl >= 0 && cl <= preallocMax {
		data = make([]byte, cl)
		if _, err := io.ReadFull(resp.Body, data); err != nil {
			return nil, fmt.Errorf("body: %w", err)
		}
	} else {
		var err error
		data, err = io.ReadAll(io.LimitReader(resp.Body, t.maxResponseBytes+1))
		if err != nil {
			return nil, fmt.Errorf("body: %w", err)
		}
		if int64(len(data)) > t.maxResponseBytes {
			return nil, fmt.Errorf("the body is over the %d-byte cap", t.maxResponseBytes)
		}
	}
	// Not closing resp.Body: it was read to its end, and its Close would
	// only look for that end again.
	b := new(memBody)
	b.Reset(data)
	return b, nil
}

// memBody is a response body already in memory.
type memBody struct{ bytes.Reader }

func (*memBody) Close() error { return nil }

// failure names what failed; when the context ended, the error wraps
// ctx.Err() instead of the I/O error that its deadline caused.
func failure(ctx context.Context, deadline time.Time, hasDeadline bool, what string, err error) error {
	if cerr := ctx.Err(); cerr != nil {
		return fmt.Errorf("directhttp: %s: %w", what, cerr)
	}
	// The connection's deadline can fire just before the context's timer.
	if hasDeadline && errors.Is(err, os.ErrDeadlineExceeded) && !time.Now().Before(deadline) {
		return fmt.Errorf("directhttp: %s: %w", what, context.DeadlineExceeded)
	}
	return fmt.Errorf("directhttp: %s: %w", what, err)
}

// getConn returns a usable idle connection to addr (reused true) or dials
// one; fresh skips the pool.
func (t *Transport) getConn(ctx context.Context, addr string, fresh bool) (c *conn, reused bool, err error) {
	for !fresh {
		c, stale := t.popIdle(addr)
		for _, s := range stale {
			s.nc.Close()
		}
		if c == nil {
			break
		}
		if t.usable(c) {
			return c, true, nil
		}
		c.nc.Close()
	}
	nc, err := t.dialer.DialContext(ctx, "tcp", addr)
	if err != nil {
		if cerr := ctx.Err(); cerr != nil {
			// Both: the context's end for errors.Is, the dial's *net.OpError
			// for a caller telling "nothing was sent" from "no answer".
			return nil, false, fmt.Errorf("directhttp: dialing %s: %w: %w", addr, cerr, err)
		}
		return nil, false, fmt.Errorf("directhttp: %w", err)
	}
	return newConn(nc, addr), false, nil
}

// popIdle takes the newest idle connection to addr. If it idled too long,
// it and all the older ones come back as stale, to close, instead.
func (t *Transport) popIdle(addr string) (c *conn, stale []*conn) {
	now := time.Now()
	t.mu.Lock()
	defer t.mu.Unlock()
	list := t.idle[addr]
	n := len(list)
	if n == 0 {
		return nil, nil
	}
	c = list[n-1]
	list[n-1] = nil
	list = list[:n-1]
	if now.Sub(c.idleSince) > t.idleTimeout {
		stale = append(append(make([]*conn, 0, n), list...), c)
		clear(list)
		list, c = list[:0], nil
	}
	t.idle[addr] = list
	return c, stale
}

// putConn pools c as the newest idle connection to its host, making room by
// dropping the oldest ones: past IdleTimeout, or beyond MaxIdlePerHost.
func (t *Transport) putConn(c *conn) {
	now := time.Now()
	c.idleSince = now
	var drop []*conn
	t.mu.Lock()
	list := t.idle[c.addr]
	k := 0
	for k < len(list) && (len(list)-k >= t.maxIdlePerHost || now.Sub(list[k].idleSince) > t.idleTimeout) {
		k++
	}
	if k > 0 {
		drop = append(drop, list[:k]...)
		n := copy(list, list[k:])
		clear(list[n:])
		list = list[:n]
	}
	t.idle[c.addr] = append(list, c)
	t.mu.Unlock()
	for _, d := range drop {
		d.nc.Close()
	}
}

// CloseIdleConnections closes every pooled connection, so a caller shutting
// down (or a test) leaves no sockets open; connections in use are unaffected.
func (t *Transport) CloseIdleConnections() {
	t.mu.Lock()
	idle := t.idle
	t.idle = make(map[string][]*conn)
	t.mu.Unlock()
	for _, list := range idle {
		for _, c := range list {
			c.nc.Close()
		}
	}
}

// checkRequest refuses what this transport does not carry, and header
// fields that could inject lines into the request (as net/http does).
func checkRequest(req *http.Request) error {
	if req.URL == nil {
		return errors.New("directhttp: request without URL")
	}
	if req.URL.Scheme != "http" {
		return fmt.Errorf("directhttp: scheme %q is not carried: only http", req.URL.Scheme)
	}
	if req.URL.Host == "" {
		return errors.New("directhttp: request URL without host")
	}
	for _, r := range req.Method {
		if !httpguts.IsTokenRune(r) {
			return fmt.Errorf("directhttp: invalid method %q", req.Method)
		}
	}
	for k, vv := range req.Header {
		if !httpguts.ValidHeaderFieldName(k) {
			return fmt.Errorf("directhttp: invalid header field name %q", k)
		}
		for _, v := range vv {
			if !httpguts.ValidHeaderFieldValue(v) {
				return fmt.Errorf("directhttp: invalid value for header field %q", k)
			}
		}
	}
	return nil
}

// withURLAuth returns req, or a copy with basic auth from the URL's
// userinfo when it has no Authorization header, as net/http's transport does
// (a JSON-RPC URL may carry its credentials so).
func withURLAuth(req *http.Request) *http.Request {
	u := req.URL.User
	if u == nil || req.Header.Get("Authorization") != "" {
		return req
	}
	r := new(http.Request)
	*r = *req
	r.Header = req.Header.Clone()
	if r.Header == nil {
		r.Header = make(http.Header)
	}
	password, _ := u.Password()
	r.SetBasicAuth(u.Username(), password)
	return r
}

// rewind returns req ready to be sent again, or nil if its body cannot be
// replayed.
func rewind(req *http.Request) *http.Request {
	if req.Body == nil || req.Body == http.NoBody {
		return req
	}
	if req.GetBody == nil {
		return nil
	}
	body, err := req.GetBody()
	if err != nil {
		return nil
	}
	r := new(http.Request)
	*r = *req
	r.Body = body
	return r
}

// closeBody closes the body of a request that will not be written, as a
// RoundTripper must.
func closeBody(req *http.Request) {
	if req.Body != nil {
		req.Body.Close()
	}
}

// hostPort is the address to dial for u, port 80 by default.
func hostPort(u *url.URL) string {
	if u.Port() != "" {
		return u.Host
	}
	return net.JoinHostPort(u.Hostname(), "80")
}

// Eligible reports whether rawURL is one a Transport should carry (scheme
// http, a host, and no proxy configured for it by the environment), so a
// caller can switch to Transport only where a default transport would have
// dialed the host directly.
//
// It reads HTTP_PROXY and NO_PROXY as http.ProxyFromEnvironment does, but at
// each call (http.ProxyFromEnvironment caches its first reading): call it
// when building a client, not per request.
func Eligible(rawURL string) bool {
	u, err := url.Parse(rawURL)
	if err != nil || u.Scheme != "http" || u.Host == "" {
		return false
	}
	proxy, err := httpproxy.FromEnvironment().ProxyFunc()(u)
	return err == nil && proxy == nil
}
