package chat

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/farebox/farebox/responses"
	"github.com/tidwall/gjson"
)

// The Chat Completions request farebox sends. Field order is the wire order
// (pinned by the golden files under testdata/requests).
type chatRequest struct {
	Model               string          `json:"model"`
	Messages            []chatMessage   `json:"messages"`
	Tools               []chatTool      `json:"tools,omitempty"`
	ToolChoice          any             `json:"tool_choice,omitempty"`
	ParallelToolCalls   *bool           `json:"parallel_tool_calls,omitempty"`
	MaxCompletionTokens *int64          `json:"max_completion_tokens,omitempty"`
	MaxTokens           *int64          `json:"max_tokens,omitempty"`
	Temperature         *float64        `json:"temperature,omitempty"`
	TopP                *float64        `json:"top_p,omitempty"`
	PresencePenalty     *float64        `json:"presence_penalty,omitempty"`
	FrequencyPenalty    *float64        `json:"frequency_penalty,omitempty"`
	ResponseFormat      json.RawMessage `json:"response_format,omitempty"`
	ReasoningEffort     string          `json:"reasoning_effort,omitempty"`
	Stream              bool            `json:"stream"`
	StreamOptions       streamOptions   `json:"stream_options"`
}

type streamOptions struct {
	IncludeUsage bool `json:"include_usage"`
}

type chatMessage struct {
	Role       string         `json:"role"`
	Content    any            `json:"content"` // string, []chatPart, or nil (an assistant turn that only calls tools)
	Refusal    string         `json:"refusal,omitempty"`
	ToolCalls  []chatToolCall `json:"tool_calls,omitempty"`
	ToolCallID string         `json:"tool_call_id,omitempty"`

	text string // assistant text gathered before Content is fixed
}

type chatPart struct {
	Type     string     `json:"type"`
	Text     *string    `json:"text,omitempty"`
	ImageURL *chatImage `json:"image_url,omitempty"`
	File     *chatFile  `json:"file,omitempty"`
}

type chatImage struct {
	URL    string `json:"url"`
	Detail string `json:"detail,omitempty"`
}

type chatFile struct {
	FileData string `json:"file_data,omitempty"`
	Filename string `json:"filename,omitempty"`
}

type chatToolCall struct {
	ID       string       `json:"id"`
	Type     string       `json:"type"`
	Function chatFunction `json:"function"`
}

