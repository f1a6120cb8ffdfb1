package chat

import (
	"errors"
	"strconv"

	"github.com/farebox/farebox/responses"
	"github.com/tidwall/gjson"
)

// Object turns the emitter's final Responses object (Emitter.Response())
// into one chat.completion object. The x402 receipt, when the response
// carries one, is the top-level "x402" field, as on the Responses wire. A
// failed response has no chat object: the adapter answers its error.
func Object(responseJSON []byte) ([]byte, error) {
	r := gjson.ParseBytes(responseJSON)
	if !r.IsObject() {
		return nil, errors.New("chat: the response is not a JSON object")
	}
	if r.Get("status").Str == "failed" {
		return nil, errors.New("chat: the response failed: " + r.Get("error.message").Str)
	}
	var text, refusal []byte
	var calls []byte
	r.Get("output").ForEach(func(_, it gjson.Result) bool {
		switch it.Get("type").Str {
		case "message":
			it.Get("content").ForEach(func(_, p gjson.Result) bool {
				switch p.Get("type").Str {
				case "output_text":
					text = append(text, p.Get("text").Str...)
				case "refusal":
					refusal = append(refusal, p.Get("refusal").Str...)
				}
				return true
			})
		case "function_call", "custom_tool_call":
			calls = appendCall(calls, it)
		}
		return true
	})
	b := append([]byte(`{"id":`), r.Get("id").Raw...)
	b = append(b, `,"object":"chat.completion","created":`...)
	b = strconv.AppendInt(b, r.Get("created_at").Int(), 10)
	b = append(b, `,"model":`...)
	b = append(b, r.Get("model").Raw...)
	b = append(b, `,"choices":[{"index":0,"message":{"role":"assistant","content":`...)
	b = appendNullable(b, text)
	b = append(b, `,"refusal":`...)
	b = appendNullable(b, refusal)
	if calls != nil {
		b = append(b, `,"tool_calls":[`...)
		b = append(b, calls...)
		b = append(b, ']')
	}
	b = append(b, `,"annotations":[]},"finish_reason":"`...)
	b = append(b, finishReason(r)...)
	b = append(b, `","logprobs":null}],"usage":`...)
	b = append(b, usage(r.Get("usage"))...)
	if x := r.Get("x402"); x.Exists() {
		b = append(b, `,"x402":`...)
		b = append(b, x.Raw...)
	}
	return append(b, '}'), nil
}

// appendCall appends one tool call of the message, comma first if needed.
func appendCall(b []byte, it gjson.Result) []byte {
	if b != nil {
		b = append(b, ',')
	}
	b = append(b, `{"id":`...)
	b = append(b, it.Get("call_id").Raw...)
	if it.Get("type").Str == "custom_tool_call" {
		b = append(b, `,"type":"custom","custom":{"name":`...)
		b = append(b, it.Get("name").Raw...)
		b = append(b, `,"input":`...)
		b = append(b, rawOr(it.Get("input"), `""`)...)
		return append(b, "}}"...)
	}
	b = append(b, `,"type":"function","function":{"name":`...)
	b = append(b, it.Get("name").Raw...)
	b = append(b, `,"arguments":`...)
	b = append(b, rawOr(it.Get("arguments"), `"{}"`)...)
	return append(b, "}}"...)
}

// appendNullable appends s as a JSON string, or null when empty.
func appendNullable(b, s []byte) []byte {
	if len(s) == 0 {
		return append(b, "null"...)
	}
	return responses.AppendJSONString(b, string(s))
}

// finishReason is the chat finish_reason of a final Responses object:
// length when cut by max_output_tokens, content_filter when the provider
// filtered it, tool_calls when it called a tool, else stop (a refusal too,
// as OpenAI answers one).
func finishReason(r gjson.Result) string {
	if r.Get("status").Str == "incomplete" {
		if r.Get("incomplete_details.reason").Str == "content_filter" {
			return "content_filter"
		}
		return "length"
	}
	called := false
	r.Get("output").ForEach(func(_, it gjson.Result) bool {
		t := it.Get("type").Str
		called = t == "function_call" || t == "custom_tool_call"
		return !called
	})
	if called {
		return "tool_calls"
	}
	return "stop"
}

// usage is the chat usage object of a Responses usage object.
func usage(u gjson.Result) []byte {
	in, out := u.Get("input_tokens").Int(), u.Get("output_tokens").Int()
	b := append([]byte(nil), `{"prompt_tokens":`...)
	b = strconv.AppendInt(b, in, 10)
	b = append(b, `,"completion_tokens":`...)
	b = strconv.AppendInt(b, out, 10)
	b = append(b, `,"total_tokens":`...)
	b = strconv.AppendInt(b, in+out, 10)
	b = append(b, `,"prompt_tokens_details":{"cached_tokens":`...)
	b = strconv.AppendInt(b, u.Get("input_tokens_details.cached_tokens").Int(), 10)
	b = append(b, `},"completion_tokens_details":{"reasoning_tokens":`...)
	b = strconv.AppendInt(b, u.Get("output_tokens_details.reasoning_tokens").Int(), 10)
	return append(b, "}}"...)
}

// ErrorObject is the OpenAI error object (message, type, param, code) of
// a Responses error object, as a chat stream's error line carries it.
func ErrorObject(e gjson.Result) []byte {
	b := append([]byte(nil), `{"message":`...)
	b = append(b, rawOr(e.Get("message"), `""`)...)
	b = append(b, `,"type":`...)
	b = append(b, rawOr(e.Get("type"), `"server_error"`)...)
	b = append(b, `,"param":`...)
	b = append(b, rawOr(e.Get("param"), "null")...)
	b = append(b, `,"code":`...)
	b = append(b, rawOr(e.Get("code"), "null")...)
	return append(b, '}')
}

// ErrorBody is the body of an HTTP error on the chat wire: OpenAI's
// {"error":{message,type,param,code}}, the Responses wire's shape.
func ErrorBody(err *responses.Error) []byte {
	b := append([]byte(nil), `{"error":{"message":`...)
	b = responses.AppendJSONString(b, err.Message)
	b = append(b, `,"type":`...)
	b = responses.AppendJSONString(b, orDefault(err.Type, "server_error"))
	b = append(b, `,"param":`...)
	b = appendNullable(b, []byte(err.Param))
	b = append(b, `,"code":`...)
	b = appendNullable(b, []byte(err.Code))
	return append(b, "}}"...)
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
