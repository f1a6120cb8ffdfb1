package openai

import (
	"encoding/json"

	"github.com/farebox/farebox/responses"
	"github.com/tidwall/gjson"
)

// upstreamRequest is the canonical Responses request farebox sends: built
// field by field from the parsed request, so nothing the client sent beyond
// what farebox understood (hosted tools, unknown fields, state references)
// ever reaches the upstream. Field order is the wire order.
type upstreamRequest struct {
	Model             string          `json:"model"`
	Instructions      *string         `json:"instructions,omitempty"`
	Input             []any           `json:"input"`
	Tools             []tool          `json:"tools,omitempty"`
	ToolChoice        any             `json:"tool_choice,omitempty"`
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
	Store             bool            `json:"store"`
	Stream            bool            `json:"stream"`
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
	FileID      string          `json:"file_id,omitempty"`
	Detail      string          `json:"detail,omitempty"`
	FileURL     string          `json:"file_url,omitempty"`
	FileData    string          `json:"file_data,omitempty"`
	Filename    string          `json:"filename,omitempty"`
}

// build makes the upstream body for req. Reasoning items are dropped: with
// store false an upstream cannot resolve them, and farebox never emits any.
func build(req *responses.Request, model string) ([]byte, error) {
	out := upstreamRequest{Model: model, Instructions: req.Instructions, Stream: true, Input: []any{}}
	if out.Model == "" {
		out.Model = req.Model
	}
	for i := range req.Input {
		it := &req.Input[i]
		switch it.Type {
		case responses.ItemMessage:
			out.Input = append(out.Input, message{Type: "message", Role: it.Role, Content: content(it.Content, it.ContentIsString)})
		case responses.ItemFunctionCall:
			args := it.Arguments
			if args == "" {
				args = "{}"
			}
			out.Input = append(out.Input, functionCall{Type: "function_call", CallID: it.CallID, Name: it.Name, Arguments: args})
		case responses.ItemFunctionCallOutput:
			var o any = it.OutputText
			if !it.OutputIsString {
				o = parts(it.Output)
			}
			out.Input = append(out.Input, functionCallOutput{Type: "function_call_output", CallID: it.CallID, Output: o})
		}
	}
	if len(req.Tools) > 0 {
		for _, t := range req.Tools {
			def := tool{Type: "function", Name: t.Name, Parameters: t.Parameters, Strict: t.Strict}
			if t.HasDesc {
				d := t.Description
				def.Description = &d
			}
			if len(def.Parameters) == 0 {
				def.Parameters = json.RawMessage(`{"type":"object","properties":{}}`)
			}
			out.Tools = append(out.Tools, def)
		}
		out.ToolChoice = toolChoice(req.ToolChoice)
		p := req.ParallelToolCalls
		out.ParallelToolCalls = &p
	}
	out.MaxOutputTokens, out.MaxToolCalls = req.MaxOutputTokens, req.MaxToolCalls
	out.Temperature, out.TopP = req.Temperature, req.TopP
	out.PresencePenalty, out.FrequencyPenalty = req.PresencePenalty, req.FrequencyPenalty
	out.Text = pick(req.Text, "format", "verbosity")
	out.Reasoning = pick(req.Reasoning, "effort")
	if req.Truncation == "auto" {
		out.Truncation = "auto"
	}
	return json.Marshal(out)
}

func toolChoice(tc responses.ToolChoice) any {
	switch tc.Mode {
	case responses.ChoiceFunction:
		return map[string]string{"type": "function", "name": tc.Name}
	case responses.ChoiceAllowed:
		tools := make([]map[string]string, 0, len(tc.Allowed))
		for _, n := range tc.Allowed {
			tools = append(tools, map[string]string{"type": "function", "name": n})
		}
		mode := string(tc.AllowedMode)
		if mode == "" {
			mode = "auto"
		}
		return map[string]any{"type": "allowed_tools", "mode": mode, "tools": tools}
	case "":
		return "auto"
	}
	return string(tc.Mode)
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
		q := part{Type: p.Type, ImageURL: p.ImageURL, FileID: p.FileID, Detail: p.Detail,
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
