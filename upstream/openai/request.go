package openai

import (
	"encoding/json"

	"github.com/farebox/farebox/responses"
	"github.com/tidwall/gjson"
)

// upstreamRequest is the canonical Responses request farebox sends: built
// field by field from the parsed request, so nothing the client sent beyond
// what farebox understood (provider-executed tools, state references)
// ever reaches the upstream. The fields of the real API farebox does not
// interpret (client_metadata, prompt, ...) follow it, as sent. Field order
// is the wire order.
type upstreamRequest struct {
	Model             string          `json:"model"`
	Instructions      *string         `json:"instructions,omitempty"`
	Input             []any           `json:"input"`
	Tools             []any           `json:"tools,omitempty"`
	ToolChoice        json.RawMessage `json:"tool_choice,omitempty"`
	ParallelToolCalls *bool           `json:"parallel_tool_calls,omitempty"`
	MaxOutputTokens   *int64          `json:"max_output_tokens,omitempty"`
	MaxToolCalls      *int64          `json:"max_tool_calls,omitempty"`
	Temperature       *float64        `json:"temperature,omitempty"`
	TopP              *float64        `json:"top_p,omitempty"`
	PresencePenalty   *float64        `json:"presence_penalty,omitempty"`
	FrequencyPenalty  *float64        `json:"frequency_penalty,omitempty"`
	Text              json.RawMessage `json:"text,omitempty"`
	Reasoning         json.RawMessage `json:"reasoning,omitempty"`
	Truncation        string          `json:"truncation,omitempty"`
	Include           []string        `json:"include,omitempty"`
	TopLogprobs       *int64          `json:"top_logprobs,omitempty"`
	Metadata          json.RawMessage `json:"metadata,omitempty"`
	SafetyIdentifier  *string         `json:"safety_identifier,omitempty"`
	PromptCacheKey    *string         `json:"prompt_cache_key,omitempty"`
	ServiceTier       string          `json:"service_tier,omitempty"`
	Store             bool            `json:"store"`
	Stream            bool            `json:"stream"`
}

type namespaceTool struct {
	Type        string  `json:"type"`
	Name        string  `json:"name"`
	Description *string `json:"description,omitempty"`
	Tools       []tool  `json:"tools"`
}

type customTool struct {
	Type        string          `json:"type"`
	Name        string          `json:"name"`
	Description *string         `json:"description,omitempty"`
	Format      json.RawMessage `json:"format,omitempty"`
}

type customCall struct {
	Type      string `json:"type"`
	CallID    string `json:"call_id"`
	Name      string `json:"name"`
	Namespace string `json:"namespace,omitempty"`
	Input     string `json:"input"`
}

// reasoning is a reasoning item sent back without its id: with store false
// the upstream resumes from encrypted_content and has no item to look up.
type reasoning struct {
	Type             string          `json:"type"`
	Summary          json.RawMessage `json:"summary"`
	EncryptedContent string          `json:"encrypted_content"`
}

type tool struct {
	Type        string          `json:"type"`
	Name        string          `json:"name"`
	Description *string         `json:"description,omitempty"`
	Parameters  json.RawMessage `json:"parameters"`
	Strict      bool            `json:"strict"`
}

type message struct {
	Type    string `json:"type"`
	Role    string `json:"role"`
	Content any    `json:"content"`
}

type functionCall struct {
	Type      string `json:"type"`
	CallID    string `json:"call_id"`
	Name      string `json:"name"`
	Namespace string `json:"namespace,omitempty"`
	Arguments string `json:"arguments"`
}

type functionCallOutput struct {
	Type   string `json:"type"`
	CallID string `json:"call_id"`
	Output any    `json:"output"`
}

