package openai

import (
	"fmt"

	"github.com/farebox/farebox/responses"
	"github.com/farebox/farebox/upstream/upstreamhttp"
	"github.com/tidwall/gjson"
)

// emitter is what a Responses stream feeds.
type emitter = responses.Output

type itemKind int

const (
	kindUnknown itemKind = iota
	kindMessage
	kindCall
	kindCustom
	kindReasoning
	kindClient
	kindDropped
)

// clientCalls are the item types of the built-in tools the client
// executes; the emitter passes them only when the client declared the tool.
var clientCalls = map[string]bool{"local_shell_call": true, "shell_call": true, "apply_patch_call": true, "computer_call": true}

// mapper maps upstream Responses events to emitter calls, keyed by the
// upstream's output_index. Ids, sequence numbers and ordering are the
// emitter's: nothing of the upstream's framing is passed through.
type mapper struct {
	em       emitter
	kinds    map[int64]itemKind
	argsSeen map[int64]bool
	terminal bool
	final    func(response []byte) // told the terminal event's response object
}

func newMapper(em emitter) *mapper {
	return &mapper{em: em, kinds: map[int64]itemKind{}, argsSeen: map[int64]bool{}}
}

// event consumes one SSE data payload.
func (m *mapper) event(data []byte) error {
	// Only "type" is read first: the events farebox does not use (created,
	// in_progress, the *.done echoes) carry whole objects that are not worth
	// validating or parsing; the terminal events are read by path only.
	switch typ := gjson.GetBytes(data, "type"); typ.Str {
	case "response.completed":
		m.terminal = true
		m.usage(gjson.GetBytes(data, "response.usage"))
		m.tellFinal(data)
		return nil
	case "response.incomplete":
		m.terminal = true
		m.usage(gjson.GetBytes(data, "response.usage"))
		m.tellFinal(data)
		reason := gjson.GetBytes(data, "response.incomplete_details.reason").Str
		if reason == "" {
			reason = "max_output_tokens"
		}
		m.em.Incomplete(reason)
		return nil
	case "response.output_item.added", "response.output_text.delta", "response.refusal.delta",
		"response.function_call_arguments.delta", "response.function_call_arguments.done",
		"response.custom_tool_call_input.delta", "response.custom_tool_call_input.done",
		"response.reasoning_summary_part.added", "response.reasoning_summary_text.delta",
		"response.output_item.done", "response.failed", "error":
	default:
		if typ.Type != gjson.String && !gjson.ValidBytes(data) {
			return upstreamhttp.Broken(fmt.Errorf("upstream sent an event that is not JSON: %.200q", data))
		}
		return nil
	}
	if !gjson.ValidBytes(data) {
		return upstreamhttp.Broken(fmt.Errorf("upstream sent an event that is not JSON: %.200q", data))
	}
	ev := gjson.ParseBytes(data)
	idx := ev.Get("output_index").Int()
	switch ev.Get("type").Str {
	case "response.output_item.added":
		return m.added(idx, ev.Get("item"))
	case "response.output_text.delta":
		if k := m.kinds[idx]; k == kindMessage || k == kindUnknown {
			return m.em.Text(ev.Get("delta").Str)
		}
	case "response.refusal.delta":
		if k := m.kinds[idx]; k == kindMessage || k == kindUnknown {
			return m.em.Refusal(ev.Get("delta").Str)
		}
	case "response.function_call_arguments.delta":
		if m.kinds[idx] == kindCall {
			m.argsSeen[idx] = true
			return m.em.Arguments(ev.Get("delta").Str)
		}
	case "response.function_call_arguments.done":
		return m.wholeArguments(idx, ev.Get("arguments").Str)
	case "response.custom_tool_call_input.delta":
		if m.kinds[idx] == kindCustom {
			m.argsSeen[idx] = true
			return m.em.Arguments(ev.Get("delta").Str)
		}
	case "response.custom_tool_call_input.done":
		return m.wholeArguments(idx, ev.Get("input").Str)
	case "response.reasoning_summary_part.added", "response.reasoning_summary_text.delta":
		if m.kinds[idx] == kindReasoning {
			m.argsSeen[idx] = true
			return m.em.ReasoningSummary(int(ev.Get("summary_index").Int()), ev.Get("delta").Str)
		}
	case "response.output_item.done":
		return m.done(idx, ev.Get("item"))
	case "response.failed":
		// What was produced before the failure is still reported.
		m.usage(ev.Get("response.usage"))
		e := ev.Get("response.error")
		return upstreamhttp.Failed(e.Get("code").Str, e.Get("message").Str, fmt.Errorf("upstream response.failed: %s", e.Raw))
	case "error":
		e := ev
		if nested := ev.Get("error"); nested.IsObject() {
			e = nested
		}
		return upstreamhttp.Failed(e.Get("code").Str, e.Get("message").Str, fmt.Errorf("upstream error event: %s", data))
	}
	return nil
}

