package responses

import (
	"net/http"
	"sync"
	"time"
)

// SSEWriter is the streaming Sink: it writes each event to an HTTP response
// as one `event: <type>\ndata: <json>\n\n` frame in a single write, then
// flushes, so no delta is ever held back. Headers go out with the first
// event, which lets the gateway still answer with an HTTP error (and set
// payment headers) until the emitter really starts.
//
// With KeepAlive, a timer goroutine writes comment lines too; one mutex
// keeps each frame whole.
type SSEWriter struct {
	mu      sync.Mutex
	w       http.ResponseWriter
	rc      *http.ResponseController
	frame   []byte
	started bool
	done    bool

	every     time.Duration // keep-alive period; 0 = none
	last      time.Time     // the last write
	timer     *time.Timer
	stopped   bool
	onComment func()
}

// keepAliveFrame is an SSE comment: parsers skip it, proxies see traffic.
var keepAliveFrame = []byte(": keep-alive\n\n")

// KeepAlive writes an SSE comment line whenever nothing was written for
// every, until the returned stop is called (stop waits for a write in
// progress; after it the writer is only written by its caller). A comment
// sent before the first event sends the headers: the response is then a
// stream whatever happens. onWrite, when set, is called after each comment.
func (s *SSEWriter) KeepAlive(every time.Duration, onWrite func()) (stop func()) {
	if every <= 0 {
		return func() {}
	}
	s.mu.Lock()
	s.every, s.last, s.onComment = every, time.Now(), onWrite
	s.timer = time.AfterFunc(every, s.keepAlive)
	s.mu.Unlock()
	return func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		s.stopped = true
		s.timer.Stop()
	}
}

func (s *SSEWriter) keepAlive() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stopped || s.done {
		return
	}
	if wait := s.every - time.Since(s.last); wait > 0 {
		s.timer.Reset(wait) // an event went out meanwhile
		return
	}
	s.writeHeader()
	if err := s.write(keepAliveFrame); err != nil {
		s.stopped = true // the client is gone
		return
	}
	if s.onComment != nil {
		s.onComment()
	}
	s.timer.Reset(s.every)
}

// NewSSEWriter returns a Sink that streams to w.
func NewSSEWriter(w http.ResponseWriter) *SSEWriter {
	return &SSEWriter{w: w, rc: http.NewResponseController(w), frame: make([]byte, 0, 1024)}
}

// Started reports whether the status line and headers were sent.
func (s *SSEWriter) Started() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.started
}

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
	s.mu.Lock()
	defer s.mu.Unlock()
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
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.done {
		return nil
	}
	s.done = true
	s.writeHeader()
	return s.write([]byte("data: [DONE]\n\n"))
}

func (s *SSEWriter) write(f []byte) error {
	if s.every > 0 {
		s.last = time.Now()
	}
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
