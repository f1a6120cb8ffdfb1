// Package openai puts an OpenAI Responses endpoint behind farebox: it sends
// the canonical request (the client's tools only, reasoning items back with
// their encrypted content), always streams from the upstream through
// upstreamhttp, and maps the upstream's events into the emitter. Messages,
// reasoning and the calls of client-executed tools go on; the items of
// provider-executed tools are dropped, never forwarded.
package openai

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/farebox/farebox/responses"
	"github.com/farebox/farebox/upstream/upstreamhttp"
)

// Config describes one Responses API upstream.
type Config struct {
	BaseURL string // e.g. https://api.openai.com/v1
	APIKey  string // sent as a bearer token; "" sends none
	// Model is the upstream's model name; "" passes the client's model on.
	Model    string
	Timeouts upstreamhttp.Timeouts
	// Transport, when set, wraps the HTTP transport: a paying one for an
	// upstream that charges with x402 (upstream/resell).
	Transport func(http.RoundTripper) http.RoundTripper
}

// Model is a Responses API upstream; it implements responses.Model.
type Model struct {
	cfg    Config
	client *upstreamhttp.Client
}

var _ responses.Model = (*Model)(nil)

// New checks cfg and builds the HTTP client for it (no retries: a retry
// after the first byte would duplicate output).
func New(cfg Config) (*Model, error) {
	if cfg.BaseURL == "" {
		return nil, errors.New("openai upstream: BaseURL is required")
	}
	cfg.Timeouts = cfg.Timeouts.WithDefaults()
	client, err := upstreamhttp.NewClient(cfg.BaseURL, cfg.APIKey, cfg.Timeouts, cfg.Transport)
	if err != nil {
		return nil, fmt.Errorf("openai upstream: %w", err)
	}
	return &Model{cfg: cfg, client: client}, nil
}

// Respond streams one answer for req from the upstream into out.
func (m *Model) Respond(ctx context.Context, req *responses.Request, out responses.Output) error {
	return m.RespondFinal(ctx, req, out, nil)
}

// RespondFinal is Respond that also hands final the raw response object
// of the upstream's terminal event (for an x402 upstream: the in-band
// receipt of a stream it was paid for).
func (m *Model) RespondFinal(ctx context.Context, req *responses.Request, out responses.Output, final func(response []byte)) error {
	body, err := build(req, m.cfg.Model)
	if err != nil {
		return err
	}
	st, err := upstreamhttp.Open(ctx, m.client, "responses", body, m.cfg.Timeouts)
	if err != nil {
		return err
	}
	defer st.Close()
	mp := newMapper(out)
	mp.final = final
	for !mp.terminal && st.Next() {
		if err := mp.event(st.Event().Data); err != nil {
			return err
		}
	}
	if err := st.Err(); err != nil {
		return err
	}
	if !mp.terminal {
		return upstreamhttp.Broken(errNoTerminal)
	}
	return nil
}

var errNoTerminal = errors.New("upstream stream ended without a terminal event")
