package messages

import (
	"io"
	"net/http"
	"sync"
)

// frames writes whole SSE frames (`event: <type>\ndata: <json>\n\n`), each
// flushed at once; on an http.ResponseWriter the stream's headers go out
// with the first frame, so until then the adapter can still answer an
// HTTP error. Ping may be called from another goroutine.
type frames struct {
	mu      sync.Mutex
	w       io.Writer
	flush   func() error
	started bool
	buf     []byte
}

func (f *frames) init(w io.Writer) {
	f.w, f.buf = w, make([]byte, 0, 512)
	switch x := w.(type) {
	case http.ResponseWriter:
		f.flush = http.NewResponseController(x).Flush
	case interface{ Flush() error }:
		f.flush = x.Flush
	}
}

// event writes one frame of type typ.
func (f *frames) event(typ string, data []byte) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	b := append(f.buf[:0], "event: "...)
	b = append(b, typ...)
	b = append(b, "\ndata: "...)
	b = append(b, data...)
	f.buf = append(b, '\n', '\n')
	return f.writeLocked(f.buf)
}

func (f *frames) writeLocked(b []byte) error {
	if !f.started {
		f.started = true
		if rw, ok := f.w.(http.ResponseWriter); ok {
			h := rw.Header()
			h.Set("Content-Type", "text/event-stream")
			h.Set("Cache-Control", "no-cache")
			h.Set("X-Accel-Buffering", "no")
			h.Del("Content-Length")
			rw.WriteHeader(http.StatusOK)
		}
	}
	if _, err := f.w.Write(b); err != nil {
		return err
	}
	if f.flush != nil {
		return f.flush()
	}
	return nil
}