type part struct {
	Type        string          `json:"type"`
	Text        *string         `json:"text,omitempty"`
	Refusal     *string         `json:"refusal,omitempty"`
	Annotations json.RawMessage `json:"annotations,omitempty"`
	ImageURL    string          `json:"image_url,omitempty"`
	Detail      string          `json:"detail,omitempty"`
	FileURL     string          `json:"file_url,omitempty"`
	FileData    string          `json:"file_data,omitempty"`
	Filename    string          `json:"filename,omitempty"`
}

// build makes the upstream body for req. Reasoning items go back only
// with their encrypted_content: with store false it is all an upstream can
// resume from.
func build(req *responses.Request, model string) ([]byte, error) {
	out := upstreamRequest{Model: model, Instructions: req.Instructions, Stream: true, Input: []any{}}
	if out.Model == "" {
		out.Model = req.Model
	}
	for i := range req.Input {
		if it := inputItem(&req.Input[i]); it != nil {
			out.Input = append(out.Input, it)
		}
	}
	if len(req.Tools) > 0 {
		out.Tools = upstreamTools(req.Tools)
		out.ToolChoice = req.ToolChoiceJSON()
		p := req.ParallelToolCalls
		out.ParallelToolCalls = &p
	}
	out.MaxOutputTokens, out.MaxToolCalls = req.MaxOutputTokens, req.MaxToolCalls
	out.Temperature, out.TopP = req.Temperature, req.TopP
	out.PresencePenalty, out.FrequencyPenalty = req.PresencePenalty, req.FrequencyPenalty
	out.Text = pick(req.Text, "format", "verbosity")
	out.Reasoning = pick(req.Reasoning, "effort", "summary", "generate_summary")
	if req.Truncation == "auto" {
		out.Truncation = "auto"
	}
	out.Include, out.TopLogprobs = req.Include, req.TopLogprobs
	out.Metadata = metadata(req.Metadata)
	// The client's user, safety_identifier and prompt_cache_key are its
	// own words: the provider sees the gateway's per-payer view instead.
	out.SafetyIdentifier, out.PromptCacheKey = optional(req.Provider.SafetyID), optional(req.Provider.CacheKey)
	switch req.ServiceTier {
	case "auto", "flex":
		// Tiers that cost the operator no more than the default; priority,
		// fast, scale and ultrafast would let a payer spend the operator's
		// money at a price farebox did not quote.
		out.ServiceTier = req.ServiceTier
	}
	b, err := json.Marshal(out)
	if err != nil || len(req.Passthrough) == 0 {
		return b, err
	}
	b = b[:len(b)-1]
	for _, f := range req.Passthrough {
		if !forwarded[f.Key] || (f.Key == "moderation" && !req.Provider.Moderation) {
			continue
		}
		b = append(b, ',')
		b = gjson.AppendJSONString(b, f.Key)
		b = append(b, ':')
		b = append(b, f.Value...)
	}
	return append(b, '}'), nil
}

