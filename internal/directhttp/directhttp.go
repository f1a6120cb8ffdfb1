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
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"sync"
	"time"
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
