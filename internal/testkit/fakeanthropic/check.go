package fakeanthropic

import (
	"fmt"

	"github.com/tidwall/gjson"
)

// check is what a real server refuses of a request that farebox builds:
// the message as Anthropic words it, "" when the request is acceptable.
func (s *Server) check(req gjson.Result) string {
	if req.Get("model").Str == "" {
		return "model: Field required"
	}
	maxTokens := req.Get("max_tokens")
	if maxTokens.Type != gjson.Number || maxTokens.Int() < 1 {
		return "max_tokens: Field required"
	}
	msgs := req.Get("messages").Array()
	if len(msgs) == 0 {
		return "messages: at least one message is required"
	}
	if msg := checkThinkingConfig(req); msg != "" {
		return msg
	}
	if n := countCacheControl(req); n > 4 {
		return fmt.Sprintf("A maximum of 4 blocks with cache_control may be provided. Found %d.", n)
	}
	var pending map[string]bool // the tool_use ids of the previous assistant turn
	for i, m := range msgs {
		role := m.Get("role").Str
		if role != "user" && role != "assistant" {
			return fmt.Sprintf("messages.%d.role: Input should be 'user' or 'assistant'", i)
		}
		if i == 0 && role != "user" {
			return "messages: first message must use the \"user\" role"
		}
		if role == "assistant" {
			if len(pending) > 0 {
				return fmt.Sprintf("messages.%d: `tool_use` ids were found without `tool_result` blocks immediately after: %s", i, keys(pending))
			}
			var msg string
			if pending, msg = s.checkAssistant(i, m); msg != "" {
				return msg
			}
			continue
		}
		if msg := checkResults(i, m, pending); msg != "" {
			return msg
		}
		pending = nil
	}
	if len(pending) > 0 {
		return "messages: the final assistant turn's tool_use blocks need a following user turn"
	}
	return s.checkThinkingTurn(req, msgs)
}

// checkThinkingConfig refuses a budget Anthropic would refuse, and a
// forced tool choice with thinking.
func checkThinkingConfig(req gjson.Result) string {
	th := req.Get("thinking")
	switch th.Get("type").Str {
	case "", "disabled":
		return ""
	case "enabled":
		b := th.Get("budget_tokens").Int()
		if b < 1024 {
			return "thinking.enabled.budget_tokens: Input should be greater than or equal to 1024"
		}
		if b >= req.Get("max_tokens").Int() {
			return "`max_tokens` must be greater than `thinking.budget_tokens`"
		}
	case "adaptive":
	default:
		return "thinking.type: Input should be 'enabled', 'disabled' or 'adaptive'"
	}
	if t := req.Get("tool_choice.type").Str; t == "any" || t == "tool" {
		return "Thinking may not be enabled when tool_choice forces tool use."
	}
	if req.Get("temperature").Exists() {
		return "`temperature` may only be set to 1 when thinking is enabled."
	}
	return ""
}

// checkAssistant checks an assistant turn's thinking signatures and
// returns the ids of its tool calls.
func (s *Server) checkAssistant(i int, m gjson.Result) (map[string]bool, string) {
	calls := map[string]bool{}
	for j, b := range m.Get("content").Array() {
		switch b.Get("type").Str {
		case "thinking":
			sig := b.Get("signature")
			if !sig.Exists() || sig.Str == "" {
				return nil, fmt.Sprintf("messages.%d.content.%d.thinking.signature: Field required", i, j)
			}
			if sig.Str != s.Sign(b.Get("thinking").Str) {
				return nil, fmt.Sprintf("messages.%d.content.%d: Invalid `signature` in `thinking` block", i, j)
			}
		case "redacted_thinking":
			if !s.validRedacted(b.Get("data").Str) {
				return nil, fmt.Sprintf("messages.%d.content.%d: Invalid `data` in `redacted_thinking` block", i, j)
			}
		case "tool_use":
			id := b.Get("id").Str
			if id == "" || !b.Get("input").IsObject() {
				return nil, fmt.Sprintf("messages.%d.content.%d: tool_use needs an id and an object input", i, j)
			}
			calls[id] = true
		}
	}
	return calls, ""
}

// checkResults checks that a user turn after tool calls starts with a
// tool_result for each call, and that no result names another id.
func checkResults(i int, m gjson.Result, pending map[string]bool) string {
	content := m.Get("content")
	if content.Type == gjson.String {
		if len(pending) > 0 {
			return fmt.Sprintf("messages.%d: `tool_use` ids were found without `tool_result` blocks immediately after: %s", i, keys(pending))
		}
		return ""
	}
	seen := map[string]bool{}
	others := false
	for j, b := range content.Array() {
		if b.Get("type").Str != "tool_result" {
			others = true
			continue
		}
		id := b.Get("tool_use_id").Str
		if others {
			return fmt.Sprintf("messages.%d.content.%d: tool_result blocks must come first in the user turn", i, j)
		}
		if !pending[id] {
			return fmt.Sprintf("messages.%d.content.%d: unexpected `tool_use_id` found in `tool_result` blocks: %s. Each `tool_result` block must have a corresponding `tool_use` block in the previous message.", i, j, id)
		}
		seen[id] = true
	}
	for id := range pending {
		if !seen[id] {
			return fmt.Sprintf("messages.%d: `tool_use` ids were found without `tool_result` blocks immediately after: %s", i, id)
		}
	}
	return ""
}

// checkThinkingTurn refuses thinking on when the assistant turn whose
// tool calls are answered was sent back without its thinking.
func (s *Server) checkThinkingTurn(req gjson.Result, msgs []gjson.Result) string {
	if t := req.Get("thinking.type").Str; t != "enabled" && t != "adaptive" {
		return ""
	}
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Get("role").Str != "assistant" {
			continue
		}
		content := msgs[i].Get("content").Array()
		if !hasType(content, "tool_use") {
			return ""
		}
		if first := content[0].Get("type").Str; first != "thinking" && first != "redacted_thinking" {
			return fmt.Sprintf("messages.%d.content.0.type: Expected `thinking` or `redacted_thinking`, but found `%s`. When `thinking` is enabled, a final `assistant` message must start with a thinking block.", i, first)
		}
		return ""
	}
	return ""
}

func hasType(blocks []gjson.Result, typ string) bool {
	for _, b := range blocks {
		if b.Get("type").Str == typ {
			return true
		}
	}
	return false
}

func countCacheControl(req gjson.Result) int {
	n := 0
	count := func(_, b gjson.Result) bool {
		if b.Get("cache_control").Exists() {
			n++
		}
		return true
	}
	req.Get("tools").ForEach(count)
	if sys := req.Get("system"); sys.IsArray() {
		sys.ForEach(count)
	}
	req.Get("messages").ForEach(func(_, m gjson.Result) bool {
		if c := m.Get("content"); c.IsArray() {
			c.ForEach(count)
		}
		return true
	})
	return n
}

func keys(m map[string]bool) string {
	out := ""
	for k := range m {
		if out != "" {
			out += ", "
		}
		out += k
	}
	return out
}
