package messages

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/farebox/farebox/responses"
	"github.com/tidwall/gjson"
)

// The encrypted_content prefixes of reasoning items that carry Anthropic
// thinking blocks, and of a Responses upstream's reasoning shown to an
// Anthropic client (see the package documentation).
const (
	prefixThinking  = responses.AnthropicThinkingPrefix
	prefixRedacted  = responses.AnthropicRedactedPrefix
	prefixResponses = responses.ResponsesReasoningPrefix
)

// providerBlocks are the blocks of provider-executed tools: like the
// Responses items of hosted tools, they cannot be replayed to a gateway
// that runs no tool.
var providerBlocks = map[string]bool{
	"server_tool_use": true, "web_search_tool_result": true, "web_fetch_tool_result": true,
	"code_execution_tool_result": true, "bash_code_execution_tool_result": true,
	"text_editor_code_execution_tool_result": true, "tool_search_tool_result": true,
	"container_upload": true, "mcp_tool_use": true, "mcp_tool_result": true,
}

// contentPart is one text, image or document block as a Responses part.
func contentPart(at, role, typ string, b gjson.Result) ([]byte, *responses.Error) {
	switch {
	case typ == "text":
		pt := "input_text"
		if role == "assistant" {
			pt = "output_text"
		}
		return []byte(`{"type":"` + pt + `","text":` + rawOr(b.Get("text"), "null") + `}`), nil
	case typ == "image" && role != "assistant":
		src := b.Get("source")
		switch src.Get("type").Str {
		case "base64":
			url := "data:" + src.Get("media_type").Str + ";base64," + src.Get("data").Str
			return append(responses.AppendJSONString([]byte(`{"type":"input_image","image_url":`), url), '}'), nil
		case "url":
			return []byte(`{"type":"input_image","image_url":` + rawOr(src.Get("url"), "null") + `}`), nil
		}
		return nil, sourceError(at, src, "base64", "url")
	case typ == "document" && role != "assistant":
		return documentPart(at, b)
	case providerBlocks[typ]:
		return nil, responses.Invalid(at+".type", "unsupported_value", "%s.type: '%s' blocks are not supported: farebox runs no tools server-side, so the results of provider-executed tools cannot be replayed.", at, typ)
	}
	allowed := []string{"text", "image", "document", "tool_result"}
	if role == "assistant" {
		allowed = []string{"text", "tool_use", "thinking", "redacted_thinking"}
	}
	if typ == "" {
		return nil, responses.ErrMissing(at + ".type")
	}
	return nil, responses.ErrValue(at+".type", typ, allowed...)
}

// documentPart is a PDF (base64 or url) as an input_file, a plain-text
// document as input_text.
func documentPart(at string, b gjson.Result) ([]byte, *responses.Error) {
	src := b.Get("source")
	switch src.Get("type").Str {
	case "base64":
		out := []byte(`{"type":"input_file","filename":`)
		name := b.Get("title").Str
		if name == "" {
			name = "document.pdf"
		}
		out = responses.AppendJSONString(out, name)
		out = append(out, `,"file_data":`...)
		out = responses.AppendJSONString(out, "data:"+src.Get("media_type").Str+";base64,"+src.Get("data").Str)
		return append(out, '}'), nil
	case "url":
		return []byte(`{"type":"input_file","file_url":` + rawOr(src.Get("url"), "null") + `}`), nil
	case "text":
		return []byte(`{"type":"input_text","text":` + rawOr(src.Get("data"), "null") + `}`), nil
	}
	return nil, sourceError(at, src, "base64", "url", "text")
}

func sourceError(at string, src gjson.Result, allowed ...string) *responses.Error {
	if !src.IsObject() {
		return responses.ErrType(at+".source", "an object", src)
	}
	return responses.ErrValue(at+".source.type", src.Get("type").Str, allowed...)
}

// assistantBlock writes a tool_use, thinking or redacted_thinking block as
// its own item.
func (d *decoder) assistantBlock(at, typ string, b gjson.Result) *responses.Error {
	switch typ {
	case "tool_use":
		input := b.Get("input")
		if !input.IsObject() {
			return responses.ErrType(at+".input", "an object", input)
		}
		var args bytes.Buffer
		_ = json.Compact(&args, []byte(input.Raw)) // valid: CheckBody passed
		d.item(itemPath{base: at, kind: pathCall})
		d.out = append(d.out, `{"type":"function_call","call_id":`...)
		d.out = append(d.out, rawOr(b.Get("id"), "null")...)
		d.out = append(d.out, `,"name":`...)
		d.out = append(d.out, rawOr(b.Get("name"), "null")...)
		d.out = append(d.out, `,"arguments":`...)
		d.out = responses.AppendJSONString(d.out, args.String())
		d.out = append(d.out, '}')
	case "thinking":
		sig, text := b.Get("signature"), b.Get("thinking")
		if sig.Type != gjson.String {
			return responses.ErrType(at+".signature", "a string", sig)
		}
		enc := prefixThinking + sig.Str
		if rest, ok := strings.CutPrefix(sig.Str, prefixResponses); ok {
			enc = rest
		}
		d.reasoningItem(at, `[{"type":"summary_text","text":`+rawOr(text, "null")+`}]`, enc)
	case "redacted_thinking":
		data := b.Get("data")
		if data.Type != gjson.String {
			return responses.ErrType(at+".data", "a string", data)
		}
		d.reasoningItem(at, `[]`, prefixRedacted+data.Str)
	}
	return nil
}

func (d *decoder) reasoningItem(at, summary, encrypted string) {
	d.item(itemPath{base: at, kind: pathReasoning})
	d.out = append(d.out, `{"type":"reasoning","summary":`...)
	d.out = append(d.out, summary...)
	d.out = append(d.out, `,"encrypted_content":`...)
	d.out = responses.AppendJSONString(d.out, encrypted)
	d.out = append(d.out, '}')
}

// toolResult writes a tool_result block as a function_call_output; an
// error result's output starts with "Error: ", since the canonical form
// has no is_error.
func (d *decoder) toolResult(at string, b gjson.Result) *responses.Error {
	content, isErr := b.Get("content"), b.Get("is_error").Bool()
	d.item(itemPath{base: at, kind: pathOutput})
	d.out = append(d.out, `{"type":"function_call_output","call_id":`...)
	d.out = append(d.out, rawOr(b.Get("tool_use_id"), "null")...)
	d.out = append(d.out, `,"output":`...)
	switch {
	case content.Type == gjson.String || !content.Exists() || content.Type == gjson.Null:
		s := content.Str
		if isErr {
			s = "Error: " + s
		}
		d.out = responses.AppendJSONString(d.out, s)
	case content.IsArray():
		d.out = append(d.out, '[')
		if isErr {
			d.out = append(d.out, `{"type":"input_text","text":"Error: "},`...)
		}
		var err *responses.Error
		j := 0
		content.ForEach(func(_, blk gjson.Result) bool {
			var part []byte
			part, err = contentPart(at+".content."+itoa(j), "user", blk.Get("type").Str, blk)
			if j > 0 {
				d.out = append(d.out, ',')
			}
			d.out = append(d.out, part...)
			j++
			return err == nil
		})
		if err != nil {
			return err
		}
		d.out = append(d.out, ']')
	default:
		return responses.ErrType(at+".content", "a string or an array", content)
	}
	d.out = append(d.out, '}')
	return nil
}