// optional is s as an omitempty field: nil when empty.
func optional(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// forwarded are the uninterpreted fields a Responses upstream gets
// (moderation only where the operator allows it). Not
// forwarded: prompt (a stored prompt template can carry tools, the
// operator's own, which the provider would run), context_management
// (server-side compaction, whose items farebox does not pass on) and
// access_programs (the operator's own enrolments with the provider).
var forwarded = map[string]bool{
	"client_metadata": true, "prompt_cache_retention": true, "prompt_cache_options": true,
	"moderation": true,
}

// inputItem is the upstream form of one input item, or nil to leave it out.
func inputItem(it *responses.Item) any {
	switch it.Type {
	case responses.ItemMessage:
		return message{Type: "message", Role: it.Role, Content: content(it.Content, it.ContentIsString)}
	case responses.ItemFunctionCall:
		args := it.Arguments
		if args == "" {
			args = "{}"
		}
		return functionCall{Type: "function_call", CallID: it.CallID, Name: it.Name, Namespace: it.Namespace, Arguments: args}
	case responses.ItemFunctionCallOutput, responses.ItemCustomCallOutput:
		var o any = it.OutputText
		if !it.OutputIsString {
			o = parts(it.Output)
		}
		return functionCallOutput{Type: string(it.Type), CallID: it.CallID, Output: o}
	case responses.ItemCustomCall:
		return customCall{Type: "custom_tool_call", CallID: it.CallID, Name: it.Name, Namespace: it.Namespace, Input: it.Arguments}
	case responses.ItemClientCall, responses.ItemClientCallOutput:
		return it.Raw // a client tool's call or result, as the client sent it
	case responses.ItemReasoning:
		if it.EncryptedContent == "" {
			return nil
		}
		return reasoning{Type: "reasoning", Summary: it.Summary, EncryptedContent: it.EncryptedContent}
	}
	return nil
}

// upstreamTools is the upstream form of the client's tools: functions (those of a
// namespace grouped back into it), custom tools, built-in client tools.
func upstreamTools(ts []responses.Tool) []any {
	var out []any
	for i := 0; i < len(ts); i++ {
		t := &ts[i]
		switch t.Kind {
		case responses.ToolCustom:
			out = append(out, customTool{Type: "custom", Name: t.Name, Description: desc(t), Format: t.Format})
			continue
		case "", responses.ToolFunction:
		default:
			out = append(out, t.Config)
			continue
		}
		if t.Namespace == "" {
			out = append(out, function(t))
			continue
		}
		ns := namespaceTool{Type: "namespace", Name: t.Namespace, Description: t.NamespaceDesc}
		for ; i < len(ts) && ts[i].Namespace == t.Namespace; i++ {
			ns.Tools = append(ns.Tools, function(&ts[i]))
		}
		i--
		out = append(out, ns)
	}
	return out
}

func function(t *responses.Tool) tool {
	def := tool{Type: "function", Name: t.Name, Parameters: t.Parameters, Strict: t.Strict, Description: desc(t)}
	if len(def.Parameters) == 0 {
		def.Parameters = json.RawMessage(`{"type":"object","properties":{}}`)
	}
	return def
}

func desc(t *responses.Tool) *string {
	if !t.HasDesc {
		return nil
	}
	d := t.Description
	return &d
}

// metadata is the metadata object in the client's key order, nil when empty.
func metadata(pairs []responses.MetadataPair) json.RawMessage {
	if len(pairs) == 0 {
		return nil
	}
	b := []byte{'{'}
	for i, p := range pairs {
		if i > 0 {
			b = append(b, ',')
		}
		b = gjson.AppendJSONString(b, p.Key)
		b = append(b, ':')
		b = gjson.AppendJSONString(b, p.Value)
	}
	return append(b, '}')
}

func content(ps []responses.Part, isString bool) any {
	if isString && len(ps) == 1 {
		return ps[0].Text
	}
	return parts(ps)
}

func parts(ps []responses.Part) []part {
	out := make([]part, 0, len(ps))
	for _, p := range ps {
		q := part{Type: p.Type, ImageURL: p.ImageURL, Detail: p.Detail,
			FileURL: p.FileURL, FileData: p.FileData, Filename: p.Filename}
		text := p.Text
		switch p.Type {
		case "input_text":
			q.Text = &text
		case "output_text":
			q.Text = &text
			q.Annotations = json.RawMessage(`[]`)
		case "refusal":
			q.Refusal = &text
		}
		out = append(out, q)
	}
	return out
}

// pick copies only the named keys of a JSON object; nil when none is set.
func pick(obj json.RawMessage, keys ...string) json.RawMessage {
	if len(obj) == 0 {
		return nil
	}
	m := map[string]json.RawMessage{}
	for _, k := range keys {
		if v := gjson.GetBytes(obj, k); v.Exists() && v.Type != gjson.Null {
			m[k] = json.RawMessage(v.Raw)
		}
	}
	if len(m) == 0 {
		return nil
	}
	b, _ := json.Marshal(m)
	return b
}
