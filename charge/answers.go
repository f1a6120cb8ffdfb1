package charge

import (
	"context"
	"encoding/binary"
	"errors"
	"sync"

	"github.com/farebox/farebox/responses"
	"github.com/farebox/farebox/x402"
)

// maxStoredAnswer bounds one stored answer (without the request it
// echoes): a larger one is not kept, and its retries run the model again
// (a bounded number of times).
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
	owed    func() bool
	mu      sync.Mutex
	events  *answerWriter
	scratch []byte
	over    bool // past maxStoredAnswer: not stored
	gone    bool // the client's sink failed
}

// newRecordingSink records the events of a response whose echo (what it
// repeats of the request, responses.Emitter.Echo) is left out.
func newRecordingSink(inner responses.Sink, owed func() bool) *recordingSink {
	return &recordingSink{Sink: inner, owed: owed}
}

// leaveOut sets the echo the recording leaves out; before the first event.
func (r *recordingSink) leaveOut(echo [][]byte) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = newAnswerWriter(echo, answerStream)
}

// Event records the event and writes it to the client while it listens.
func (r *recordingSink) Event(typ string, data []byte) error {
	r.mu.Lock()
	if r.events == nil {
		r.events = newAnswerWriter(nil, answerStream)
	}
	if !r.over {
		b := binary.AppendUvarint(r.scratch[:0], uint64(len(typ)))
		b = append(b, typ...)
		r.events.write(binary.AppendUvarint(b, uint64(len(data))))
		r.events.write(data)
		r.scratch = b
		if len(r.events.out) > maxStoredAnswer {
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
	if r.over || r.events == nil {
		return nil
	}
	return r.events.out
}

// keepAnswer stores the whole answer of a paid fare for its retries:
// the stream's events, or the response object, without echo (what it
// repeats of the request). A free fare keeps nothing.
func keepAnswer(ctx context.Context, f *Fare, rec *recordingSink, object []byte, echo [][]byte) {
	a, ok := f.hold.(x402.AnsweredHold)
	if !ok || (f.outcome != Settled && f.outcome != Replayed) {
		return
	}
	var b []byte
	if rec != nil {
		b = rec.recorded()
	} else {
		w := newAnswerWriter(echo, answerJSON)
		w.write(object)
		if len(w.out) < maxStoredAnswer {
			b = w.out
		}
	}
	a.Keep(ctx, b)
}

// errBadStoredAnswer: a stored answer that does not decode.
var errBadStoredAnswer = errors.New("charge: a stored answer does not decode")

// replayAnswer answers a paid retry with the answer its payment bought,
// as it was first written: the response object with the receipt header,
// or the same stream of events; echoed is what it repeats of the retried
// request (responses.ResponseEcho).
func (s *Seller) replayAnswer(ctx context.Context, f *Fare, out Output, stored []byte, echoed [][]byte) error {
	s.settle(ctx, f, false) // the stored receipt; charges nothing
	stored, err := expandAnswer(stored, echoed)
	if err != nil || len(stored) == 0 {
		return errBadStoredAnswer
	}
	switch stored[0] {
	case answerJSON:
		f.setReceipt(out.Header())
		return out.Object(stored[1:])
	case answerStream:
		st := out.Stream()
		for b := stored[1:]; len(b) > 0; {
			typ, rest, ok := field(b)
			if !ok {
				return errBadStoredAnswer
			}
			data, rest, ok := field(rest)
			if !ok {
				return errBadStoredAnswer
			}
			if err := st.Event(string(typ), data); err != nil {
				return nil // the client left
			}
			b = rest
		}
		return st.Done()
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
