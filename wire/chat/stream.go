package chat

import (
	"io"
	"net/http"
	"strconv"
	"sync"

	"github.com/farebox/farebox/responses"
	"github.com/tidwall/gjson"
)

// StreamOptions says what a chat stream carries besides the deltas.
type StreamOptions struct {
	// IncludeUsage sends the usage chunk (choices: []) before [DONE], as
	// stream_options.include_usage asks (Request.IncludeUsage).
	IncludeUsage bool
}

// Stream is the Sink that turns the emitter's Responses events into
// chat.completion.chunk frames (`data: {...}\n\n`), each written and
// flushed at once. Nothing is written before the first event, so the
// adapter can still answer with an HTTP error until the emitter starts;
// on an http.ResponseWriter the SSE headers go out with the first frame.
type Stream struct {
	mu      sync.Mutex
	w       io.Writer
	flush   func() error
	opts    StreamOptions
	started bool
	done    bool

	head  []byte   // {"id":...,"object":"chat.completion.chunk","created":...,"model":...
	calls []string // item ids of the tool calls so far: a call's index is its place
	frame []byte
}

// NewStream returns a Sink writing chat chunks to w, flushed after each
// frame when w is an http.ResponseWriter or has Flush() error.
func NewStream(w io.Writer, opts StreamOptions) *Stream {
	s := &Stream{w: w, opts: opts, frame: make([]byte, 0, 512)}
	switch f := w.(type) {
	case http.ResponseWriter:
		rc := http.NewResponseController(f)
		s.flush = rc.Flush
	case interface{ Flush() error }:
		s.flush = f.Flush
	}
	return s
}

var _ responses.Sink = (*Stream)(nil)

// Event turns one Responses event into zero, one or two chunks.
func (s *Stream) Event(typ string, data []byte) error {
	switch typ {
	case "response.created":
		r := gjson.GetBytes(data, "response")
		s.head = chunkHead(r.Get("id").Str, r.Get("created_at").Int(), r.Get("model").Str)
		return s.chunk(`[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}]`, "")
	case "response.output_text.delta":
		return s.delta(`{"content":`, gjson.GetBytes(data, "delta").Raw, "}")
	case "response.refusal.delta":
		return s.delta(`{"refusal":`, gjson.GetBytes(data, "delta").Raw, "}")
	case "response.output_item.added":
		return s.callStart(gjson.GetBytes(data, "item"))
	case "response.function_call_arguments.delta":
		return s.delta(`{"tool_calls":[{"index":`+s.callIndex(data)+`,"function":{"arguments":`, gjson.GetBytes(data, "delta").Raw, "}}]}")
	case "response.custom_tool_call_input.delta":
		return s.delta(`{"tool_calls":[{"index":`+s.callIndex(data)+`,"custom":{"input":`, gjson.GetBytes(data, "delta").Raw, "}}]}")
	case "response.completed", "response.incomplete":
		return s.end(gjson.GetBytes(data, "response"))
	case "error":
		return s.fail(gjson.GetBytes(data, "error"))
	}
	return nil
}

// callStart sends a tool call's first chunk: its index, id, type and name.
func (s *Stream) callStart(item gjson.Result) error {
	var b []byte
	switch item.Get("type").Str {
	case "function_call":
		b = append(b, `{"tool_calls":[{"index":`...)
		b = strconv.AppendInt(b, int64(len(s.calls)), 10)
		b = append(b, `,"id":`...)
		b = append(b, item.Get("call_id").Raw...)
		b = append(b, `,"type":"function","function":{"name":`...)
		b = append(b, item.Get("name").Raw...)
		b = append(b, `,"arguments":""}}]}`...)
	case "custom_tool_call":
		b = append(b, `{"tool_calls":[{"index":`...)
		b = strconv.AppendInt(b, int64(len(s.calls)), 10)
		b = append(b, `,"id":`...)
		b = append(b, item.Get("call_id").Raw...)
		b = append(b, `,"type":"custom","custom":{"name":`...)
		b = append(b, item.Get("name").Raw...)
		b = append(b, `,"input":""}}]}`...)
	default:
		return nil
	}
	s.calls = append(s.calls, item.Get("id").Str)
	return s.delta("", string(b), "")
}

