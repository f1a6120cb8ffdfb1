package anthropic

import (
	"encoding/json"

	"github.com/farebox/farebox/responses"
	"github.com/tidwall/gjson"
)

// messagesRequest is the Messages request farebox sends, built field by
// field from the canonical request, so nothing the client sent beyond what
// farebox understood reaches the operator's Anthropic account. Field
// order is the wire order.
type messagesRequest struct {
	Model        string        `json:"model"`
	MaxTokens    int64         `json:"max_tokens"`
	System       []block       `json:"system,omitempty"`
	Messages     []turn        `json:"messages"`
	Tools        []toolDef     `json:"tools,omitempty"`
	ToolChoice   *toolChoice   `json:"tool_choice,omitempty"`
	Thinking     *thinking     `json:"thinking,omitempty"`
	OutputConfig *outputConfig `json:"output_config,omitempty"`
	Temperature  *float64      `json:"temperature,omitempty"`
	TopP         *float64      `json:"top_p,omitempty"`
	Metadata     *metadata     `json:"metadata,omitempty"`
	Stream       bool          `json:"stream"`
}

// turn is one message of the conversation.
type turn struct {
	Role    string  `json:"role"`
	Content []block `json:"content"`
}

// block is one content block of any type farebox sends: text, image,
// document, tool_use, tool_result, thinking, redacted_thinking.
type block struct {
	Type         string          `json:"type"`
	Text         *string         `json:"text,omitempty"`
	Source       *source         `json:"source,omitempty"`
	ID           string          `json:"id,omitempty"`
	Name         string          `json:"name,omitempty"`
	Input        json.RawMessage `json:"input,omitempty"`
	ToolUseID    string          `json:"tool_use_id,omitempty"`
	Content      any             `json:"content,omitempty"`
	Thinking     *string         `json:"thinking,omitempty"`
	Signature    string          `json:"signature,omitempty"`
	Data         string          `json:"data,omitempty"`
	CacheControl *cacheControl   `json:"cache_control,omitempty"`
}

// source is an image's or a document's data: base64 or a URL.
type source struct {
	Type      string `json:"type"`
	MediaType string `json:"media_type,omitempty"`
	Data      string `json:"data,omitempty"`
	URL       string `json:"url,omitempty"`
}

type cacheControl struct {
	Type string `json:"type"`
}

type toolDef struct {
	Name         string          `json:"name"`
	Description  *string         `json:"description,omitempty"`
	InputSchema  json.RawMessage `json:"input_schema"`
	CacheControl *cacheControl   `json:"cache_control,omitempty"`
}

type toolChoice struct {
	Type                   string `json:"type"`
	Name                   string `json:"name,omitempty"`
	DisableParallelToolUse bool   `json:"disable_parallel_tool_use,omitempty"`
}

type thinking struct {
	Type         string `json:"type"`
	BudgetTokens int64  `json:"budget_tokens,omitempty"`
}

type outputConfig struct {
	Effort string          `json:"effort,omitempty"`
	Format json.RawMessage `json:"format,omitempty"`
}

type metadata struct {
	UserID string `json:"user_id"`
}

func textBlock(s string) block { return block{Type: "text", Text: &s} }

// build makes the Messages body for req under cfg.
func build(req *responses.Request, cfg *Config) ([]byte, error) {
	out := messagesRequest{Model: cfg.Model, Stream: req.Stream, MaxTokens: maxTokens(req, cfg)}
	if out.Model == "" {
		out.Model = req.Model
	}
	system, turns, err := translateInput(req)
	if err != nil {
		return nil, err
	}
	out.System, out.Messages = system, turns
	if out.Tools, out.ToolChoice, err = translateTools(req); err != nil {
		return nil, err
	}
	if out.OutputConfig, err = outputFormat(req, cfg); err != nil {
		return nil, err
	}
	out.Temperature, out.TopP = temperature(req.Temperature), req.TopP
	applyThinking(&out, req, cfg)
	if cfg.Caching {
		markCache(&out)
	}
	// The end user Anthropic sees is the gateway's per-payer identifier,
	// never the client's own user field.
	if id := req.Provider.SafetyID; id != "" {
		out.Metadata = &metadata{UserID: id}
	}
	return json.Marshal(out)
}

// temperature is the client's within Anthropic's range, 0 to 1 (OpenAI's
// goes to 2): the most random answer Anthropic gives rather than a 400.
func temperature(t *float64) *float64 {
	if t == nil || *t <= 1 {
		return t
	}
	one := 1.0
	return &one
}

// maxTokens is the client's max_output_tokens, else the operator's
// default, within the operator's limit.
func maxTokens(req *responses.Request, cfg *Config) int64 {
	n := cfg.MaxTokens.Default
	if n == 0 {
		n = DefaultMaxTokens
	}
	if req.MaxOutputTokens != nil && *req.MaxOutputTokens > 0 {
		n = *req.MaxOutputTokens
	}
	if cfg.MaxTokens.Limit > 0 && n > cfg.MaxTokens.Limit {
		n = cfg.MaxTokens.Limit
	}
	return n
}

// outputFormat maps text.format: plain text needs nothing, a json_schema
// becomes output_config.format where the model takes it, and anything
// else is refused rather than silently answered as free text.
func outputFormat(req *responses.Request, cfg *Config) (*outputConfig, error) {
	f := gjson.GetBytes(req.Text, "format")
	switch f.Get("type").Str {
	case "", "text":
		return nil, nil
	case "json_schema":
		if !cfg.StructuredOutput {
			return nil, responses.Invalid("text.format", "unsupported_value",
				"Model '%s' does not support structured output (text.format json_schema).", req.Model)
		}
		schema := f.Get("schema").Raw
		if schema == "" {
			schema = `{"type":"object"}`
		}
		b, _ := json.Marshal(map[string]any{"type": "json_schema", "schema": json.RawMessage(schema)})
		return &outputConfig{Format: b}, nil
	}
	return nil, responses.Invalid("text.format.type", "unsupported_value",
		"Model '%s' cannot answer with text.format %q; use json_schema or text.", req.Model, f.Get("type").Str)
}

// markCache puts prompt-cache breakpoints where a conversation's next call
// can read what this one wrote: the end of the tools and system prompt,
// the end of the previous user turn (read now, when the last call wrote
// it) and the end of the conversation so far (written now, read by the
// next call). Anthropic allows four; this uses at most three.
func markCache(out *messagesRequest) {
	ephemeral := &cacheControl{Type: "ephemeral"}
	switch {
	case len(out.System) > 0:
		out.System[len(out.System)-1].CacheControl = ephemeral
	case len(out.Tools) > 0:
		out.Tools[len(out.Tools)-1].CacheControl = ephemeral
	}
	last := len(out.Messages) - 1
	if last < 0 {
		return
	}
	markTurn(&out.Messages[last], ephemeral)
	for i := last - 1; i >= 0; i-- {
		if out.Messages[i].Role == "user" {
			markTurn(&out.Messages[i], ephemeral)
			return
		}
	}
}

// markTurn marks the turn's last block that may carry cache_control
// (thinking blocks may not).
func markTurn(t *turn, cc *cacheControl) {
	for i := len(t.Content) - 1; i >= 0; i-- {
		switch t.Content[i].Type {
		case "thinking", "redacted_thinking":
			continue
		}
		t.Content[i].CacheControl = cc
		return
	}
}
