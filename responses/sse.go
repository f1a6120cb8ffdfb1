package responses

import "net/http"

// SSEWriter is the streaming Sink: it writes each event to an HTTP response
// as one `event: <type>\ndata: <json>\n\n` frame in a single write, then
// flushes, so no delta is ever held back. Headers go out with the first
// event, which lets the gateway still answer with an HTTP error (and set
// payment headers) until the emitter really starts.
type SSEWriter struct {
	w       http.ResponseWriter
	rc      *http.ResponseController
	frame   []byte
	started bool
	done    bool
}

// NewSSEWriter returns a Sink that streams to w.
func NewSSEWriter(w http.ResponseWriter) *SSEWriter {
	return &SSEWriter{w: w, rc: http.NewResponseController(w), frame: make([]byte, 0, 1024)}
}

// Started reports whether the status line and headers were sent.
func (s *SSEWriter) Started() bool { return s.started }

func (s *SSEWriter) writeHeader() {
	if s.started {
		return
	}
	s.started = true
	h := s.w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Accel-Buffering", "no")
	h.Del("Content-Length")
	s.w.WriteHeader(http.StatusOK)
}

// Event writes one frame and flushes it.
func (s *SSEWriter) Event(typ string, data []byte) error {
	s.writeHeader()
	f := append(s.frame[:0], "event: "...)
	f = append(f, typ...)
	f = append(f, "\ndata: "...)
	f = append(f, data...)
	f = append(f, '\n', '\n')
	s.frame = f
	return s.write(f)
}

// Done writes the final `data: [DONE]` the Open Responses spec requires
// after the terminal event. It writes once; later calls do nothing.
func (s *SSEWriter) Done() error {
	if s.done {
		return nil
	}
	s.done = true
	s.writeHeader()
	return s.write([]byte("data: [DONE]\n\n"))
}

func (s *SSEWriter) write(f []byte) error {
	if _, err := s.w.Write(f); err != nil {
		return err
	}
	return s.rc.Flush()
}

// Discard is the non-streaming Sink: events are dropped and the gateway
// reads the final object from Emitter.Response, built by the same emitter
// that streams, so both answers always agree.
type Discard struct{}

// Event drops the event.
func (Discard) Event(string, []byte) error { return nil }