type chatFunction struct {
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

type chatTool struct {
	Type     string          `json:"type"`
	Function chatFunctionDef `json:"function"`
}

type chatFunctionDef struct {
	Name        string          `json:"name"`
	Description *string         `json:"description,omitempty"`
	Parameters  json.RawMessage `json:"parameters"`
	Strict      bool            `json:"strict"`
}

func textPart(s string) chatPart { return chatPart{Type: "text", Text: &s} }

// translate builds the Chat Completions body for req (docs/wire.md §1 -> Chat):
// instructions become a system message, function_call items join the
// preceding assistant message's tool_calls, function_call_output becomes a
// tool message (its images moved into a user message right after the tool
// messages), reasoning items are dropped. It refuses with a 400 what the
// Chat API cannot carry.
func translate(req *responses.Request, cfg Config) ([]byte, error) {
	out := chatRequest{Model: cfg.Model, Stream: true, StreamOptions: streamOptions{IncludeUsage: true}}
	if out.Model == "" {
		out.Model = req.Model
	}
	msgs, err := translateInput(req, cfg)
	if err != nil {
		return nil, err
	}
	out.Messages = msgs
	if err := translateTools(req, &out); err != nil {
		return nil, err
	}
	if req.MaxOutputTokens != nil {
		if cfg.MaxTokensField == "max_tokens" {
			out.MaxTokens = req.MaxOutputTokens
		} else {
			out.MaxCompletionTokens = req.MaxOutputTokens
		}
	}
	out.Temperature, out.TopP = req.Temperature, req.TopP
	out.PresencePenalty, out.FrequencyPenalty = req.PresencePenalty, req.FrequencyPenalty
	out.ResponseFormat = responseFormat(req.Text)
	if len(req.Reasoning) > 0 {
		out.ReasoningEffort = gjson.GetBytes(req.Reasoning, "effort").Str
	}
	// No end-user field goes to a Chat server (vLLM, Ollama, llama.cpp
	// know none): neither the client's user, safety_identifier and
	// prompt_cache_key nor the gateway's per-payer view of them.
	return json.Marshal(out)
}

// translateTools maps the flat tools to the nested form with strict explicit,
// and tool_choice to its Chat form. Chat has no allowed_tools: only the
// allowed tools are sent, and the mode becomes the choice.
func translateTools(req *responses.Request, out *chatRequest) error {
	if len(req.Tools) == 0 {
		return nil
	}
	for i := range req.Tools {
		switch t := &req.Tools[i]; t.Kind {
		case "", responses.ToolFunction, responses.ToolCustom:
		default:
			return errNoChatForm(req.Model, "tools", "the '"+string(t.Kind)+"' tool")
		}
	}
	tc := req.ToolChoice
	allowed := func(string) bool { return true }
	switch tc.Mode {
	case responses.ChoiceFunction:
		out.ToolChoice = map[string]any{"type": "function", "function": map[string]string{"name": tc.Name}}
	case responses.ChoiceAllowed:
		set := map[string]bool{}
		for _, n := range tc.Allowed {
			set[n] = true
		}
		allowed = func(n string) bool { return set[n] }
		out.ToolChoice = string(tc.AllowedMode)
		if tc.AllowedMode == "" {
			out.ToolChoice = "auto"
		}
	case "":
		out.ToolChoice = "auto"
	default:
		out.ToolChoice = string(tc.Mode)
	}
	for _, t := range req.Tools {
		if !allowed(t.Name) {
			continue
		}
		def := chatFunctionDef{Name: t.Name, Parameters: t.Parameters, Strict: t.Strict}
		if t.Kind == responses.ToolCustom {
			def.Parameters, def.Strict = customParameters(&t), true
		}
		if t.HasDesc {
			d := t.Description
			def.Description = &d
		}
		if len(def.Parameters) == 0 {
			def.Parameters = json.RawMessage(`{"type":"object","properties":{}}`)
		}
		out.Tools = append(out.Tools, chatTool{Type: "function", Function: def})
	}
	p := req.ParallelToolCalls
	out.ParallelToolCalls = &p
	return nil
}

// responseFormat maps text.format to response_format; nil for plain text.
func responseFormat(text json.RawMessage) json.RawMessage {
	f := gjson.GetBytes(text, "format")
	switch f.Get("type").Str {
	case "json_object":
		return json.RawMessage(`{"type":"json_object"}`)
	case "json_schema":
		schema := map[string]json.RawMessage{}
		for _, k := range []string{"name", "description", "schema", "strict"} {
			if v := f.Get(k); v.Exists() {
				schema[k] = json.RawMessage(v.Raw)
			}
		}
		b, _ := json.Marshal(map[string]any{"type": "json_schema", "json_schema": schema})
		return b
	}
	return nil
}

// conversation accumulates Chat messages from Responses items.
type conversation struct {
	cfg       Config
	msgs      []chatMessage
	assistant int        // index of the assistant message calls may join, -1 if none
	media     []chatPart // tool-output images waiting for the user message after the tool messages
}

func translateInput(req *responses.Request, cfg Config) ([]chatMessage, error) {
	c := &conversation{cfg: cfg, assistant: -1}
	if req.Instructions != nil {
		c.msgs = append(c.msgs, chatMessage{Role: "system", Content: *req.Instructions})
	}
	for i := range req.Input {
		it := &req.Input[i]
		if it.Type != responses.ItemFunctionCallOutput && it.Type != responses.ItemCustomCallOutput {
			c.flushMedia()
		}
		var err error
		switch it.Type {
		case responses.ItemMessage:
			err = c.message(i, it)
		case responses.ItemFunctionCall:
			c.call(it, it.Arguments)
		case responses.ItemCustomCall:
			c.call(it, customArguments(it.Arguments))
		case responses.ItemFunctionCallOutput, responses.ItemCustomCallOutput:
			err = c.output(i, it)
		case responses.ItemClientCall, responses.ItemClientCallOutput:
			err = errNoChatForm(req.Model, fmt.Sprintf("input[%d].type", i), "'"+it.Wire+"' items")
		case responses.ItemReasoning:
			// Reasoning belongs to the model that produced it; Chat has no place for it.
		}
		if err != nil {
			return nil, err
		}
	}
	c.flushMedia()
	for i := range c.msgs {
		m := &c.msgs[i]
		if m.Role == "assistant" && m.Content == nil && (m.text != "" || len(m.ToolCalls) == 0) {
			m.Content = m.text
		}
	}
	return c.msgs, nil
}

func (c *conversation) message(i int, it *responses.Item) error {
	if it.Role == "assistant" {
		m := chatMessage{Role: "assistant"}
		var texts []string
		for _, p := range it.Content {
			switch p.Type {
			case "output_text", "input_text":
				texts = append(texts, p.Text)
			case "refusal":
				m.Refusal = p.Text
			}
		}
		m.text = strings.Join(texts, "")
		c.msgs = append(c.msgs, m)
		c.assistant = len(c.msgs) - 1
		return nil
	}
	c.assistant = -1
	role := it.Role
	if role == "developer" {
		role = "system" // most Chat servers (vLLM, Ollama, llama.cpp) know no "developer"
	}
	if it.ContentIsString && len(it.Content) == 1 {
		c.msgs = append(c.msgs, chatMessage{Role: role, Content: it.Content[0].Text})
		return nil
	}
	parts := make([]chatPart, 0, len(it.Content))
	for j, p := range it.Content {
		cp, err := c.part(p, fmt.Sprintf("input[%d].content[%d]", i, j), role != "user")
		if err != nil {
			return err
		}
		parts = append(parts, cp)
	}
	c.msgs = append(c.msgs, chatMessage{Role: role, Content: parts})
	return nil
}

// part maps one Responses content part; textOnly refuses media (system turns).
func (c *conversation) part(p responses.Part, param string, textOnly bool) (chatPart, error) {
	switch p.Type {
	case "input_text", "output_text":
		return textPart(p.Text), nil
	case "refusal":
		return textPart(p.Text), nil
	}
	if textOnly {
		return chatPart{}, responses.Invalid(param, "unsupported_content", "A %s part is not allowed in a system or developer message.", p.Type)
	}
	switch p.Type {
	case "input_image":
		if c.cfg.NoImages {
			return chatPart{}, responses.Invalid(param, "image_input_unsupported", "The upstream model does not accept images.")
		}
		if p.ImageURL == "" {
			return chatPart{}, responses.Invalid(param, "unsupported_content", "This upstream takes images by image_url.")
		}
		return chatPart{Type: "image_url", ImageURL: &chatImage{URL: p.ImageURL, Detail: p.Detail}}, nil
	case "input_file":
		if p.FileData == "" {
			return chatPart{}, responses.Invalid(param, "unsupported_content", "This upstream takes files as file_data, not file_url.")
		}
		return chatPart{Type: "file", File: &chatFile{FileData: p.FileData, Filename: p.Filename}}, nil
	}
	return chatPart{}, responses.Invalid(param, "unsupported_content", "Content part type %q cannot be sent to this upstream.", p.Type)
}

func (c *conversation) call(it *responses.Item, args string) {
	if c.assistant < 0 {
		c.msgs = append(c.msgs, chatMessage{Role: "assistant"})
		c.assistant = len(c.msgs) - 1
	}
	if args == "" {
		args = "{}"
	}
	m := &c.msgs[c.assistant]
	m.ToolCalls = append(m.ToolCalls, chatToolCall{ID: it.CallID, Type: "function",
		Function: chatFunction{Name: it.Name, Arguments: args}})
}

// output maps function_call_output to a tool message. Chat tool messages
// carry text only: text parts are joined, and images and files wait for a
// user message placed after the run of tool messages (a user message between
// tool messages would orphan the later tool results).
func (c *conversation) output(i int, it *responses.Item) error {
	c.assistant = -1
	m := chatMessage{Role: "tool", ToolCallID: it.CallID}
	if it.OutputIsString {
		m.Content = it.OutputText
		c.msgs = append(c.msgs, m)
		return nil
	}
	var texts []string
	var media []chatPart
	for j, p := range it.Output {
		if p.Type == "input_text" || p.Type == "output_text" {
			texts = append(texts, p.Text)
			continue
		}
		cp, err := c.part(p, fmt.Sprintf("input[%d].output[%d]", i, j), false)
		if err != nil {
			return err
		}
		media = append(media, cp)
	}
	text := strings.Join(texts, "\n")
	if len(media) > 0 {
		if text == "" {
			text = "(The output is attached in the next message.)"
		}
		c.media = append(c.media, textPart("Attached output of tool call "+it.CallID+":"))
		c.media = append(c.media, media...)
	}
	m.Content = text
	c.msgs = append(c.msgs, m)
	return nil
}

func (c *conversation) flushMedia() {
	if len(c.media) == 0 {
		return
	}
	c.msgs = append(c.msgs, chatMessage{Role: "user", Content: c.media})
	c.media = nil
}
