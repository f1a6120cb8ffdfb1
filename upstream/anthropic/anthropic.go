// Package anthropic puts Anthropic's Messages API behind farebox: it sends
// the canonical request as a Messages request (system prompt, user and
// assistant turns, the client's function tools, thinking with its
// signatures handed back byte for byte, prompt-cache breakpoints), and maps
// the answer's content blocks into the emitter, streamed or as one message.
//
// Reasoning round trip: a thinking block becomes a reasoning item whose
// summary is the thinking text and whose encrypted_content is the
// signature behind the prefix "anthropic.thinking:"; a redacted_thinking
// block becomes a reasoning item with no summary and encrypted_content
// "anthropic.redacted:" followed by its data. Items with either prefix
// are sent back as the block they came from; other reasoning (another
// provider's) is left out, as it means nothing to Anthropic.
package anthropic

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/farebox/farebox/responses"
	"github.com/farebox/farebox/upstream/upstreamhttp"
	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
)

// DefaultBaseURL is Anthropic's API root.
const DefaultBaseURL = "https://api.anthropic.com/v1"

// apiVersion is the Messages API version farebox speaks.
const apiVersion = "2023-06-01"

// DefaultMaxTokens is max_tokens when neither the client nor the operator
// chose one: Anthropic requires the field on every request.
const DefaultMaxTokens = 8192

// Config describes one Anthropic Messages upstream.
type Config struct {
	BaseURL string // "" is DefaultBaseURL
	APIKey  string // sent as x-api-key
	// Model is the upstream's model name; "" passes the client's model on.
	Model string
	// Betas are the anthropic-beta flags the operator allows; they are
	// sent on every call and a client cannot add any.
	Betas    []string
	Timeouts upstreamhttp.Timeouts
	// Caching puts cache_control breakpoints on the system prompt and the
	// conversation so far, so a conversation's next call reads its prefix
	// from Anthropic's cache.
	Caching bool
	// Thinking says how reasoning.effort becomes extended thinking.
	Thinking Thinking
	// MaxTokens is max_tokens when the client sets no max_output_tokens
	// (Default) and the most farebox asks for (Limit); 0 takes
	// DefaultMaxTokens and no limit.
	MaxTokens MaxTokens
	// StructuredOutput says the model takes output_config.format, so a
	// text.format json_schema can be honoured; without it it is refused.
	StructuredOutput bool
	// Transport, when set, wraps the HTTP transport.
	Transport func(http.RoundTripper) http.RoundTripper
}

// MaxTokens bounds max_tokens.
type MaxTokens struct {
	Default int64
	Limit   int64
}

// ThinkingMode names how extended thinking is asked for.
type ThinkingMode string

// The thinking modes.
const (
	// ThinkingOff ignores reasoning.effort: the model does not think.
	ThinkingOff ThinkingMode = ""
	// ThinkingAdaptive sends thinking {type: adaptive} and the effort as
	// output_config.effort: the model decides how long to think.
	ThinkingAdaptive ThinkingMode = "adaptive"
	// ThinkingEnabled sends thinking {type: enabled, budget_tokens} with
	// the budget Budgets names for the effort.
	ThinkingEnabled ThinkingMode = "enabled"
)

// Thinking maps reasoning.effort to extended thinking.
type Thinking struct {
	Mode ThinkingMode
	// Budgets are budget_tokens per effort (minimal, low, medium, high,
	// xhigh) in ThinkingEnabled; an effort it does not name takes
	// DefaultBudgets'.
	Budgets map[string]int64
}

// DefaultBudgets are the thinking budgets of ThinkingEnabled per effort.
var DefaultBudgets = map[string]int64{"minimal": 1024, "low": 2048, "medium": 8192, "high": 16384, "xhigh": 32768}

// Model is an Anthropic Messages upstream; it implements responses.Model.
type Model struct {
	cfg    Config
	client *upstreamhttp.Client
}

var _ responses.Model = (*Model)(nil)

