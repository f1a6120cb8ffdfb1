// Package upstreamhttp is the HTTP layer under the upstream kinds that
// call a model server (openai, chat): the openai-go client they post
// through (operator key only, no retries), the SSE stream they read under
// four timeouts (connect, first byte, gap between events, total), and the
// one mapping from an upstream's HTTP, transport or stream failure to the
// *responses.Error a client sees, so a 429 or a stalled stream reads the
// same whatever sits behind farebox.
package upstreamhttp

import (
	"net"
	"net/http"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
)

// NewClient builds the openai-go client both upstream kinds call through:
// httpClient's transport, apiKey as the bearer token ("" sends none, even
// when OPENAI_API_KEY is set), no organisation or project headers, and no
// SDK retries (a retry after the first byte would duplicate output).
//
// wrap, when not nil, wraps the transport (a paying transport, for an
// upstream that charges with x402).
func NewClient(baseURL, apiKey string, t Timeouts, wrap func(http.RoundTripper) http.RoundTripper) openai.Client {
	hc := httpClient(t)
	if wrap != nil {
		hc.Transport = wrap(hc.Transport)
	}
	return openai.NewClient(
		option.WithBaseURL(baseURL),
		option.WithAPIKey(apiKey), // also overrides any OPENAI_API_KEY in the environment
		option.WithHTTPClient(hc),
		option.WithMaxRetries(0),
		option.WithHeaderDel("OpenAI-Organization"),
		option.WithHeaderDel("OpenAI-Project"),
	)
}

// httpClient builds the HTTP client an upstream hands to openai-go: its own
// transport (so the connect timeout applies and connections are pooled per
// upstream) and no client-wide timeout (a streaming body outlives any fixed
// deadline; the watchdog bounds it instead).
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
