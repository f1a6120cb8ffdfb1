package responses

import (
	"encoding/json"
	"time"
)

// Sink receives the events of one response, in order. data is the event's
// complete one-line JSON; typ equals its "type". The SSE writer writes and
// flushes each event; the non-streaming path ignores events and reads the
// final object from Emitter.Response.
type Sink interface {
	Event(typ string, data []byte) error
}

// EmitterOptions fixes what a response carries besides model output.
type EmitterOptions struct {
	Model string           // the public model name echoed in the response
	Now   func() time.Time // defaults to time.Now
	// IDs generates ids ("resp_", "msg_", "fc_", "call_"); defaults to
	// random ids. Tests pass a deterministic generator for golden files.
	IDs func(prefix string) string
}

// Emitter turns model output ("text delta", "start call", "arguments delta",
// "usage", "finish") into Responses events and the final response object,
// owning every streaming invariant of wire.md §3 and the deny-all policy on
// the way out. It is not safe for concurrent use.
//
// Nothing reaches the sink before the first output item opens (or the
// response ends): until then, a failure can still become an HTTP error.
type Emitter struct {
	// TODO(issue 2): implementation.
	req  *Request
	sink Sink
	opts EmitterOptions
}

// NewEmitter starts a response to req whose events go to sink.
func NewEmitter(req *Request, sink Sink, opts EmitterOptions) *Emitter {
	return &Emitter{req: req, sink: sink, opts: opts}
}

// Text appends a text delta to the assistant message, opening it if needed.
func (e *Emitter) Text(delta string) error { panic("unimplemented") }

// StartCall closes any open item and opens a function call. callID "" gets a
// generated id. A call the request does not permit is dropped: it and its
// argument deltas never leave.
func (e *Emitter) StartCall(callID, name string) error { panic("unimplemented") }

// Arguments appends an argument delta to the open function call.
func (e *Emitter) Arguments(delta string) error { panic("unimplemented") }

// SetUsage records token usage for the final response.
func (e *Emitter) SetUsage(u Usage) { panic("unimplemented") }

// Incomplete marks the response incomplete (reason e.g. "max_output_tokens").
func (e *Emitter) Incomplete(reason string) { panic("unimplemented") }

// Started reports whether any event reached the sink.
func (e *Emitter) Started() bool { panic("unimplemented") }

// Complete closes the open item and emits the terminal event
// (response.completed or response.incomplete; response.failed when the
// deny-all filter dropped everything), then [DONE] is the sink's business.
// extra fields (e.g. "x402": receipt) are added to the response object of the
// terminal event and of Response().
func (e *Emitter) Complete(extra map[string]json.RawMessage) error { panic("unimplemented") }

// Fail emits an error event and response.failed carrying err's message.
func (e *Emitter) Fail(err *Error, extra map[string]json.RawMessage) error { panic("unimplemented") }

// Response returns the final response object as JSON (valid after Complete
// or Fail).
func (e *Emitter) Response() []byte { panic("unimplemented") }
