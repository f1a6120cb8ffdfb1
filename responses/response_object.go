package responses

import (
	"encoding/json"
	"sort"
)

// responseKeys are the response object's own keys (docs/wire.md §2); extra fields
// passed to Complete or Fail may not shadow them.
var responseKeys = map[string]bool{
	"id": true, "object": true, "created_at": true, "completed_at": true, "status": true,
	"error": true, "incomplete_details": true, "model": true, "instructions": true,
	"previous_response_id": true, "output": true, "tools": true, "tool_choice": true,
	"parallel_tool_calls": true, "truncation": true, "text": true, "reasoning": true,
	"temperature": true, "top_p": true, "presence_penalty": true, "frequency_penalty": true,
	"top_logprobs": true, "max_output_tokens": true, "max_tool_calls": true, "store": true,
	"background": true, "service_tier": true, "metadata": true, "user": true,
	"safety_identifier": true, "prompt_cache_key": true, "usage": true,
}

// echo holds the parts of the response object that only echo the request.
// They are built once per response and reused by every response object the
// emitter writes (created, in_progress, the terminal event, Response()).
type responseEcho struct {
	head []byte // ,"model":...,"instructions":...,"previous_response_id":null
	tail []byte // ,"tools":[...] ... ,"prompt_cache_key":...
}

// ResponseEcho is what every response object to req (on model) repeats of
// the request, byte for byte as the emitter writes it: a stored answer can
// leave these bytes out and take them again from the retried request.
func ResponseEcho(req *Request, model string) [][]byte {
	e := newResponseEcho(req, model)
	return [][]byte{e.head, e.tail}
}

// Echo is ResponseEcho of the emitter's request, as it writes it.
func (e *Emitter) Echo() [][]byte { return [][]byte{e.echo.head, e.echo.tail} }

func newResponseEcho(req *Request, model string) responseEcho {
	var h []byte
	h = outKey(h, "model")
	h = outString(h, model)
	h = outKey(h, "instructions")
	h = outStringPtr(h, req.Instructions)
	h = outKey(h, "previous_response_id")
	h = append(h, "null"...)

	t := make([]byte, 0, 512)
	t = outKey(t, "tools")
	t = append(t, ToolsJSON(req.Tools)...)
	t = outKey(t, "tool_choice")
	t = append(t, req.ToolChoiceJSON()...)
	t = outKey(t, "parallel_tool_calls")
	t = outBool(t, req.ParallelToolCalls)
	t = outKey(t, "truncation")
	t = outString(t, outOr(req.Truncation, "disabled"))
	t = outKey(t, "text")
	t = outRaw(t, req.Text, `{"format":{"type":"text"}}`)
	t = outKey(t, "reasoning")
	t = outRaw(t, req.Reasoning, "null")
	t = outKey(t, "temperature")
	t = outFloat(t, req.Temperature, "1")
	t = outKey(t, "top_p")
	t = outFloat(t, req.TopP, "1")
	t = outKey(t, "presence_penalty")
	t = outFloat(t, req.PresencePenalty, "0")
	t = outKey(t, "frequency_penalty")
	t = outFloat(t, req.FrequencyPenalty, "0")
	t = outKey(t, "top_logprobs")
	if req.TopLogprobs == nil {
		t = append(t, '0')
	} else {
		t = outInt(t, *req.TopLogprobs)
	}
	t = outKey(t, "max_output_tokens")
	t = outIntPtr(t, req.MaxOutputTokens)
	t = outKey(t, "max_tool_calls")
	t = outIntPtr(t, req.MaxToolCalls)
	t = append(t, `,"store":false,"background":false`...)
	t = outKey(t, "service_tier")
	t = outString(t, outOr(req.ServiceTier, "default"))
	t = outKey(t, "metadata")
	t = append(t, '{')
	for i, p := range req.Metadata {
		if i > 0 {
			t = append(t, ',')
		}
		t = outString(t, p.Key)
		t = append(t, ':')
		t = outString(t, p.Value)
	}
	t = append(t, '}')
	t = outKey(t, "user")
	t = outStringPtr(t, req.User)
	t = outKey(t, "safety_identifier")
	t = outStringPtr(t, req.SafetyID)
	t = outKey(t, "prompt_cache_key")
	t = outStringPtr(t, req.PromptCache)
	return responseEcho{head: h, tail: t}
}

