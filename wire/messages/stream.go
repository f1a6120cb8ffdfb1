package messages

import (
	"io"
	"strconv"
	"strings"

	"github.com/farebox/farebox/responses"
	"github.com/tidwall/gjson"
)

// Stream is the Sink that turns the emitter's Responses events into
// Anthropic's stream: message_start, per content block
// content_block_start / content_block_delta / content_block_stop,
// message_delta (stop_reason, usage, and the x402 receipt as a top-level
// "x402" field), message_stop; an error event for a mid-stream failure.
type Stream struct {
	f frames

	index   int  // the next content block's index
	open    bool // a block is open
	skip    bool // the open item has no Anthropic block (its deltas vanish)
	pending bool // a reasoning item whose block has not started
	buf     []byte
}

// NewStream returns a Sink writing Anthropic's stream to w (an
// http.ResponseWriter, or anything with Flush() error, or a plain writer).
func NewStream(w io.Writer) *Stream {
	s := &Stream{}
	s.f.init(w)
	return s
}

var _ responses.Sink = (*Stream)(nil)

// Ping writes Anthropic's keep-alive event, which every SDK skips. Safe
// to call from another goroutine.
func (s *Stream) Ping() error { return s.f.event("ping", []byte(`{"type":"ping"}`)) }

// Started reports whether anything was written.
func (s *Stream) Started() bool {
	s.f.mu.Lock()
	defer s.f.mu.Unlock()
	return s.f.started
}

// Event turns one Responses event into Anthropic's events.
func (s *Stream) Event(typ string, data []byte) error {
	switch typ {
	case "response.created":
		return s.start(gjson.GetBytes(data, "response"))
	case "response.output_item.added":
		return s.itemAdded(gjson.GetBytes(data, "item"))
	case "response.output_text.delta", "response.refusal.delta":
		return s.delta(`{"type":"text_delta","text":`, gjson.GetBytes(data, "delta").Raw)
	case "response.function_call_arguments.delta":
		return s.delta(`{"type":"input_json_delta","partial_json":`, gjson.GetBytes(data, "delta").Raw)
	case "response.reasoning_summary_part.added":
		if gjson.GetBytes(data, "summary_index").Int() > 0 && s.open {
			return s.delta(`{"type":"thinking_delta","thinking":`, `"\n\n"`)
		}
	case "response.reasoning_summary_text.delta":
		if err := s.startThinking(); err != nil {
			return err
		}
		return s.delta(`{"type":"thinking_delta","thinking":`, gjson.GetBytes(data, "delta").Raw)
	case "response.output_item.done":
		return s.itemDone(gjson.GetBytes(data, "item"))
	case "response.completed", "response.incomplete":
		return s.end(gjson.GetBytes(data, "response"))
	case "error":
		return s.fail(gjson.GetBytes(data, "error"))
	}
	return nil
}

// start sends message_start: the message as it begins, usage unknown yet.
func (s *Stream) start(r gjson.Result) error {
	b := append(s.buf[:0], `{"type":"message_start","message":{"id":`...)
	b = responses.AppendJSONString(b, messageID(r.Get("id").Str))
	b = append(b, `,"type":"message","role":"assistant","model":`...)
	b = append(b, rawOr(r.Get("model"), `""`)...)
	b = append(b, `,"content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":0,"output_tokens":0}}}`...)
	s.buf = b
	return s.f.event("message_start", b)
}

// itemAdded starts the content block of a new output item: text for a
// message, tool_use for a function call; a reasoning item's block waits
// until it is known to be thinking or redacted_thinking.
func (s *Stream) itemAdded(item gjson.Result) error {
	s.skip, s.pending = false, false
	switch item.Get("type").Str {
	case "message":
		return s.blockStart(`{"type":"text","text":""}`)
	case "function_call":
		b := []byte(`{"type":"tool_use","id":`)
		b = append(b, item.Get("call_id").Raw...)
		b = append(b, `,"name":`...)
		b = append(b, item.Get("name").Raw...)
		return s.blockStart(string(append(b, `,"input":{}}`...)))
	case "reasoning":
		s.pending = true
		return nil
	}
	s.skip = true // no Anthropic block: a tool the Messages wire cannot declare
	return nil
}

