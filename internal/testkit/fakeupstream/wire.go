package fakeupstream

import (
	"encoding/json"
	"strconv"
)

// output is a scripted answer before it is put on either API's wire.
type output struct {
	model string
	text  string
	calls []scriptedCall
	in    int64 // input tokens reported
	// reasoning puts a reasoning item first; encrypted is its
	// encrypted_content ("" = not asked for).
	reasoning bool
	encrypted string
}

// reasoningSummary is the reasoning item's summary, part by part.
var reasoningSummary = []string{"Reading the request.", "Choosing the tools."}

// reasoningTokens is what a reasoning answer reports as
// output_tokens_details.reasoning_tokens (and counts in output_tokens).
const reasoningTokens = 5

// scriptedCall is a function call, or a custom tool call whose args is its
// free-text input.
type scriptedCall struct {
	callID, name, args string
	custom             bool
}

// deltas splits text into word-sized deltas, the way models stream.
func deltas(text string) []string {
	var out []string
	start := 0
	for i := 1; i < len(text); i++ {
		if text[i] == ' ' {
			out = append(out, text[start:i])
			start = i
		}
	}
	if start < len(text) {
		out = append(out, text[start:])
	}
	return out
}

func (o output) outTokens() int64 {
	n := int64(len(deltas(o.text)))
	if o.reasoning {
		n += reasoningTokens
	}
	for _, c := range o.calls {
		n += int64(len(c.args)/4 + 1)
	}
	return n
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

func sseFrame(typ string, v any) []byte {
	var b []byte
	if typ != "" {
		b = append(b, "event: "...)
		b = append(b, typ...)
		b = append(b, '\n')
	}
	b = append(b, "data: "...)
	b = append(b, mustJSON(v)...)
	return append(b, "\n\n"...)
}

type obj = map[string]any

// responsesEventFrame renders a Responses stream event the way OpenAI
// does: "type" and "sequence_number" first, then the event's fields (a Go
// map alone would sort "type" after "response" and its whole object).
func responsesEventFrame(typ string, seq int, fields obj) []byte {
	rest := mustJSON(fields)
	b := append([]byte("event: "), typ...)
	b = append(b, "\ndata: {\"type\":"...)
	b = append(b, mustJSON(typ)...)
	b = append(b, `,"sequence_number":`...)
	b = strconv.AppendInt(b, int64(seq), 10)
	if len(rest) > 2 {
		b = append(b, ',')
	}
	b = append(b, rest[1:]...)
	return append(b, "\n\n"...)
}

// --- Responses API ---

func (o output) responsesItems(done bool) []any {
	status := "completed"
	if !done {
		status = "in_progress"
	}
	var items []any
	if o.reasoning {
		var summary []any
		if done {
			for _, s := range reasoningSummary {
				summary = append(summary, obj{"type": "summary_text", "text": s})
			}
		}
		it := obj{"type": "reasoning", "id": "rs_fake0", "summary": append([]any{}, summary...)}
		if done && o.encrypted != "" {
			it["encrypted_content"] = o.encrypted
		}
		items = append(items, it)
	}
	if o.text != "" {
		items = append(items, obj{"type": "message", "id": "msg_fake0", "status": status, "role": "assistant",
			"content": []any{obj{"type": "output_text", "text": o.text, "annotations": []any{}, "logprobs": []any{}}}})
	}
	for i, c := range o.calls {
		if c.custom {
			items = append(items, obj{"type": "custom_tool_call", "id": "ctc_fake" + strconv.Itoa(i), "call_id": c.callID,
				"name": c.name, "input": c.args, "status": status})
			continue
		}
		items = append(items, obj{"type": "function_call", "id": "fc_fake" + strconv.Itoa(i), "call_id": c.callID,
			"name": c.name, "arguments": c.args, "status": status})
	}
	return items
}

func (o output) responsesObject(status string, output []any) obj {
	r := obj{"id": "resp_fake", "object": "response", "created_at": 1700000000, "status": status,
		"model": o.model, "output": output, "error": nil, "incomplete_details": nil}
	if output == nil {
		r["output"] = []any{}
	}
	if status == "completed" {
		r["usage"] = obj{"input_tokens": o.in, "input_tokens_details": obj{"cached_tokens": 0},
			"output_tokens": o.outTokens(), "output_tokens_details": obj{"reasoning_tokens": o.reasoningTokens()},
			"total_tokens": o.in + o.outTokens()}
	}
	return r
}

func (o output) responsesJSON() [][]byte {
	return [][]byte{mustJSON(o.responsesObject("completed", o.responsesItems(true)))}
}

func (o output) responsesStream() [][]byte {
	var frames [][]byte
	seq := 0
	ev := func(typ string, fields obj) {
		frames = append(frames, responsesEventFrame(typ, seq, fields))
		seq++
	}
	ev("response.created", obj{"response": o.responsesObject("in_progress", nil)})
	ev("response.in_progress", obj{"response": o.responsesObject("in_progress", nil)})
	done := o.responsesItems(true)
	open := o.responsesItems(false)
	idx := 0
	if o.reasoning {
		ev("response.output_item.added", obj{"output_index": 0, "item": open[0]})
		for k, s := range reasoningSummary {
			ref := obj{"item_id": "rs_fake0", "output_index": 0, "summary_index": k}
			with := func(k string, v any) obj {
				m := obj{k: v}
				for rk, rv := range ref {
					m[rk] = rv
				}
				return m
			}
			ev("response.reasoning_summary_part.added", with("part", obj{"type": "summary_text", "text": ""}))
			for _, d := range deltas(s) {
				ev("response.reasoning_summary_text.delta", with("delta", d))
			}
			ev("response.reasoning_summary_text.done", with("text", s))
			ev("response.reasoning_summary_part.done", with("part", obj{"type": "summary_text", "text": s}))
		}
		ev("response.output_item.done", obj{"output_index": 0, "item": done[0]})
		idx++
	}
	if o.text != "" {
		item := open[idx].(obj)
		item["content"] = []any{}
		ev("response.output_item.added", obj{"output_index": idx, "item": item})
		part := obj{"type": "output_text", "text": "", "annotations": []any{}, "logprobs": []any{}}
		ev("response.content_part.added", obj{"item_id": "msg_fake0", "output_index": idx, "content_index": 0, "part": part})
		for _, d := range deltas(o.text) {
			ev("response.output_text.delta", obj{"item_id": "msg_fake0", "output_index": idx, "content_index": 0, "delta": d, "logprobs": []any{}})
		}
		ev("response.output_text.done", obj{"item_id": "msg_fake0", "output_index": idx, "content_index": 0, "text": o.text, "logprobs": []any{}})
		ev("response.content_part.done", obj{"item_id": "msg_fake0", "output_index": idx, "content_index": 0,
			"part": obj{"type": "output_text", "text": o.text, "annotations": []any{}, "logprobs": []any{}}})
		ev("response.output_item.done", obj{"output_index": idx, "item": done[idx]})
		idx++
	}
	for i, c := range o.calls {
		if c.custom {
			id := "ctc_fake" + strconv.Itoa(i)
			item := open[idx].(obj)
			item["input"] = ""
			ev("response.output_item.added", obj{"output_index": idx, "item": item})
			for _, d := range deltas(c.args) {
				ev("response.custom_tool_call_input.delta", obj{"item_id": id, "output_index": idx, "delta": d})
			}
			ev("response.custom_tool_call_input.done", obj{"item_id": id, "output_index": idx, "input": c.args})
			ev("response.output_item.done", obj{"output_index": idx, "item": done[idx]})
			idx++
			continue
		}
		id := "fc_fake" + strconv.Itoa(i)
		item := open[idx].(obj)
		item["arguments"] = ""
		ev("response.output_item.added", obj{"output_index": idx, "item": item})
		ev("response.function_call_arguments.delta", obj{"item_id": id, "output_index": idx, "delta": c.args})
		ev("response.function_call_arguments.done", obj{"item_id": id, "output_index": idx, "arguments": c.args, "name": c.name})
		ev("response.output_item.done", obj{"output_index": idx, "item": done[idx]})
		idx++
	}
	ev("response.completed", obj{"response": o.responsesObject("completed", done)})
	return frames
}

func (o output) reasoningTokens() int64 {
	if o.reasoning {
		return reasoningTokens
	}
	return 0
}

// --- Chat Completions ---

func (o output) chatUsage() obj {
	return obj{"prompt_tokens": o.in, "completion_tokens": o.outTokens(), "total_tokens": o.in + o.outTokens(),
		"prompt_tokens_details": obj{"cached_tokens": 0}, "completion_tokens_details": obj{"reasoning_tokens": 0}}
}

func (o output) finish() string {
	if len(o.calls) > 0 {
		return "tool_calls"
	}
	return "stop"
}

func (o output) chatJSON() [][]byte {
	msg := obj{"role": "assistant", "content": nil}
	if o.text != "" {
		msg["content"] = o.text
	}
	if len(o.calls) > 0 {
		var tcs []any
		for _, c := range o.calls {
			tcs = append(tcs, obj{"id": c.callID, "type": "function", "function": obj{"name": c.name, "arguments": c.args}})
		}
		msg["tool_calls"] = tcs
	}
	return [][]byte{mustJSON(obj{"id": "chatcmpl-fake", "object": "chat.completion", "created": 1700000000, "model": o.model,
		"choices": []any{obj{"index": 0, "message": msg, "finish_reason": o.finish(), "logprobs": nil}}, "usage": o.chatUsage()})}
}

func (o output) chatStream(usage bool) [][]byte {
	var frames [][]byte
	chunk := func(delta obj, finish any) {
		frames = append(frames, sseFrame("", obj{"id": "chatcmpl-fake", "object": "chat.completion.chunk", "created": 1700000000,
			"model": o.model, "choices": []any{obj{"index": 0, "delta": delta, "finish_reason": finish, "logprobs": nil}}}))
	}
	chunk(obj{"role": "assistant", "content": ""}, nil)
	for _, d := range deltas(o.text) {
		chunk(obj{"content": d}, nil)
	}
	for i, c := range o.calls {
		chunk(obj{"tool_calls": []any{obj{"index": i, "id": c.callID, "type": "function",
			"function": obj{"name": c.name, "arguments": ""}}}}, nil)
		chunk(obj{"tool_calls": []any{obj{"index": i, "function": obj{"arguments": c.args}}}}, nil)
	}
	chunk(obj{}, o.finish())
	if usage {
		frames = append(frames, sseFrame("", obj{"id": "chatcmpl-fake", "object": "chat.completion.chunk", "created": 1700000000,
			"model": o.model, "choices": []any{}, "usage": o.chatUsage()}))
	}
	return append(frames, []byte("data: [DONE]\n\n"))
}

// answer puts o on the wire of api a.
func (o output) answer(a api, stream, usage bool) *answer {
	switch {
	case a == apiChat && stream:
		return newAnswer(200, ctSSE, o.chatStream(usage))
	case a == apiChat:
		return newAnswer(200, ctJSON, o.chatJSON())
	case stream:
		return newAnswer(200, ctSSE, o.responsesStream())
	default:
		return newAnswer(200, ctJSON, o.responsesJSON())
	}
}