func outOr(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// outItemJSON writes one output item as it stands.
func outItemJSON(dst []byte, it *outItem) []byte {
	switch it.kind {
	case itemCustom, itemReasoning, itemClient:
		return outOtherItemJSON(dst, it)
	case itemFunction:
		dst = outCallHead(dst, "function_call", it)
		dst = outKey(dst, "arguments")
		dst = append(dst, '"')
		dst = append(dst, it.body...)
		dst = append(dst, '"')
		dst = outKey(dst, "status")
		dst = outString(dst, it.status)
		return append(dst, '}')
	}
	dst = append(dst, `{"type":"message","id":`...)
	dst = outString(dst, it.id)
	dst = outKey(dst, "status")
	dst = outString(dst, it.status)
	dst = append(dst, `,"role":"assistant","content":[`...)
	if it.status != respInProgress || len(it.body) > 0 {
		dst = outMessagePart(dst, it, it.body)
	}
	return append(dst, "]}"...)
}

// outMessagePart writes a message's part, output_text or refusal, whose
// text is the already escaped body.
func outMessagePart(dst []byte, it *outItem, escaped []byte) []byte {
	if it.refusal {
		dst = append(dst, `{"type":"refusal","refusal":"`...)
		dst = append(dst, escaped...)
		return append(dst, `"}`...)
	}
	return outTextPart(dst, escaped)
}

// outTextPart writes an output_text part whose text is the already
// escaped body.
func outTextPart(dst []byte, escaped []byte) []byte {
	dst = append(dst, `{"type":"output_text","text":"`...)
	dst = append(dst, escaped...)
	return append(dst, `","annotations":[],"logprobs":[]}`...)
}

// outResponse writes the response object as it stands. final adds usage
// (always an object at the end) and the extra fields.
func (e *Emitter) outResponse(dst []byte, final bool) []byte {
	dst = append(dst, `{"id":`...)
	dst = outString(dst, e.id)
	dst = append(dst, `,"object":"response","created_at":`...)
	dst = outInt(dst, e.createdAt)
	dst = outKey(dst, "completed_at")
	if e.completedAt != 0 {
		dst = outInt(dst, e.completedAt)
	} else {
		dst = append(dst, "null"...)
	}
	dst = outKey(dst, "status")
	dst = outString(dst, e.Status())
	dst = outKey(dst, "error")
	if e.err != nil {
		dst = append(dst, `{"code":`...)
		dst = outString(dst, ResponseErrorCode(e.err))
		dst = outKey(dst, "message")
		dst = outString(dst, e.err.Message)
		dst = append(dst, '}')
	} else {
		dst = append(dst, "null"...)
	}
	dst = outKey(dst, "incomplete_details")
	if e.status == respIncomplete {
		dst = append(dst, `{"reason":`...)
		dst = outString(dst, e.incomplete)
		dst = append(dst, '}')
	} else {
		dst = append(dst, "null"...)
	}
	dst = append(dst, e.echo.head...)
	dst = outKey(dst, "output")
	dst = append(dst, '[')
	for i := range e.output {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = outItemJSON(dst, &e.output[i])
	}
	dst = append(dst, ']')
	dst = append(dst, e.echo.tail...)
	dst = outKey(dst, "usage")
	if !final && !e.usageSet {
		dst = append(dst, "null"...)
	} else {
		u := e.usage
		dst = append(dst, `{"input_tokens":`...)
		dst = outInt(dst, u.InputTokens)
		dst = append(dst, `,"input_tokens_details":{"cached_tokens":`...)
		dst = outInt(dst, u.CachedTokens)
		dst = append(dst, `,"cache_write_tokens":`...)
		dst = outInt(dst, u.CacheWriteTokens)
		dst = append(dst, `},"output_tokens":`...)
		dst = outInt(dst, u.OutputTokens)
		dst = append(dst, `,"output_tokens_details":{"reasoning_tokens":`...)
		dst = outInt(dst, u.ReasoningTokens)
		dst = append(dst, `},"total_tokens":`...)
		dst = outInt(dst, u.InputTokens+u.OutputTokens)
		dst = append(dst, '}')
	}
	if final {
		dst = outExtra(dst, e.extra)
	}
	return append(dst, '}')
}

// outExtra writes the extra fields in key order (stable output),
// skipping any that would shadow a key of the response object.
func outExtra(dst []byte, extra map[string]json.RawMessage) []byte {
	if len(extra) == 0 {
		return dst
	}
	keys := make([]string, 0, len(extra))
	for k := range extra {
		if !responseKeys[k] && k != "" {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		dst = append(dst, ',')
		dst = outString(dst, k)
		dst = append(dst, ':')
		dst = outRaw(dst, extra[k], "null")
	}
	return dst
}

// outErrorCode is the code an error carries on the wire: its Code, else its
// Type, else server_error (a null code would hide what happened).
func outErrorCode(err *Error) string {
	if err.Code != "" {
		return err.Code
	}
	if err.Type != "" {
		return err.Type
	}
	return "server_error"
}

// outCallHead writes the opening of a call item of type typ: its ids, its
// name and, for a namespace's function, the namespace.
func outCallHead(dst []byte, typ string, it *outItem) []byte {
	dst = append(dst, `{"type":`...)
	dst = outString(dst, typ)
	dst = outKey(dst, "id")
	dst = outString(dst, it.id)
	dst = outKey(dst, "call_id")
	dst = outString(dst, it.callID)
	dst = outKey(dst, "name")
	dst = outString(dst, it.name)
	if it.ns != "" {
		dst = outKey(dst, "namespace")
		dst = outString(dst, it.ns)
	}
	return dst
}
