package fakeanthropic

import (
	"encoding/json"
	"fmt"
	"net/http"
	"unicode/utf8"
)

// chunk is how many bytes of text, thinking or input one delta carries.
const chunk = 7

// stream writes the answer as Anthropic's event stream, one flush per
// event; "error_midstream" breaks off after the first delta with an error
// event, "stall" waits there until the client leaves.
func (s *Server) stream(w http.ResponseWriter, r *http.Request, a *answer, m mode) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.Header().Set("Request-Id", s.nextID("req"))
	w.WriteHeader(http.StatusOK)
	send := func(typ string, v any) {
		b, _ := json.Marshal(v)
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", typ, b)
		if f, ok := w.(http.Flusher); ok {
			f.Flush()
		}
	}
	send("message_start", map[string]any{"type": "message_start", "message": map[string]any{
		"id": a.id, "type": "message", "role": "assistant", "model": a.model, "content": []any{},
		"stop_reason": nil, "stop_sequence": nil, "stop_details": nil, "usage": a.usageJSON(1),
	}})
	send("ping", map[string]string{"type": "ping"})
	for i, b := range a.blocks {
		send("content_block_start", map[string]any{"type": "content_block_start", "index": i, "content_block": shell(b)})
		for _, d := range deltas(b) {
			send("content_block_delta", map[string]any{"type": "content_block_delta", "index": i, "delta": d})
			switch m.name {
			case "error_midstream":
				send("error", map[string]any{"type": "error", "error": map[string]string{"type": "overloaded_error", "message": "Overloaded"}})
				return
			case "stall":
				<-r.Context().Done()
				return
			}
		}
		send("content_block_stop", map[string]any{"type": "content_block_stop", "index": i})
	}
	send("message_delta", map[string]any{"type": "message_delta",
		"delta": map[string]any{"stop_reason": a.stop, "stop_sequence": nil, "stop_details": a.stopDetails()},
		"usage": a.usageJSON(a.usage.OutputTokens)})
	send("message_stop", map[string]string{"type": "message_stop"})
}

// shell is a block as content_block_start carries it: empty, its content
// to follow in deltas (a redacted_thinking block comes whole).
func shell(b contentBlock) contentBlock {
	empty := ""
	switch b.Type {
	case "text":
		b.Text = &empty
	case "tool_use":
		b.Input = json.RawMessage(`{}`)
	case "thinking":
		b.Thinking, b.Signature = &empty, &empty
	}
	return b
}

// deltas are the content_block_delta payloads that fill a block.
func deltas(b contentBlock) []map[string]string {
	var out []map[string]string
	switch b.Type {
	case "text":
		for _, p := range pieces(*b.Text) {
			out = append(out, map[string]string{"type": "text_delta", "text": p})
		}
	case "tool_use":
		for _, p := range pieces(string(b.Input)) {
			out = append(out, map[string]string{"type": "input_json_delta", "partial_json": p})
		}
	case "thinking":
		for _, p := range pieces(*b.Thinking) {
			out = append(out, map[string]string{"type": "thinking_delta", "thinking": p})
		}
		out = append(out, map[string]string{"type": "signature_delta", "signature": *b.Signature})
	}
	return out
}

// pieces cuts s into chunks of about chunk bytes, at rune boundaries.
func pieces(s string) []string {
	var out []string
	for len(s) > 0 {
		n := min(chunk, len(s))
		for n < len(s) && !utf8.RuneStart(s[n]) {
			n++
		}
		out = append(out, s[:n])
		s = s[n:]
	}
	return out
}
