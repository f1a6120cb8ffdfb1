// Package chat puts a Chat Completions server (vLLM, Ollama, llama.cpp, LM
// Studio, OpenRouter, OpenAI itself) behind farebox: it translates the
// Responses request into a Chat request, always streams from the upstream
// through upstreamhttp, and turns the chunks into emitter calls so clients see
// one correct Responses event stream whatever quirks the upstream has.
package chat

import (
	"context"
	"errors"
	"fmt"

	"github.com/farebox/farebox/responses"
	"github.com/farebox/farebox/upstream/upstreamhttp"
)

// Config describes one Chat Completions upstream.
type Config struct {
	BaseURL string // e.g. http://127.0.0.1:11434/v1
	APIKey  string // sent as a bearer token; "" sends none
	// Model is the upstream's model name; "" passes the client's model on.
	Model    string
	Timeouts upstreamhttp.Timeouts
	// NoImages says the model takes no image input: requests carrying images
	// are refused with a clear 400 instead of failing upstream.
	NoImages bool
	// MaxTokensField names the field max_output_tokens becomes:
	// "max_completion_tokens" (default) or "max_tokens" (older servers).
	MaxTokensField string
}

// Model is a Chat Completions upstream; it implements responses.Model.
type Model struct {
	cfg    Config
	client *upstreamhttp.Client
}

var _ responses.Model = (*Model)(nil)

// New checks cfg and builds the HTTP client for it (no retries: a retry
// after the first byte would duplicate output).
func New(cfg Config) (*Model, error) {
	if cfg.BaseURL == "" {
		return nil, errors.New("chat upstream: BaseURL is required")
	}
	switch cfg.MaxTokensField {
	case "":
		cfg.MaxTokensField = "max_completion_tokens"
	case "max_completion_tokens", "max_tokens":
	default:
		return nil, fmt.Errorf("chat upstream: MaxTokensField %q is neither max_completion_tokens nor max_tokens", cfg.MaxTokensField)
	}
	cfg.Timeouts = cfg.Timeouts.WithDefaults()
	client, err := upstreamhttp.NewClient(cfg.BaseURL, cfg.APIKey, cfg.Timeouts, nil)
	if err != nil {
		return nil, fmt.Errorf("chat upstream: %w", err)
	}
	return &Model{cfg: cfg, client: client}, nil
}

// Respond streams one answer for req from the upstream into out.
func (m *Model) Respond(ctx context.Context, req *responses.Request, out responses.Output) error {
	body, err := translate(req, m.cfg)
	if err != nil {
		return err
	}
	st, err := upstreamhttp.Open(ctx, m.client, "chat/completions", body, m.cfg.Timeouts)
	if err != nil {
		return err
	}
	defer st.Close()
	out = newCustomCalls(out, req)
	a := newAssembler(out)
	for !a.sawDone && st.Next() {
		if err := a.chunk(st.Event().Data); err != nil {
			return err
		}
	}
	if err := st.Err(); err != nil {
		return err
	}
	if err := a.end(); err != nil {
		return err
	}
	return finish(out)
}
