package charge

import (
	"net/http"
	"time"

	"github.com/farebox/farebox/responses"
)

// Output is the wire adapter's side of one call: where the answer goes.
// The paid call decides what is written and when (a receipt in the
// headers while they are unsent, else in-band; nothing before the
// payment's check passed); the adapter decides how it looks on its wire.
type Output interface {
	// Header is the answer's headers, sent with the first write: the
	// receipt (PAYMENT-RESPONSE), X-Should-Retry.
	Header() http.Header
	// Stream opens the answer as a stream of the emitter's events (the
	// canonical Responses events). It is asked once, before the model
	// runs, and writes nothing by itself.
	Stream() Stream
	// Object writes the whole answer at once with status 200: response is
	// the canonical response object (responses.Emitter.Response), which
	// the adapter encodes in its wire.
	Object(response []byte) error
}

// Stream is a streamed answer: responses.SSEWriter is the Responses
// wire's; another wire's encoder turns each event into its own.
type Stream interface {
	// Event writes one event of the emitter (its type and JSON data);
	// the first one sends the headers.
	responses.Sink
	// Started reports whether anything was written (an event, a
	// keep-alive): the headers are out, so every ending is in-band.
	Started() bool
	// KeepAlive writes a keep-alive every interval while nothing else is
	// written, calling onWrite for each, until stop.
	KeepAlive(every time.Duration, onWrite func()) (stop func())
	// Done ends the stream.
	Done() error
}
