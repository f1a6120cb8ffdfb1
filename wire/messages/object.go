package messages

import (
	"errors"
	"strings"

	"github.com/farebox/farebox/responses"
	"github.com/tidwall/gjson"
)

// Object turns the emitter's final Responses object (Emitter.Response())
// into one Anthropic message: a text block per message, tool_use per
// function call, thinking or redacted_thinking per reasoning item; the x402
// receipt, when the response carries one, is the top-level "x402" field. A
// failed response has no message: the adapter answers its error.
func Object(responseJSON []byte) ([]byte, error) {
	r := gjson.ParseBytes(responseJSON)
	if !r.IsObject() {
		return nil, errors.New("messages: the response is not a JSON object")
	}
	if r.Get("status").Str == "failed" {
		return nil, errors.New("messages: the response failed: " + r.Get("error.message").Str)
	}
	b := append([]byte(nil), `{"id":`...)
	b = responses.AppendJSONString(b, messageID(r.Get("id").Str))
	b = append(b, `,"type":"message","role":"assistant","model":`...)
	b = append(b, rawOr(r.Get("model"), `""`)...)
	b = append(b, `,"content":[`...)
	n := 0
	r.Get("output").ForEach(func(_, it gjson.Result) bool {
		blk := block(it)
		if blk == nil {
			return true
		}
		if n > 0 {
			b = append(b, ',')
		}
		n++
		b = append(b, blk...)
		return true
	})
	b = append(b, `],"stop_reason":"`...)
	b = append(b, stopReason(r)...)
	b = append(b, `","stop_sequence":null,"usage":`...)
	b = appendUsage(b, r.Get("usage"))
	if x := r.Get("x402"); x.Exists() {
		b = append(b, `,"x402":`...)
		b = append(b, x.Raw...)
	}
	return append(b, '}'), nil
}

// block is the content block of one output item (nil: none).
func block(it gjson.Result) []byte {
	switch it.Get("type").Str {
	case "message":
		var text strings.Builder
		it.Get("content").ForEach(func(_, p gjson.Result) bool {
			text.WriteString(p.Get("text").Str)
			text.WriteString(p.Get("refusal").Str)
			return true
		})
		// No "citations" key: Anthropic leaves it out of an uncited block,
		// and clients that validate the message (the Vercel AI SDK's
		// @ai-sdk/anthropic) refuse citations: null.
		b := responses.AppendJSONString([]byte(`{"type":"text","text":`), text.String())
		return append(b, '}')
	case "function_call":
		b := append([]byte(`{"type":"tool_use","id":`), it.Get("call_id").Raw...)
		b = append(b, `,"name":`...)
		b = append(b, it.Get("name").Raw...)
		b = append(b, `,"input":`...)
		args := gjson.Parse(it.Get("arguments").Str)
		if !args.IsObject() {
			return append(b, "{}}"...)
		}
		b = append(b, args.Raw...)
		return append(b, '}')
	case "reasoning":
		enc := it.Get("encrypted_content").Str
		if data, ok := strings.CutPrefix(enc, prefixRedacted); ok {
			b := responses.AppendJSONString([]byte(`{"type":"redacted_thinking","data":`), data)
			return append(b, '}')
		}
		var parts []string
		it.Get("summary").ForEach(func(_, p gjson.Result) bool {
			parts = append(parts, p.Get("text").Str)
			return true
		})
		b := responses.AppendJSONString([]byte(`{"type":"thinking","thinking":`), strings.Join(parts, "\n\n"))
		b = append(b, `,"signature":`...)
		b = responses.AppendJSONString(b, signature(enc))
		return append(b, '}')
	}
	return nil
}

// stopReason is Anthropic's stop_reason of a final Responses object.
func stopReason(r gjson.Result) string {
	if r.Get("status").Str == "incomplete" {
		if r.Get("incomplete_details.reason").Str == "content_filter" {
			return "refusal"
		}
		return "max_tokens"
	}
	reason := "end_turn"
	r.Get("output").ForEach(func(_, it gjson.Result) bool {
		switch it.Get("type").Str {
		case "function_call":
			reason = "tool_use"
			return false
		case "message":
			if it.Get(`content.#(type=="refusal")`).Exists() {
				reason = "refusal"
			}
		}
		return true
	})
	return reason
}

// appendUsage writes Anthropic's usage of a Responses usage object:
// input_tokens counts only what was neither read from nor written to the
// cache, as Anthropic counts it.
func appendUsage(b []byte, u gjson.Result) []byte {
	in, read, write := u.Get("input_tokens").Int(), u.Get("input_tokens_details.cached_tokens").Int(), u.Get("input_tokens_details.cache_write_tokens").Int()
	fresh := in - read - write
	if fresh < 0 {
		fresh = 0
	}
	b = append(b, `{"input_tokens":`...)
	b = appendInt(b, fresh)
	b = append(b, `,"cache_creation_input_tokens":`...)
	b = appendInt(b, write)
	b = append(b, `,"cache_read_input_tokens":`...)
	b = appendInt(b, read)
	b = append(b, `,"output_tokens":`...)
	b = appendInt(b, u.Get("output_tokens").Int())
	return append(b, '}')
}