// callIndex is the chat index of the call an arguments delta belongs to.
func (s *Stream) callIndex(data []byte) string {
	id := gjson.GetBytes(data, "item_id").Str
	for i := len(s.calls) - 1; i >= 0; i-- {
		if s.calls[i] == id {
			return strconv.Itoa(i)
		}
	}
	return strconv.Itoa(len(s.calls) - 1)
}

// delta sends one chunk whose choice's delta is open+raw+close.
func (s *Stream) delta(open, raw, close string) error {
	return s.chunk(`[{"index":0,"delta":`+open+raw+close+`,"finish_reason":null}]`, "")
}

// end sends the finish chunk (carrying the x402 receipt when the final
// response has one) and, when asked, the usage chunk.
func (s *Stream) end(resp gjson.Result) error {
	tail := ""
	if x := resp.Get("x402"); x.Exists() {
		tail = `,"x402":` + x.Raw
	}
	choices := `[{"index":0,"delta":{},"finish_reason":"` + finishReason(resp) + `"}]`
	if err := s.chunk(choices, tail); err != nil || !s.opts.IncludeUsage {
		return err
	}
	return s.chunk("[]", `,"usage":`+string(usage(resp.Get("usage"))))
}

// fail ends the stream the way OpenAI does on a mid-stream failure: a
// data line holding an error object, which every SDK raises.
func (s *Stream) fail(e gjson.Result) error {
	b := append([]byte(`{"error":`), ErrorObject(e)...)
	return s.write(append(b, '}'))
}

// chunk writes one chunk: the head, choices, then tail's extra fields.
func (s *Stream) chunk(choices, tail string) error {
	if s.head == nil {
		s.head = chunkHead("", 0, "")
	}
	b := append(append([]byte(nil), s.head...), `,"choices":`...)
	b = append(b, choices...)
	b = append(b, tail...)
	return s.write(append(b, '}'))
}

// Done writes the final `data: [DONE]`, once.
func (s *Stream) Done() error {
	s.mu.Lock()
	if s.done {
		s.mu.Unlock()
		return nil
	}
	s.done = true
	s.mu.Unlock()
	return s.writeFrame([]byte("data: [DONE]\n\n"))
}

// KeepAlive writes an SSE comment, which every parser skips, so proxies
// see traffic while the model thinks. Safe to call from another goroutine.
func (s *Stream) KeepAlive() error { return s.writeFrame([]byte(": keep-alive\n\n")) }

func (s *Stream) write(data []byte) error {
	f := append(s.frame[:0], "data: "...)
	f = append(f, data...)
	s.frame = append(f, '\n', '\n')
	return s.writeFrame(s.frame)
}

// writeFrame writes one whole frame (and the headers before the first)
// and flushes it.
func (s *Stream) writeFrame(f []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.started {
		s.started = true
		if rw, ok := s.w.(http.ResponseWriter); ok {
			h := rw.Header()
			h.Set("Content-Type", "text/event-stream")
			h.Set("Cache-Control", "no-cache")
			h.Set("X-Accel-Buffering", "no")
			h.Del("Content-Length")
			rw.WriteHeader(http.StatusOK)
		}
	}
	if _, err := s.w.Write(f); err != nil {
		return err
	}
	if s.flush != nil {
		return s.flush()
	}
	return nil
}

// Started reports whether anything was written.
func (s *Stream) Started() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.started
}

// chunkHead is the part every chunk of a stream repeats.
func chunkHead(id string, created int64, model string) []byte {
	b := append([]byte(`{"id":`), responses.AppendJSONString(nil, id)...)
	b = append(b, `,"object":"chat.completion.chunk","created":`...)
	b = strconv.AppendInt(b, created, 10)
	b = append(b, `,"model":`...)
	return responses.AppendJSONString(b, model)
}
