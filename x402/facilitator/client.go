// Package facilitator is farebox's client for a remote x402 facilitator
// (x402.org, Coinbase CDP, the @x402/core reference, or any other that
// speaks the documented HTTP API): POST /verify, POST /settle, GET
// /supported. Its Client is an x402.Settler and an x402.Checker.
package facilitator

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/farebox/farebox/internal/directhttp"
	"github.com/farebox/farebox/x402"
)

// Endpoint names, as handed to the auth hook so that each endpoint can carry
// its own credentials (CDP signs a JWT per method and path).
const (
	EndpointVerify    = "verify"
	EndpointSettle    = "settle"
	EndpointSupported = "supported"
)

// DefaultTimeout bounds one exchange with the facilitator when the caller
// sets none: long enough for a settlement that waits for one block on an L2,
// short enough that a hung facilitator never holds a request for long.
const DefaultTimeout = 30 * time.Second

// maxResponseBytes caps what is read from a facilitator: its answers are a
// few hundred bytes, so anything near this is not a facilitator answer.
const maxResponseBytes = 1 << 20

// Client talks to one facilitator. It is safe for concurrent use.
type Client struct {
	base    string // absolute URL without a trailing slash
	http    *http.Client
	timeout time.Duration
	auth    func(endpoint string) http.Header
	sign    func(req *http.Request) error // per-request credentials (CDP's JWT)
	keyID   string                        // the signing key's id, for refusals
	txCheck func(ctx context.Context, r *x402.Requirement, hash string) error
	health  health
}

// WithTransactionCheck checks every transaction hash the facilitator
// reports as settled (on the chain at payments.chain.rpc_url) before the
// settlement counts: one the chain does not show is pending, never settled.
func WithTransactionCheck(f func(ctx context.Context, r *x402.Requirement, hash string) error) Option {
	return func(c *Client) { c.txCheck = f }
}

// Option configures a Client.
type Option func(*Client)

// WithHTTPClient replaces the HTTP client (transport, proxies, TLS). The
// per-exchange timeout still applies through the request context.
func WithHTTPClient(h *http.Client) Option {
	return func(c *Client) { c.http = h }
}

// WithTimeout bounds each exchange (connect, request, wait, read); d <= 0
// keeps DefaultTimeout. The caller's context can only shorten it.
func WithTimeout(d time.Duration) Option {
	return func(c *Client) {
		if d > 0 {
			c.timeout = d
		}
	}
}

// WithAuthHeaders sets a hook called before every request with the endpoint
// name (EndpointVerify, EndpointSettle, EndpointSupported); the headers it
// returns are added to that request, so per-request tokens are possible.
func WithAuthHeaders(f func(endpoint string) http.Header) Option {
	return func(c *Client) { c.auth = f }
}

// New returns a client for the facilitator at baseURL (for example
// "https://x402.org/facilitator"); the endpoints are appended to it.
func New(baseURL string, opts ...Option) (*Client, error) {
	u, err := url.Parse(strings.TrimSpace(baseURL))
	if err != nil {
		return nil, fmt.Errorf("facilitator: base URL %q: %w", baseURL, err)
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("facilitator: base URL %q must be an absolute http(s) URL", baseURL)
	}
	u.RawQuery, u.Fragment = "", ""
	c := &Client{base: strings.TrimRight(u.String(), "/"), timeout: DefaultTimeout}
	for _, o := range opts {
		o(c)
	}
	if c.http == nil {
		c.http = defaultHTTPClient(c.base)
	}
	return c, nil
}

// BaseURL reports the facilitator's base URL, for logs and readiness output.
func (c *Client) BaseURL() string { return c.base }

// writeBufferBytes holds a whole settle request (its headers and a payment
// of a few KiB), so it goes out in one write: with the transport's default
// 4 KiB the headers were flushed apart from the body, a second syscall and
// packet per settlement.
const writeBufferBytes = 32 << 10

