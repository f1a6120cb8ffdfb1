package upstreamhttp

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/packages/ssestream"
)

// Stream is one streaming upstream call in progress: the SSE events of a
// 200 answer, read under the watchdog's timers. Errors it reports are
// already mapped for the client.
type Stream struct {
	ctx context.Context
	w   *watchdog
	dec ssestream.Decoder
	err error
}

// Open posts body (JSON) to path through client and returns the event stream
// once the upstream answered 200. A non-2xx answer, a failure to connect or
// a timeout is returned as the client's error (see FromStatus, Transport).
func Open(ctx context.Context, client *openai.Client, path string, body []byte, t Timeouts) (*Stream, error) {
	cctx, w := watch(ctx, t)
	var raw *http.Response
	err := client.Post(cctx, path, nil, &raw,
		option.WithRequestBody("application/json", body),
		option.WithHeader("Accept", "text/event-stream"))
	if raw != nil && raw.StatusCode >= 300 {
		w.Stop()
		var data []byte
		if raw.Body != nil {
			data, _ = io.ReadAll(io.LimitReader(raw.Body, 1<<20))
			raw.Body.Close()
		}
		return nil, FromStatus(raw.StatusCode, raw.Header, data)
	}
	if err != nil {
		mapped := Transport(cctx, err)
		w.Stop()
		return nil, mapped
	}
	if ct := raw.Header.Get("Content-Type"); !strings.HasPrefix(strings.ToLower(ct), "text/event-stream") {
		raw.Body.Close()
		w.Stop()
		return nil, Broken(errors.New("upstream answered a streaming request with Content-Type " + ct))
	}
	return &Stream{ctx: cctx, w: w, dec: ssestream.NewDecoder(raw)}, nil
}

// Next advances to the next event; false at the end of the stream or on an
// error (see Err).
func (s *Stream) Next() bool {
	if s.err != nil {
		return false
	}
	if s.dec.Next() {
		s.w.Seen()
		return true
	}
	if err := s.dec.Err(); err != nil || s.ctx.Err() != nil {
		if err == nil {
			err = s.ctx.Err()
		}
		s.err = Transport(s.ctx, err)
	}
	return false
}

// Event is the current event: its SSE event name (may be empty) and data.
func (s *Stream) Event() ssestream.Event { return s.dec.Event() }

// Err is the mapped error that ended the stream, nil after a clean end.
func (s *Stream) Err() error { return s.err }

// Close releases the connection and the timers; it cancels the upstream
// request if the stream was not read to its end.
func (s *Stream) Close() {
	s.w.Stop()
	s.dec.Close()
}