// New checks cfg and builds the HTTP client for it (no retries: a retry
// after the first byte would duplicate output).
func New(cfg Config) (*Model, error) {
	if cfg.BaseURL == "" {
		cfg.BaseURL = DefaultBaseURL
	}
	switch cfg.Thinking.Mode {
	case ThinkingOff, ThinkingAdaptive, ThinkingEnabled:
	default:
		return nil, fmt.Errorf("anthropic upstream: thinking mode %q is not off, adaptive or enabled", cfg.Thinking.Mode)
	}
	for effort, b := range cfg.Thinking.Budgets {
		if b < minBudget {
			return nil, fmt.Errorf("anthropic upstream: thinking budget for %q is %d, below Anthropic's minimum of %d", effort, b, minBudget)
		}
	}
	if cfg.MaxTokens.Default < 0 || cfg.MaxTokens.Limit < 0 {
		return nil, errors.New("anthropic upstream: max tokens cannot be negative")
	}
	cfg.Timeouts = cfg.Timeouts.WithDefaults()
	h := headers{key: cfg.APIKey, betas: strings.Join(cfg.Betas, ",")}
	wrap := func(rt http.RoundTripper) http.RoundTripper {
		if cfg.Transport != nil {
			rt = cfg.Transport(rt)
		}
		return h.wrap(rt)
	}
	// The key goes as x-api-key (set by headers), never as a bearer token.
	client, err := upstreamhttp.NewClient(cfg.BaseURL, "", cfg.Timeouts, wrap)
	if err != nil {
		return nil, fmt.Errorf("anthropic upstream: %w", err)
	}
	return &Model{cfg: cfg, client: client}, nil
}

// headers adds what every Messages call carries: the key, the API
// version and the operator's betas.
type headers struct{ key, betas string }

func (h headers) wrap(rt http.RoundTripper) http.RoundTripper {
	return roundTripper(func(r *http.Request) (*http.Response, error) {
		r = r.Clone(r.Context())
		if h.key != "" {
			r.Header.Set("X-Api-Key", h.key)
		}
		r.Header.Set("Anthropic-Version", apiVersion)
		if h.betas != "" {
			r.Header.Set("Anthropic-Beta", h.betas)
		}
		res, err := rt.RoundTrip(r)
		if err == nil && (res.StatusCode == http.StatusTooManyRequests || res.StatusCode >= 500) {
			nameErrorType(res)
		}
		return res, err
	})
}

// nameErrorType copies an error answer's error.type (overloaded_error,
// rate_limit_error, api_error) to error.code, where upstreamhttp reads an
// upstream's own code, so the client's message names the supplier's fault
// as Anthropic did.
func nameErrorType(res *http.Response) {
	data, err := io.ReadAll(io.LimitReader(res.Body, maxErrorBody))
	res.Body.Close()
	if err == nil && !gjson.GetBytes(data, "error.code").Exists() {
		if t := gjson.GetBytes(data, "error.type"); t.Type == gjson.String {
			if b, err := sjson.SetBytes(data, "error.code", t.Str); err == nil {
				data = b
			}
		}
	}
	res.Body = io.NopCloser(bytes.NewReader(data))
	res.ContentLength = int64(len(data))
}

// maxErrorBody bounds how much of an error answer is read.
const maxErrorBody = 1 << 20

type roundTripper func(*http.Request) (*http.Response, error)

func (f roundTripper) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// Respond asks the upstream for one answer to req and feeds it into out:
// as a stream when the client streams, else as one message.
func (m *Model) Respond(ctx context.Context, req *responses.Request, out responses.Output) error {
	body, err := build(req, &m.cfg)
	if err != nil {
		return err
	}
	if !req.Stream {
		// A whole message's first byte comes when the answer is done, so
		// the bound on waiting for it is the call's total.
		t := m.cfg.Timeouts
		if t.Total > t.FirstByte {
			t.FirstByte = t.Total
		}
		answer, err := upstreamhttp.Call(ctx, m.client, "messages", body, t)
		if err != nil {
			return err
		}
		return replay(answer, out, customTools(req))
	}
	st, err := upstreamhttp.Open(ctx, m.client, "messages", body, m.cfg.Timeouts)
	if err != nil {
		return err
	}
	defer st.Close()
	mp := newMapper(out, customTools(req))
	defer mp.report()
	for !mp.stopped && st.Next() {
		if err := mp.event(st.Event().Data); err != nil {
			return err
		}
	}
	if err := st.Err(); err != nil {
		return err
	}
	if !mp.stopped {
		return upstreamhttp.Broken(errNoStop)
	}
	return nil
}

var errNoStop = errors.New("upstream stream ended without message_stop")
