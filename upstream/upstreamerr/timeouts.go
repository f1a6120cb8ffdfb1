// Package upstreamerr owns how a call to an upstream model can fail: the
// four timeouts (connect, first byte, gap between chunks, total), the
// openai-go client calls go through (no retries), the stream reader that
// enforces the timeouts, and the one mapping from upstream failures to
// the *responses.Error a client sees. Both upstream kinds (openai, chat) use
// it, so a 429 or a stalled stream reads the same whatever sits behind farebox.
package upstreamerr

import (
	"net"
	"net/http"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
)

// Timeouts bounds one upstream call. A zero field takes its default; a
// negative field disables that bound.
type Timeouts struct {
	Connect   time.Duration // TCP (and TLS) connection setup
	FirstByte time.Duration // request sent -> first stream event
	Gap       time.Duration // between two stream events
	Total     time.Duration // the whole call
}

// DefaultTimeouts are generous enough for slow reasoning models yet short
// enough that a dead upstream is noticed.
var DefaultTimeouts = Timeouts{
	Connect:   10 * time.Second,
	FirstByte: 120 * time.Second,
	Gap:       60 * time.Second,
	Total:     10 * time.Minute,
}

// WithDefaults returns t with every zero field replaced by its default.
func (t Timeouts) WithDefaults() Timeouts {
	if t.Connect == 0 {
		t.Connect = DefaultTimeouts.Connect
	}
	if t.FirstByte == 0 {
		t.FirstByte = DefaultTimeouts.FirstByte
	}
	if t.Gap == 0 {
		t.Gap = DefaultTimeouts.Gap
	}
	if t.Total == 0 {
		t.Total = DefaultTimeouts.Total
	}
	return t
}

// HTTPClient builds the HTTP client an upstream hands to openai-go: its own
// transport (so the connect timeout applies and connections are pooled per
// upstream) and no client-wide timeout (a streaming body outlives any fixed
// deadline; the Watchdog bounds it instead).
func HTTPClient(t Timeouts) *http.Client {
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

// NewClient builds the openai-go client both upstream kinds call through:
// HTTPClient's transport, apiKey as the bearer token ("" sends none, even
// when OPENAI_API_KEY is set), no organisation or project headers, and no
// SDK retries (a retry after the first byte would duplicate output).
func NewClient(baseURL, apiKey string, t Timeouts) openai.Client {
	return openai.NewClient(
		option.WithBaseURL(baseURL),
		option.WithAPIKey(apiKey), // also overrides any OPENAI_API_KEY in the environment
		option.WithHTTPClient(HTTPClient(t)),
		option.WithMaxRetries(0),
		option.WithHeaderDel("OpenAI-Organization"),
		option.WithHeaderDel("OpenAI-Project"),
	)
}

func positive(d time.Duration) time.Duration {
	if d < 0 {
		return 0
	}
	return d
}
