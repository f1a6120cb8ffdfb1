// Package gemini puts the Gemini API (generateContent and
// streamGenerateContent) behind farebox: it sends the canonical request as
// Gemini contents (system instruction, user and model turns, function
// declarations, functionCall/functionResponse parts, thought signatures
// handed back on the part they came with) and maps the candidate's parts
// into the emitter, streamed or as one answer.
//
// Thought signatures: Gemini signs a part (a function call, a text part or
// a thought) with an opaque thoughtSignature that must come back on the
// same part next turn. Each signature becomes a reasoning item, just
// before the item of the part it signed, whose encrypted_content is the
// signature behind the prefix "gemini.thought:" (and whose summary is the
// thought text when the model showed it). Sent back, such an item puts
// its signature on the next part of the model turn; other reasoning
// (another provider's) is left out, as it means nothing to Gemini.
package gemini

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/farebox/farebox/responses"
	"github.com/farebox/farebox/upstream/upstreamhttp"
	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
)

// DefaultBaseURL is the Gemini API's root.
const DefaultBaseURL = "https://generativelanguage.googleapis.com/v1beta"

// prefixThought marks a reasoning item carrying a Gemini thought signature.
const prefixThought = responses.GeminiThoughtPrefix

// Config describes one Gemini upstream.
type Config struct {
	BaseURL string // "" is DefaultBaseURL
	APIKey  string // sent as x-goog-api-key
	// Model is the upstream's model name; "" passes the client's model on.
	Model    string
	Timeouts upstreamhttp.Timeouts
	// Thinking says how reasoning.effort becomes a thinkingConfig.
	Thinking Thinking
	// MaxOutputTokens caps maxOutputTokens (0: no cap, and none is sent
	// unless the client set max_output_tokens).
	MaxOutputTokens int64
	// Transport, when set, wraps the HTTP transport.
	Transport func(http.RoundTripper) http.RoundTripper
}

// ThinkingMode names how thinking is asked for.
type ThinkingMode string

// The thinking modes.
const (
	// ThinkingOff sends no thinkingConfig: the model thinks as it does by
	// default.
	ThinkingOff ThinkingMode = ""
	// ThinkingBudget sends thinkingBudget (Gemini 2.5 models).
	ThinkingBudget ThinkingMode = "budget"
	// ThinkingLevel sends thinkingLevel (Gemini 3 models).
	ThinkingLevel ThinkingMode = "level"
)

// Thinking maps reasoning.effort to a thinkingConfig.
type Thinking struct {
	Mode ThinkingMode
	// Budgets are thinkingBudget per effort (none, minimal, low, medium,
	// high, xhigh) in ThinkingBudget; an effort it does not name takes
	// DefaultBudgets'.
	Budgets map[string]int64
	// Levels are thinkingLevel per effort in ThinkingLevel; an effort it
	// does not name takes DefaultLevels'.
	Levels map[string]string
}

// DefaultBudgets are the thinking budgets per effort.
var DefaultBudgets = map[string]int64{"none": 0, "minimal": 512, "low": 1024, "medium": 8192, "high": 24576, "xhigh": 32768}

// DefaultLevels are the thinking levels per effort.
var DefaultLevels = map[string]string{"minimal": "minimal", "low": "low", "medium": "medium", "high": "high", "xhigh": "high"}

// Model is a Gemini upstream; it implements responses.Model.
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
	case ThinkingOff, ThinkingBudget, ThinkingLevel:
	default:
		return nil, fmt.Errorf("gemini upstream: thinking mode %q is not off, budget or level", cfg.Thinking.Mode)
	}
	if cfg.MaxOutputTokens < 0 {
		return nil, errors.New("gemini upstream: max output tokens cannot be negative")
	}
	cfg.Timeouts = cfg.Timeouts.WithDefaults()
	key := cfg.APIKey
	wrap := func(rt http.RoundTripper) http.RoundTripper {
		if cfg.Transport != nil {
			rt = cfg.Transport(rt)
		}
		return keyed(key, rt)
	}
	// The key goes as x-goog-api-key (set by keyed), never as a bearer token.
	client, err := upstreamhttp.NewClient(cfg.BaseURL, "", cfg.Timeouts, wrap)
	if err != nil {
		return nil, fmt.Errorf("gemini upstream: %w", err)
	}
	return &Model{cfg: cfg, client: client}, nil
}