func (m *mapper) tellFinal(data []byte) {
	if m.final != nil {
		m.final([]byte(gjson.GetBytes(data, "response").Raw))
	}
}

func (m *mapper) added(idx int64, item gjson.Result) error {
	switch item.Get("type").Str {
	case "message":
		m.kinds[idx] = kindMessage
	case "function_call", "custom_tool_call":
		start, field := m.em.StartCall, "arguments"
		m.kinds[idx] = kindCall
		if item.Get("type").Str == "custom_tool_call" {
			start, field = m.em.StartCustomCall, "input"
			m.kinds[idx] = kindCustom
		}
		if err := start(item.Get("call_id").Str, item.Get("name").Str); err != nil {
			return err
		}
		if args := item.Get(field).Str; args != "" {
			m.argsSeen[idx] = true
			return m.em.Arguments(args)
		}
	case "reasoning":
		m.kinds[idx] = kindReasoning
		return m.em.StartReasoning()
	default:
		m.kinds[idx] = kindDropped
		if clientCalls[item.Get("type").Str] {
			m.kinds[idx] = kindClient // passed on whole when done
		}
	}
	return nil
}

// done completes an item from its output_item.done event: what a server
// sent only there (whole arguments, input or summaries), the encrypted
// reasoning, and a client call, which is passed on whole.
func (m *mapper) done(idx int64, item gjson.Result) error {
	switch m.kinds[idx] {
	case kindCall:
		return m.wholeArguments(idx, item.Get("arguments").Str)
	case kindCustom:
		return m.wholeArguments(idx, item.Get("input").Str)
	case kindReasoning:
		if !m.argsSeen[idx] {
			var err error
			item.Get("summary").ForEach(func(k, p gjson.Result) bool {
				err = m.em.ReasoningSummary(int(k.Int()), p.Get("text").Str)
				return err == nil
			})
			if err != nil {
				return err
			}
		}
		if enc := item.Get("encrypted_content").Str; enc != "" {
			return m.em.ReasoningEncrypted(enc)
		}
	case kindClient:
		return m.em.ClientCall(item.Get("type").Str, item.Get("call_id").Str, []byte(item.Raw))
	}
	return nil
}

// wholeArguments sends complete arguments from a .done event when the
// upstream streamed no deltas for the call (some servers send only .done).
func (m *mapper) wholeArguments(idx int64, args string) error {
	if (m.kinds[idx] != kindCall && m.kinds[idx] != kindCustom) || m.argsSeen[idx] || args == "" {
		return nil
	}
	m.argsSeen[idx] = true
	return m.em.Arguments(args)
}

func (m *mapper) usage(u gjson.Result) {
	if !u.IsObject() {
		return
	}
	m.em.SetUsage(responses.Usage{
		InputTokens:      u.Get("input_tokens").Int(),
		CachedTokens:     u.Get("input_tokens_details.cached_tokens").Int(),
		CacheWriteTokens: u.Get("input_tokens_details.cache_write_tokens").Int(),
		OutputTokens:     u.Get("output_tokens").Int(),
		ReasoningTokens:  u.Get("output_tokens_details.reasoning_tokens").Int(),
	})
}
