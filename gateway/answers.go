package gateway

import (
	"context"
	"encoding/binary"
	"errors"
	"net/http"
	"sync"

	"github.com/farebox/farebox/responses"
	"github.com/farebox/farebox/x402"
	"github.com/labstack/echo/v4"
)

// maxStoredAnswer bounds one stored answer: a larger one is not kept, and
// its retries run the model again (a bounded number of times).
const maxStoredAnswer = 4 << 20

// Kinds of stored answers (their first byte).
const (
	answerJSON   = 'j' // the response object
	answerStream = 's' // the stream's events: uvarint-prefixed type and data, in order
)

// recordingSink is a stream's sink that also records its events, so the
// stream can be stored and replayed to a paid retry. Once the client is
// gone (the sink's writes fail) it keeps recording, and when the answer is
// owed whole (owed: the model committed) it hides the failure from the
// model, so that the stream kept for the retry is whole.
type recordingSink struct {
	responses.Sink
	owed   func() bool
	mu     sync.Mutex
	events []byte
	over   bool // past maxStoredAnswer: not stored
	gone   bool // the client's sink failed
}

func newRecordingSink(inner responses.Sink, owed func() bool) *recordingSink {
	return &recordingSink{Sink: inner, owed: owed, events: []byte{answerStream}}
}

// Event records the event and writes it to the client while it listens.
func (r *recordingSink) Event(typ string, data []byte) error {
	r.mu.Lock()
	if !r.over {
		r.events = binary.AppendUvarint(r.events, uint64(len(typ)))
		r.events = append(r.events, typ...)
		r.events = binary.AppendUvarint(r.events, uint64(len(data)))
		r.events = append(r.events, data...)
		if len(r.events) > maxStoredAnswer {
			r.over, r.events = true, nil
		}
	}
	gone := r.gone
	r.mu.Unlock()
	if gone && r.owed() {
		return nil
	}
	if err := r.Sink.Event(typ, data); err != nil {
		r.mu.Lock()
		r.gone = true
		r.mu.Unlock()
		if r.owed() {
			return nil
		}
		return err
	}
	return nil
}

// recorded is the stored form of the stream, nil when it is too large.
func (r *recordingSink) recorded() []byte {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.over {
		return nil
	}
	return r.events
}

// keepAnswer stores the whole answer of a paid charge for its retries:
// the stream's events, or the response object.
func keepAnswer(ctx context.Context, ch *charge, rec *recordingSink, object []byte) {
	a, ok := ch.pay.(x402.AnsweredHold)
	if !ok || (ch.outcome != settled && ch.outcome != replayed) {
		return
	}
	var b []byte
	switch {
	case rec != nil:
		b = rec.recorded()
	case len(object) < maxStoredAnswer:
		b = append([]byte{answerJSON}, object...)
	}
	a.Keep(ctx, b)
}

// errBadStoredAnswer: a stored answer that does not decode.
var errBadStoredAnswer = errors.New("gateway: a stored answer does not decode")

// replayAnswer answers a paid retry with the answer its payment bought,
// as it was first written: the response object with the receipt header,
// or the same stream of events.
func (s *Server) replayAnswer(c echo.Context, ch *charge, stored []byte) error {
	s.pay.settle(c.Request().Context(), ch, false) // the stored receipt; charges nothing
	if len(stored) == 0 {
		return errBadStoredAnswer
	}
	switch stored[0] {
	case answerJSON:
		receiptHeader(c.Response().Header(), ch)
		return c.Blob(http.StatusOK, echo.MIMEApplicationJSON, stored[1:])
	case answerStream:
		sse := responses.NewSSEWriter(c.Response())
		for b := stored[1:]; len(b) > 0; {
			typ, rest, ok := field(b)
			if !ok {
				return errBadStoredAnswer
			}
			data, rest, ok := field(rest)
			if !ok {
				return errBadStoredAnswer
			}
			if err := sse.Event(string(typ), data); err != nil {
				return nil // the client left
			}
			b = rest
		}
		return sse.Done()
	}
	return errBadStoredAnswer
}

// field reads one uvarint-prefixed field of a stored stream.
func field(b []byte) (f, rest []byte, ok bool) {
	n, k := binary.Uvarint(b)
	if k <= 0 || uint64(len(b)-k) < n {
		return nil, nil, false
	}
	return b[k : k+int(n)], b[k+int(n):], true
}