// keyed adds the key to every call and puts Gemini's error answers into
// the shape upstreamhttp reads.
func keyed(key string, rt http.RoundTripper) http.RoundTripper {
	return roundTripper(func(r *http.Request) (*http.Response, error) {
		r = r.Clone(r.Context())
		if key != "" {
			r.Header.Set("X-Goog-Api-Key", key)
		}
		res, err := rt.RoundTrip(r)
		if err == nil && res.StatusCode >= 400 {
			reshapeError(res)
		}
		return res, err
	})
}

// reshapeError rewrites a Gemini error answer ({"error": {"code": 429,
// "message", "status": "RESOURCE_EXHAUSTED", "details"}}) for
// upstreamhttp: the status name becomes error.code (the upstream's own
// code the client sees), a RetryInfo's retryDelay becomes Retry-After, and
// a 400 for a bad key becomes the 401 it is, so the client is not told
// its request was wrong.
func reshapeError(res *http.Response) {
	data, err := io.ReadAll(io.LimitReader(res.Body, maxErrorBody))
	res.Body.Close()
	e := gjson.GetBytes(data, "error")
	if err == nil && e.IsObject() {
		if st := e.Get("status"); st.Type == gjson.String {
			if b, err := sjson.SetBytes(data, "error.code", st.Str); err == nil {
				data = b
			}
		}
		if res.StatusCode == http.StatusBadRequest && e.Get(`details.#(reason=="API_KEY_INVALID")`).Exists() {
			res.StatusCode = http.StatusUnauthorized
		}
		if secs, ok := strings.CutSuffix(retryDelay(e), "s"); ok && res.Header.Get("Retry-After") == "" {
			res.Header.Set("Retry-After", secs)
		}
	}
	res.Body = io.NopCloser(bytes.NewReader(data))
	res.ContentLength = int64(len(data))
}

// retryDelay is the retryDelay ("30s") of an error's RetryInfo detail.
func retryDelay(e gjson.Result) string {
	delay := ""
	e.Get("details").ForEach(func(_, d gjson.Result) bool {
		if strings.HasSuffix(d.Get(`\@type`).Str, "google.rpc.RetryInfo") {
			delay = d.Get("retryDelay").Str
			return false
		}
		return true
	})
	return delay
}

// maxErrorBody bounds how much of an error answer is read.
const maxErrorBody = 1 << 20

type roundTripper func(*http.Request) (*http.Response, error)

func (f roundTripper) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// Respond asks the upstream for one answer to req and feeds it into out:
// as a stream when the client streams, else as one answer.
func (m *Model) Respond(ctx context.Context, req *responses.Request, out responses.Output) error {
	body, err := build(req, &m.cfg)
	if err != nil {
		return err
	}
	model := m.cfg.Model
	if model == "" {
		model = req.Model
	}
	path := "models/" + url.PathEscape(model)
	mp := newMapper(out, customTools(req))
	defer mp.report()
	if !req.Stream {
		// A whole answer's first byte comes when it is done, so the bound
		// on waiting for it is the call's total.
		t := m.cfg.Timeouts
		if t.Total > t.FirstByte {
			t.FirstByte = t.Total
		}
		answer, err := upstreamhttp.Call(ctx, m.client, path+":generateContent", body, t)
		if err != nil {
			return err
		}
		if err := mp.chunk(answer); err != nil {
			return err
		}
		return mp.end()
	}
	st, err := upstreamhttp.Open(ctx, m.client, path+":streamGenerateContent?alt=sse", body, m.cfg.Timeouts)
	if err != nil {
		return err
	}
	defer st.Close()
	for st.Next() {
		if err := mp.chunk(st.Event().Data); err != nil {
			return err
		}
	}
	if err := st.Err(); err != nil {
		return err
	}
	return mp.end()
}
