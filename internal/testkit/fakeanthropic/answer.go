package fakeanthropic

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/tidwall/gjson"
)

// answer is one message the fake gives, rendered streamed or whole.
type answer struct {
	id, model   string
	blocks      []contentBlock
	stop        string
	explanation string // a refusal's stop_details.explanation
	usage       Usage
}

// contentBlock is one content block of an answer in its final form.
type contentBlock struct {
	Type      string          `json:"type"`
	Text      *string         `json:"text,omitempty"`
	ID        string          `json:"id,omitempty"`
	Name      string          `json:"name,omitempty"`
	Input     json.RawMessage `json:"input,omitempty"`
	Thinking  *string         `json:"thinking,omitempty"`
	Signature *string         `json:"signature,omitempty"`
	Data      string          `json:"data,omitempty"`
	Citations *[]struct{}     `json:"citations,omitempty"`
}

func text(s string) contentBlock {
	none := []struct{}{}
	return contentBlock{Type: "text", Text: &s, Citations: &none}
}

// answer builds the fake's answer to req.
func (s *Server) answer(req gjson.Result, m mode) *answer {
	a := &answer{id: idFor("msg", req.Get("messages").Raw, 0), model: req.Get("model").Str, stop: "end_turn", usage: s.opts.Usage}
	if countCacheControl(req) == 0 {
		a.usage.CacheReadTokens, a.usage.CacheWriteTokens = 0, 0
	}
	msgs := req.Get("messages").Array()
	if t := req.Get("thinking.type").Str; t == "enabled" || t == "adaptive" {
		thought := fmt.Sprintf("Thinking about message %d of this conversation.", len(msgs))
		sig := s.Sign(thought)
		a.blocks = append(a.blocks, contentBlock{Type: "thinking", Thinking: &thought, Signature: &sig})
		if m.redacted {
			a.blocks = append(a.blocks, contentBlock{Type: "redacted_thinking", Data: s.redactedData(len(msgs))})
		}
	}
	switch {
	case m.name == "call":
		s.calls(a, req, msgs, m)
	case m.stop != "":
		a.blocks = append(a.blocks, text(s.opts.Text))
		a.stop = m.stop
		if m.stop == "refusal" {
			a.explanation = "The fake declines this request."
		}
	default:
		a.blocks = append(a.blocks, text(s.opts.Text))
	}
	return a
}

// calls answers a "call" model: tool calls until the rounds are done,
// then text quoting the last results.
func (s *Server) calls(a *answer, req gjson.Result, msgs []gjson.Result, m mode) {
	rounds := 0
	for _, msg := range msgs {
		if msg.Get("role").Str == "user" && hasType(msg.Get("content").Array(), "tool_result") {
			rounds++
		}
	}
	var names []string
	req.Get("tools.#.name").ForEach(func(_, n gjson.Result) bool {
		names = append(names, n.Str)
		return true
	})
	switch req.Get("tool_choice.type").Str {
	case "tool":
		names = []string{req.Get("tool_choice.name").Str}
	case "none":
		names = nil
	}
	if req.Get("tool_choice.disable_parallel_tool_use").Bool() && len(names) > 1 {
		names = names[:1]
	}
	if rounds >= m.rounds || len(names) == 0 {
		a.blocks = append(a.blocks, text(quoteResults(msgs[len(msgs)-1])))
		return
	}
	for i, n := range names {
		// A tool taking one "input" string gets it; any other its "query".
		key := "query"
		if req.Get(`tools.#(name==` + strconv.Quote(n) + `).input_schema.properties.input`).Exists() {
			key = "input"
		}
		input, _ := json.Marshal(map[string]string{key: fmt.Sprintf("%s round %d", n, rounds+1)})
		a.blocks = append(a.blocks, contentBlock{Type: "tool_use", ID: idFor("toolu", req.Get("messages").Raw, i), Name: n, Input: input})
	}
	a.stop = "tool_use"
}

// quoteResults is the text answer to a turn of tool results: each id and
// what it said, or the fixed text when the turn holds none.
func quoteResults(last gjson.Result) string {
	var quotes []string
	last.Get("content").ForEach(func(_, b gjson.Result) bool {
		if b.Get("type").Str != "tool_result" {
			return true
		}
		c := b.Get("content")
		said := c.Str
		if c.IsArray() {
			said = strings.Join(stringsOf(c.Get("#.text")), " ")
		}
		quotes = append(quotes, b.Get("tool_use_id").Str+" said "+said)
		return true
	})
	if len(quotes) == 0 {
		return DefaultText
	}
	return "Tool results: " + strings.Join(quotes, "; ") + "."
}

func stringsOf(r gjson.Result) []string {
	var out []string
	r.ForEach(func(_, v gjson.Result) bool {
		out = append(out, v.Str)
		return true
	})
	return out
}

// usageJSON is the usage object of an answer (output as given).
func (a *answer) usageJSON(output int64) map[string]any {
	return map[string]any{
		"input_tokens":                a.usage.InputTokens,
		"cache_creation_input_tokens": a.usage.CacheWriteTokens,
		"cache_read_input_tokens":     a.usage.CacheReadTokens,
		"output_tokens":               output,
		"service_tier":                "standard",
	}
}

// stopDetails is the stop_details value: a refusal's, else null.
func (a *answer) stopDetails() any {
	if a.stop != "refusal" {
		return nil
	}
	return map[string]any{"type": "refusal", "category": nil, "explanation": a.explanation}
}

// message is the answer as one JSON message.
func (a *answer) message() []byte {
	b, _ := json.Marshal(map[string]any{
		"id": a.id, "type": "message", "role": "assistant", "model": a.model,
		"content": a.blocks, "stop_reason": a.stop, "stop_sequence": nil,
		"stop_details": a.stopDetails(), "usage": a.usageJSON(a.usage.OutputTokens),
	})
	return b
}