// startThinking starts a pending reasoning item's block as thinking.
func (s *Stream) startThinking() error {
	if !s.pending {
		return nil
	}
	s.pending = false
	return s.blockStart(`{"type":"thinking","thinking":"","signature":""}`)
}

// itemDone finishes the open block; a reasoning item first sends its
// signature (or becomes a redacted_thinking block).
func (s *Stream) itemDone(item gjson.Result) error {
	if item.Get("type").Str == "reasoning" {
		enc := item.Get("encrypted_content").Str
		if data, ok := strings.CutPrefix(enc, prefixRedacted); ok && s.pending {
			s.pending = false
			b := responses.AppendJSONString([]byte(`{"type":"redacted_thinking","data":`), data)
			if err := s.blockStart(string(append(b, '}'))); err != nil {
				return err
			}
		} else {
			if err := s.startThinking(); err != nil {
				return err
			}
			if sig := signature(enc); sig != "" {
				if err := s.delta(`{"type":"signature_delta","signature":`, string(responses.AppendJSONString(nil, sig))); err != nil {
					return err
				}
			}
		}
	}
	if !s.open {
		return nil
	}
	s.open = false
	b := append(s.buf[:0], `{"type":"content_block_stop","index":`...)
	b = strconv.AppendInt(b, int64(s.index-1), 10)
	s.buf = append(b, '}')
	return s.f.event("content_block_stop", s.buf)
}

// signature is the thinking block signature that carries a reasoning
// item's encrypted content back to farebox (see the package doc).
func signature(enc string) string {
	if enc == "" {
		return ""
	}
	if sig, ok := strings.CutPrefix(enc, prefixThinking); ok {
		return sig
	}
	return prefixResponses + enc
}

func (s *Stream) blockStart(block string) error {
	b := append(s.buf[:0], `{"type":"content_block_start","index":`...)
	b = strconv.AppendInt(b, int64(s.index), 10)
	b = append(b, `,"content_block":`...)
	b = append(b, block...)
	s.buf = append(b, '}')
	s.index++
	s.open = true
	return s.f.event("content_block_start", s.buf)
}

// delta sends a content_block_delta of the open block: open+raw+"}".
func (s *Stream) delta(open, raw string) error {
	if !s.open || s.skip {
		return nil
	}
	b := append(s.buf[:0], `{"type":"content_block_delta","index":`...)
	b = strconv.AppendInt(b, int64(s.index-1), 10)
	b = append(b, `,"delta":`...)
	b = append(b, open...)
	b = append(b, raw...)
	s.buf = append(b, "}}"...)
	return s.f.event("content_block_delta", s.buf)
}

// end sends message_delta (stop reason, the whole usage, the receipt) and
// message_stop.
func (s *Stream) end(r gjson.Result) error {
	b := append(s.buf[:0], `{"type":"message_delta","delta":{"stop_reason":"`...)
	b = append(b, stopReason(r)...)
	b = append(b, `","stop_sequence":null},"usage":`...)
	b = appendUsage(b, r.Get("usage"))
	if x := r.Get("x402"); x.Exists() {
		b = append(b, `,"x402":`...)
		b = append(b, x.Raw...)
	}
	s.buf = append(b, '}')
	if err := s.f.event("message_delta", s.buf); err != nil {
		return err
	}
	return s.f.event("message_stop", []byte(`{"type":"message_stop"}`))
}

// fail sends Anthropic's error event, which every SDK raises.
func (s *Stream) fail(e gjson.Result) error {
	typ := "api_error"
	if e.Get("code").Str == "rate_limit_exceeded" {
		typ = "rate_limit_error"
	}
	b := append(s.buf[:0], `{"type":"error","error":{"type":"`+typ+`","message":`...)
	b = append(b, rawOr(e.Get("message"), `""`)...)
	s.buf = append(b, "}}"...)
	return s.f.event("error", s.buf)
}

// messageID is the Anthropic message id of a response id.
func messageID(respID string) string { return "msg_" + strings.TrimPrefix(respID, "resp_") }
