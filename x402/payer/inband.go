package payer

import (
	"bytes"
	"context"
	"mime"
	"net/http"
	"sync"

	"github.com/tidwall/gjson"
)

// maxEventLine bounds one server-sent event line kept while looking for
// the in-band receipt (the terminal event carries the whole response).
const maxEventLine = 8 << 20

// isEventStream reports whether resp is a server-sent event stream.
func isEventStream(resp *http.Response) bool {
	mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	return mt == "text/event-stream"
}

// streamReceipt watches a paid event stream that carried no receipt
// header for its in-band receipt, the `x402` field of the terminal
// event's response object on Responses, of the finish chunk on Chat
// Completions and of message_delta on Anthropic Messages (docs/wire.md):
// a streamed answer's charge is known
// only at its end. It settles once, with the receipt or, at the end of
// the stream without one, with none.
type streamReceipt struct {
	t     *Transport
	p     *purchase
	hooks *Hooks
	ctx   context.Context

	mu   sync.Mutex
	line []byte
	skip bool // the current line is over maxEventLine
	done bool
}

// feed scans streamed bytes for complete lines.
func (s *streamReceipt) feed(b []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for len(b) > 0 && !s.done {
		i := bytes.IndexByte(b, '\n')
		chunk := b
		if i >= 0 {
			chunk = b[:i]
		}
		if !s.skip {
			if len(s.line)+len(chunk) > maxEventLine {
				s.skip, s.line = true, s.line[:0]
			} else {
				s.line = append(s.line, chunk...)
			}
		}
		if i < 0 {
			return
		}
		if !s.skip {
			s.event(s.line)
		}
		s.line, s.skip, b = s.line[:0], false, b[i+1:]
	}
}

// event looks for the receipt in one `data:` line (the mutex is held).
func (s *streamReceipt) event(line []byte) {
	data, ok := bytes.CutPrefix(bytes.TrimRight(line, "\r"), []byte("data:"))
	if !ok || !bytes.Contains(data, []byte(`"x402"`)) {
		return
	}
	data = bytes.TrimSpace(data)
	r := gjson.GetBytes(data, "response.x402") // Responses: the terminal event's response
	if !r.IsObject() {
		r = gjson.GetBytes(data, "x402") // Chat's finish chunk, Messages' message_delta
	}
	if r.IsObject() {
		s.settle([]byte(r.Raw))
	}
}

// finish settles without a receipt if none was seen.
func (s *streamReceipt) finish() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.settle(nil)
}

func (s *streamReceipt) settle(raw []byte) {
	if s.done {
		return
	}
	s.done = true
	ctx := context.WithoutCancel(s.ctx)
	if b := s.p.batch; b != nil {
		unlock, err := s.t.store.Lock(ctx, b.key)
		if err != nil {
			return
		}
		defer unlock()
	}
	s.t.settled(ctx, s.p, raw, s.hooks)
}
