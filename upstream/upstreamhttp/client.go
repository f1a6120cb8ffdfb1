// Package upstreamhttp is the HTTP layer under the upstream kinds that
// call a model server (openai, chat): the client they post through
// (net/http, operator key only, no retries), the SSE stream they read under
// four timeouts (connect, first byte, gap between events, total), and the
// one mapping from an upstream's HTTP, transport or stream failure to the
// *responses.Error a client sees, so a 429 or a stalled stream reads the
// same whatever sits behind farebox.
package upstreamhttp

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// userAgent is what farebox calls itself upstream.
const userAgent = "farebox"

// Client posts JSON requests to one upstream: its base URL, its transport
// and its API key. It sends no organisation or project headers and never
// retries (a retry after the first byte would duplicate output).
type Client struct {
	base   *url.URL
	apiKey string
	hc     *http.Client
}

// NewClient builds the client an upstream kind calls through: its own
// transport under t's connect timeout, apiKey as the bearer token ("" sends
// none; the environment is never read), and redirects followed only within
// the base URL's origin, so the key never leaves it.
//
// wrap, when not nil, wraps the transport (a paying transport, for an
// upstream that charges with x402).
func NewClient(baseURL, apiKey string, t Timeouts, wrap func(http.RoundTripper) http.RoundTripper) (*Client, error) {
	base, err := url.Parse(baseURL)
	if err != nil {
		return nil, fmt.Errorf("upstream base URL: %w", err)
	}
	if base.Path != "" && !strings.HasSuffix(base.Path, "/") {
		base.Path += "/"
		base.RawPath = ""
	}
	hc := httpClient(t)
	if wrap != nil {
		hc.Transport = wrap(hc.Transport)
	}
	hc.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		if len(via) >= 10 {
			return errors.New("stopped after 10 redirects")
		}
		if !sameOrigin(req.URL, base) {
			return fmt.Errorf("upstream redirected to another origin (%s://%s)", req.URL.Scheme, req.URL.Host)
		}
		return nil
	}
	return &Client{base: base, apiKey: apiKey, hc: hc}, nil
}

// post sends body (JSON) to path, relative to the base URL, asking for an
// event stream. The caller owns the response.
func (c *Client) post(ctx context.Context, path string, body []byte) (*http.Response, error) {
	u, err := c.base.Parse(strings.TrimLeft(path, "/"))
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u.String(), bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("User-Agent", userAgent)
	if c.apiKey != "" {
		req.Header.Set("Authorization", "Bearer "+c.apiKey)
	}
	return c.hc.Do(req)
}

// sameOrigin reports whether a and b share scheme, host and port (the
// scheme's default port when none is written).
func sameOrigin(a, b *url.URL) bool {
	return strings.EqualFold(a.Scheme, b.Scheme) && strings.EqualFold(a.Hostname(), b.Hostname()) &&
		effectivePort(a) == effectivePort(b)
}

func effectivePort(u *url.URL) string {
	if p := u.Port(); p != "" {
		return p
	}
	switch strings.ToLower(u.Scheme) {
	case "https":
		return "443"
	case "http":
		return "80"
	}
	return ""
}

// httpClient builds an upstream's HTTP client: its own transport (so the
// connect timeout applies and connections are pooled per upstream) and no
// client-wide timeout (a streaming body outlives any fixed deadline; the
// watchdog bounds it instead).
func httpClient(t Timeouts) *http.Client {
	t = t.WithDefaults()
	dialer := &net.Dialer{KeepAlive: 30 * time.Second}
	if t.Connect > 0 {
		dialer.Timeout = t.Connect
	}
	tr := &http.Transport{
		Proxy:                 http.ProxyFromEnvironment,
		DialContext:           dialer.DialContext,
		ForceAttemptHTTP2:     true,
		MaxIdleConns:          256,
		MaxIdleConnsPerHost:   256,
		IdleConnTimeout:       90 * time.Second,
		TLSHandshakeTimeout:   positive(t.Connect),
		ExpectContinueTimeout: time.Second,
	}
	return &http.Client{Transport: tr}
}