// defaultHTTPClient has bounded dials and handshakes and enough idle
// connections per host for concurrent settlements. A plain http://
// facilitator without a proxy (one beside farebox, on the loopback or the
// LAN) is spoken to on the caller's goroutine (directhttp): net/http's
// transport hands each exchange to two goroutines of its own, which costs
// a settlement more CPU than its syscalls.
func defaultHTTPClient(base string) *http.Client {
	if directhttp.Eligible(base) {
		return &http.Client{Transport: directhttp.New(directhttp.Options{DialTimeout: 10 * time.Second,
			MaxIdlePerHost: 32, MaxResponseBytes: maxResponseBytes + 1})}
	}
	return &http.Client{Transport: &http.Transport{
		Proxy:                 http.ProxyFromEnvironment,
		DialContext:           (&net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		ForceAttemptHTTP2:     true,
		TLSHandshakeTimeout:   10 * time.Second,
		MaxIdleConns:          100,
		MaxIdleConnsPerHost:   32,
		IdleConnTimeout:       90 * time.Second,
		ExpectContinueTimeout: time.Second,
		WriteBufferSize:       writeBufferBytes,
	}}
}

// answer is one HTTP exchange's outcome: what came back, before any
// interpretation.
type answer struct {
	status int
	body   []byte
}

// ok reports a 2xx status.
func (a answer) ok() bool { return a.status >= 200 && a.status < 300 }

// exchange performs one request within the client's timeout and reads the
// whole (capped) answer. body nil means GET.
func (c *Client) exchange(parent context.Context, endpoint string, body []byte) (answer, error) {
	ctx, cancel := context.WithTimeout(parent, c.timeout)
	defer cancel()
	method, rd := http.MethodGet, io.Reader(nil)
	if body != nil {
		method, rd = http.MethodPost, bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.base+"/"+endpoint, rd)
	if err != nil {
		return answer{}, err
	}
	req.Header.Set("Accept", "application/json")
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if c.auth != nil {
		for k, vs := range c.auth(endpoint) {
			req.Header.Del(k)
			for _, v := range vs {
				req.Header.Add(k, v)
			}
		}
	}
	if c.sign != nil {
		if err := c.sign(req); err != nil {
			return answer{}, &notSentError{err}
		}
	}
	resp, err := c.http.Do(req)
	if err != nil {
		c.health.saw(parent, 0, err)
		return answer{}, err
	}
	c.health.saw(parent, resp.StatusCode, nil)
	defer resp.Body.Close()
	if err := c.authRefusal(endpoint, resp.StatusCode, resp.Header); err != nil {
		return answer{status: resp.StatusCode}, err
	}
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxResponseBytes+1))
	if err != nil {
		return answer{status: resp.StatusCode}, fmt.Errorf("reading the answer: %w", err)
	}
	if len(b) > maxResponseBytes {
		return answer{status: resp.StatusCode}, errors.New("answer larger than 1 MiB")
	}
	return answer{status: resp.StatusCode, body: b}, nil
}

// Exchange posts body (JSON) to endpoint ("verify", "settle") with the
// client's timeout and auth headers and returns the HTTP status and the
// answer as it came: for schemes whose answers carry more than Verify and
// Settle read (batch-settlement's channel state).
func (c *Client) Exchange(ctx context.Context, endpoint string, body []byte) (int, []byte, error) {
	a, err := c.exchange(ctx, endpoint, body)
	return a.status, a.body, err
}

// notSentError is a request that failed before it was sent (its
// credentials could not be made): nothing reached the facilitator.
type notSentError struct{ err error }

func (e *notSentError) Error() string { return e.err.Error() }
func (e *notSentError) Unwrap() error { return e.err }

// excerpt shortens a facilitator body for an error message.
func excerpt(b []byte) string {
	s := strings.Join(strings.Fields(string(b)), " ")
	if s == "" {
		return "<empty>"
	}
	if len(s) > 200 {
		return s[:197] + "..."
	}
	return s
}
