package upstreamhttp

import (
	"context"
	"errors"
	"io"
	"strings"
)

// Stream is one streaming upstream call in progress: the SSE events of a
// 200 answer, read under the watchdog's timers. Errors it reports are
// already mapped for the client.
type Stream struct {
	ctx  context.Context
	w    *watchdog
	body io.Closer
	dec  *decoder
	err  error
}

// maxErrorBody bounds how much of an upstream's error answer is read.
const maxErrorBody = 1 << 20

// Open posts body (JSON) to path through client and returns the event stream
// once the upstream answered 200. A non-2xx answer, a failure to connect or
// a timeout is returned as the client's error (see FromStatus, Transport).
func Open(ctx context.Context, client *Client, path string, body []byte, t Timeouts) (*Stream, error) {
	cctx, w := watch(ctx, t)
	res, err := client.post(cctx, path, body)
	if err != nil {
		mapped := Transport(cctx, err)
		w.Stop()
		return nil, mapped
	}
	if res.StatusCode >= 300 {
		data, _ := io.ReadAll(io.LimitReader(res.Body, maxErrorBody))
		res.Body.Close()
		w.Stop()
		return nil, FromStatus(res.StatusCode, res.Header, data)
	}
	if ct := res.Header.Get("Content-Type"); !strings.HasPrefix(strings.ToLower(ct), "text/event-stream") {
		res.Body.Close()
		w.Stop()
		return nil, Broken(errors.New("upstream answered a streaming request with Content-Type " + ct))
	}
	return &Stream{ctx: cctx, w: w, body: res.Body, dec: newDecoder(res.Body, maxEvent)}, nil
}

// Next advances to the next event; false at the end of the stream or on an
// error (see Err).
func (s *Stream) Next() bool {
	if s.err != nil {
		return false
	}
	if s.dec.next() {
		s.w.Seen()
		return true
	}
	if err := s.dec.err; err != nil || s.ctx.Err() != nil {
		if err == nil {
			err = s.ctx.Err()
		}
		s.err = Transport(s.ctx, err)
	}
	return false
}

// Event is the current event.
func (s *Stream) Event() Event { return s.dec.ev }

// Err is the mapped error that ended the stream, nil after a clean end.
func (s *Stream) Err() error { return s.err }

// Close releases the connection and the timers; it cancels the upstream
// request if the stream was not read to its end.
func (s *Stream) Close() {
	s.w.Stop()
	s.body.Close()
}
