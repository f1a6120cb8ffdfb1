package anthropic

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/farebox/farebox/responses"
	"github.com/tidwall/gjson"
)

// The prefixes of a reasoning item's encrypted_content that carry an
// Anthropic thinking block's signature or a redacted_thinking block's data.
const (
	prefixThinking = responses.AnthropicThinkingPrefix
	prefixRedacted = responses.AnthropicRedactedPrefix
)

// conversation accumulates the system prompt and the turns from the
// canonical items: consecutive items of one role share a turn, so the
// calls of one assistant turn stay together and their results come back
// in one user turn.
type conversation struct {
	system []block
	turns  []turn
}

func translateInput(req *responses.Request) ([]block, []turn, error) {
	c := &conversation{}
	if req.Instructions != nil && *req.Instructions != "" {
		c.system = append(c.system, textBlock(*req.Instructions))
	}
	for i := range req.Input {
		it := &req.Input[i]
		var err error
		switch it.Type {
		case responses.ItemMessage:
			err = c.message(i, it)
		case responses.ItemFunctionCall:
			err = c.call(i, it)
		case responses.ItemCustomCall:
			c.add("assistant", block{Type: "tool_use", ID: it.CallID, Name: it.Name, Input: customInput(it.Arguments)})
		case responses.ItemFunctionCallOutput, responses.ItemCustomCallOutput:
			err = c.output(i, it)
		case responses.ItemReasoning:
			c.reasoning(it)
		default:
			wire := string(it.Type)
			if it.Wire != "" {
				wire = it.Wire
			}
			err = responses.Invalid(fmt.Sprintf("input[%d].type", i), "unsupported_value",
				"Model '%s' is served over Anthropic's Messages API, which cannot express '%s' items.", req.Model, wire)
		}
		if err != nil {
			return nil, nil, err
		}
	}
	return c.system, c.turns, nil
}

// add appends blocks to the turn of role, opening one when the last turn
// is the other role's. A tool_result goes before any other content of its
// turn, where Anthropic requires it.
func (c *conversation) add(role string, bs ...block) {
	if len(bs) == 0 {
		return
	}
	n := len(c.turns)
	if n == 0 || c.turns[n-1].Role != role {
		c.turns = append(c.turns, turn{Role: role})
		n++
	}
	t := &c.turns[n-1]
	for _, b := range bs {
		if b.Type != "tool_result" {
			t.Content = append(t.Content, b)
			continue
		}
		at := 0
		for at < len(t.Content) && t.Content[at].Type == "tool_result" {
			at++
		}
		t.Content = append(t.Content[:at], append([]block{b}, t.Content[at:]...)...)
	}
}

// message maps one message: system and developer messages join the
// system prompt (Messages has no system turns), the others a turn.
func (c *conversation) message(i int, it *responses.Item) error {
	switch it.Role {
	case "system", "developer":
		for j, p := range it.Content {
			if p.Type != "input_text" && p.Type != "output_text" {
				return responses.Invalid(fmt.Sprintf("input[%d].content[%d]", i, j), "unsupported_content",
					"A %s part is not allowed in a system or developer message.", p.Type)
			}
			if p.Text != "" {
				c.system = append(c.system, textBlock(p.Text))
			}
		}
		return nil
	case "assistant":
		var bs []block
		for _, p := range it.Content {
			if p.Text != "" { // output_text, or a refusal kept as what was said
				bs = append(bs, textBlock(p.Text))
			}
		}
		c.add("assistant", bs...)
		return nil
	}
	bs, err := parts(it.Content, fmt.Sprintf("input[%d].content", i))
	if err != nil {
		return err
	}
	c.add("user", bs...)
	return nil
}

// call maps a function_call to a tool_use block with the same id, so the
// result the client sends later pairs with it.
func (c *conversation) call(i int, it *responses.Item) error {
	args := strings.TrimSpace(it.Arguments)
	if args == "" {
		args = "{}"
	}
	if !gjson.Valid(args) || !gjson.Parse(args).IsObject() {
		return responses.Invalid(fmt.Sprintf("input[%d].arguments", i), "invalid_value",
			"The arguments of function call '%s' are not a JSON object, which Anthropic requires.", it.CallID)
	}
	c.add("assistant", block{Type: "tool_use", ID: it.CallID, Name: it.Name, Input: json.RawMessage(args)})
	return nil
}

// output maps a function_call_output (or a custom tool's) to a tool_result for the same id: a
// string as is, an array output as text and image blocks.
func (c *conversation) output(i int, it *responses.Item) error {
	b := block{Type: "tool_result", ToolUseID: it.CallID}
	if it.OutputIsString {
		b.Content = it.OutputText
	} else {
		bs, err := parts(it.Output, fmt.Sprintf("input[%d].output", i))
		if err != nil {
			return err
		}
		b.Content = bs
	}
	c.add("user", b)
	return nil
}

// reasoning sends back a thinking or redacted_thinking block from the
// reasoning item farebox made of it, the signature or data byte for
// byte; other reasoning is left out.
func (c *conversation) reasoning(it *responses.Item) {
	switch enc := it.EncryptedContent; {
	case strings.HasPrefix(enc, prefixThinking):
		text := summaryText(it.Summary)
		c.add("assistant", block{Type: "thinking", Thinking: &text, Signature: enc[len(prefixThinking):]})
	case strings.HasPrefix(enc, prefixRedacted):
		c.add("assistant", block{Type: "redacted_thinking", Data: enc[len(prefixRedacted):]})
	}
}

// summaryText is the thinking text of a reasoning item: its summary
// parts' texts, joined.
func summaryText(summary json.RawMessage) string {
	var b strings.Builder
	gjson.GetBytes(summary, "#.text").ForEach(func(_, v gjson.Result) bool {
		b.WriteString(v.Str)
		return true
	})
	return b.String()
}

// parts maps user content parts: text, images (a data URL as base64, else
// by URL) and PDF documents.
func parts(ps []responses.Part, param string) ([]block, error) {
	var out []block
	for j, p := range ps {
		switch p.Type {
		case "input_text", "output_text", "refusal":
			if p.Text != "" {
				out = append(out, textBlock(p.Text))
			}
		case "input_image":
			if p.ImageURL == "" {
				return nil, responses.Invalid(fmt.Sprintf("%s[%d]", param, j), "unsupported_content", "This upstream takes images by image_url.")
			}
			out = append(out, block{Type: "image", Source: mediaSource(p.ImageURL)})
		case "input_file":
			src := p.FileURL
			if p.FileData != "" {
				src = p.FileData
				if !strings.HasPrefix(src, "data:") {
					src = "data:application/pdf;base64," + src
				}
			}
			if src == "" {
				return nil, responses.Invalid(fmt.Sprintf("%s[%d]", param, j), "unsupported_content", "This upstream takes files as file_data or file_url.")
			}
			out = append(out, block{Type: "document", Source: mediaSource(src)})
		default:
			return nil, responses.Invalid(fmt.Sprintf("%s[%d]", param, j), "unsupported_content",
				"Content part type %q cannot be sent to this upstream.", p.Type)
		}
	}
	return out, nil
}

// mediaSource is a base64 source for a data URL, else a URL source.
func mediaSource(u string) *source {
	if rest, ok := strings.CutPrefix(u, "data:"); ok {
		if meta, data, ok := strings.Cut(rest, ","); ok && strings.HasSuffix(meta, ";base64") {
			return &source{Type: "base64", MediaType: strings.TrimSuffix(meta, ";base64"), Data: data}
		}
	}
	return &source{Type: "url", URL: u}
}
