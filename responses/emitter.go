package responses

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"time"
)

// Sink receives the events of one response, in order. data is the event's
// complete one-line JSON; typ equals its "type". The SSE writer writes and
// flushes each event; the non-streaming path ignores events and reads the
// final object from Emitter.Response. data is reused once Event returns: a
// sink that keeps it must copy it.
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

// ErrFinished is returned by every call made after the terminal event.
var ErrFinished = errors.New("responses: the response already ended")

// ErrNoOpenCall is returned by Arguments when no function call is open.
var ErrNoOpenCall = errors.New("responses: arguments delta without an open function call")

// Response and item statuses.
const (
	respInProgress = "in_progress"
	respCompleted  = "completed"
	respIncomplete = "incomplete"
	respFailed     = "failed"
)

// outItem is one output item: an assistant message with one output_text
// part, or a function call. body holds the JSON-escaped text or arguments
// (without quotes), built delta by delta, so done events and the final
// object never escape twice and always equal the concatenated deltas.
type outItem struct {
	kind   itemKind
	id     string
	callID string // calls
	name   string // function and custom calls
	ns     string // function and custom calls: the tool's namespace
	status string
	body   []byte
	// refusal: a message whose one part is a refusal, not output_text
	refusal bool

	// reasoning: the escaped text of each summary part, and the
	// encrypted content (sent only when the request includes it)
	summary   [][]byte
	encrypted string
	// client calls (local_shell_call, ...): the wire type and the item's
	// own fields as an object
	wire   string
	fields []byte
}

// itemKind is what an output item is.
type itemKind uint8

const (
	itemMessage itemKind = iota
	itemFunction
	itemCustom
	itemReasoning
	itemClient
)

// Emitter turns model output ("text delta", "start call", "arguments delta",
// "usage", "finish") into Responses events and the final response object,
// owning every streaming invariant of docs/wire.md §3 and the deny-all policy on
// the way out. It is not safe for concurrent use.
//
// Nothing reaches the sink before the first output item opens (or the
// response ends): until then, a failure can still become an HTTP error.
type Emitter struct {
	req  *Request
	sink Sink
	opts EmitterOptions

	id          string
	createdAt   int64
	completedAt int64
	echo        responseEcho

	seq      int64
	started  bool
	sinkErr  error
	output   []outItem
	open     bool // output[len-1] is open
	dropping bool // a dropped call is "open": its argument deltas vanish
	partOpen bool // the open reasoning item has an open summary part
	callIDs  map[string]bool
	calls    int64

	dropped  int
	denyName string // the first dropped call
	denyWhy  string

	usage      Usage
	usageSet   bool
	incomplete string // incomplete reason, "" = none

	status string // "" until the terminal event
	err    *Error // failed responses
	extra  map[string]json.RawMessage
	final  []byte

	buf     []byte // the event being built
	scratch []byte // one escaped delta
}

// NewEmitter starts a response to req whose events go to sink.
func NewEmitter(req *Request, sink Sink, opts EmitterOptions) *Emitter {
	if req == nil {
		req = &Request{ParallelToolCalls: true}
	}
	if sink == nil {
		sink = Discard{}
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.IDs == nil {
		opts.IDs = emitterID
	}
	e := &Emitter{req: req, sink: sink, opts: opts}
	e.id = opts.IDs("resp_")
	e.createdAt = opts.Now().Unix()
	e.echo = newResponseEcho(req, opts.Model)
	e.buf = make([]byte, 0, 1024)
	return e
}

// emitterID returns prefix followed by 32 random hex digits.
func emitterID(prefix string) string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // never fails (crypto/rand since Go 1.24)
	return prefix + hex.EncodeToString(b[:])
}

// ID is the response id ("resp_..."), known before any event is sent.
func (e *Emitter) ID() string { return e.id }

// Text appends a text delta to the assistant message, opening it if needed.
func (e *Emitter) Text(delta string) error {
	if e.status != "" {
		return ErrFinished
	}
	if delta == "" {
		return nil
	}
	if e.dropping || (e.open && (e.last().kind != itemMessage || e.last().refusal)) {
		e.closeOpen(respCompleted)
	}
	if !e.open {
		e.openItem(outItem{id: e.opts.IDs("msg_")})
		e.emitPartAdded()
	}
	it := e.last()
	e.scratch = outEscaped(e.scratch[:0], delta)
	it.body = append(it.body, e.scratch...)
	b := e.begin("response.output_text.delta")
	b = e.outItemRef(b)
	b = append(b, `,"content_index":0,"delta":"`...)
	b = append(b, e.scratch...)
	b = append(b, `","logprobs":[]}`...)
	return e.emit("response.output_text.delta", b)
}

// StartCall closes any open item and opens a function call. callID "" gets a
// generated id. A call the request does not permit is dropped: it and its
// argument deltas never leave.
func (e *Emitter) StartCall(callID, name string) error {
	return e.startCall(outItem{kind: itemFunction, name: name}, callID)
}

// startCall opens the call item it (kind, name and for client calls wire
// and fields set) unless the policy drops it.
func (e *Emitter) startCall(it outItem, callID string) error {
	kind, name := it.kind, it.name
	if e.status != "" {
		return ErrFinished
	}
	e.closeOpen(respCompleted)
	if why := e.denial(name, kind); why != "" {
		e.dropped++
		if e.denyName == "" {
			e.denyName, e.denyWhy = name, why
		}
		e.dropping = true
		return e.sinkErr
	}
	e.calls++
	if callID == "" || e.callIDs[callID] {
		// Clients pair outputs by call_id: an id must be unique in a response.
		callID = e.opts.IDs("call_")
	}
	if e.callIDs == nil {
		e.callIDs = make(map[string]bool, 4)
	}
	e.callIDs[callID] = true
	prefix := "fc_"
	switch kind {
	case itemCustom:
		prefix = "ctc_"
	case itemClient:
		prefix, it.name = clientCallPrefix[it.wire], ""
	}
	it.id, it.callID = e.opts.IDs(prefix), callID
	if t := e.req.Lookup(name); t != nil {
		it.ns = t.Namespace
	}
	e.openItem(it)
	return e.sinkErr
}

// Arguments appends an argument delta to the open function call.
func (e *Emitter) Arguments(delta string) error {
	if e.status != "" {
		return ErrFinished
	}
	if e.dropping {
		return e.sinkErr
	}
	if !e.open || (e.last().kind != itemFunction && e.last().kind != itemCustom) {
		return ErrNoOpenCall
	}
	if delta == "" {
		return e.sinkErr
	}
	it := e.last()
	e.scratch = outEscaped(e.scratch[:0], delta)
	it.body = append(it.body, e.scratch...)
	typ := "response.function_call_arguments.delta"
	if it.kind == itemCustom {
		typ = "response.custom_tool_call_input.delta"
	}
	b := e.begin(typ)
	b = e.outItemRef(b)
	b = append(b, `,"delta":"`...)
	b = append(b, e.scratch...)
	b = append(b, `"}`...)
	return e.emit(typ, b)
}

// SetUsage records token usage for the final response.
func (e *Emitter) SetUsage(u Usage) {
	e.usage = u
	e.usageSet = true
}

// Incomplete marks the response incomplete (reason e.g. "max_output_tokens").
func (e *Emitter) Incomplete(reason string) {
	if reason == "" {
		reason = "max_output_tokens"
	}
	e.incomplete = reason
}

// Started reports whether any event reached the sink.
func (e *Emitter) Started() bool { return e.started }

// Dropped counts the calls the deny-all policy (or max_tool_calls) kept
// from leaving.
func (e *Emitter) Dropped() int { return e.dropped }

// Status is the response status: in_progress until the terminal event, then
// completed, incomplete or failed.
func (e *Emitter) Status() string {
	if e.status == "" {
		return respInProgress
	}
	return e.status
}

func (e *Emitter) last() *outItem { return &e.output[len(e.output)-1] }

// start sends the held-back response.created and response.in_progress.
func (e *Emitter) start() {
	if e.started {
		return
	}
	e.started = true
	for _, typ := range [...]string{"response.created", "response.in_progress"} {
		b := e.begin(typ)
		b = append(b, `,"response":`...)
		b = e.outResponse(b, false)
		b = append(b, '}')
		_ = e.emit(typ, b)
	}
}

// openItem announces a new output item; only one is open at a time.
func (e *Emitter) openItem(it outItem) {
	e.start()
	it.status = respInProgress
	e.output = append(e.output, it)
	e.open = true
	b := e.begin("response.output_item.added")
	b = outKey(b, "output_index")
	b = outInt(b, int64(len(e.output)-1))
	b = append(b, `,"item":`...)
	b = outItemJSON(b, e.last())
	b = append(b, '}')
	_ = e.emit("response.output_item.added", b)
}

func (e *Emitter) emitPartAdded() {
	b := e.begin("response.content_part.added")
	b = e.outItemRef(b)
	b = append(b, `,"content_index":0,"part":`...)
	b = outMessagePart(b, e.last(), nil)
	b = append(b, '}')
	_ = e.emit("response.content_part.added", b)
}

// closeOpen finishes the open item with all its .done events, or forgets a
// dropped call.
func (e *Emitter) closeOpen(status string) {
	e.dropping = false
	if e.open && e.last().kind == itemReasoning {
		e.closeSummaryPart()
	}
	if !e.open {
		return
	}
	e.open = false
	it := e.last()
	it.status = status
	switch it.kind {
	case itemCustom:
		b := e.begin("response.custom_tool_call_input.done")
		b = e.outItemRef(b)
		b = append(b, `,"input":"`...)
		b = append(b, it.body...)
		b = append(b, `"}`...)
		_ = e.emit("response.custom_tool_call_input.done", b)
	case itemReasoning, itemClient:
	case itemFunction:
		if len(it.body) == 0 {
			it.body = append(it.body, "{}"...)
		}
		b := e.begin("response.function_call_arguments.done")
		b = e.outItemRef(b)
		b = outKey(b, "name")
		b = outString(b, it.name)
		b = append(b, `,"arguments":"`...)
		b = append(b, it.body...)
		b = append(b, `"}`...)
		_ = e.emit("response.function_call_arguments.done", b)
	case itemMessage:
		if it.refusal {
			b := e.begin("response.refusal.done")
			b = e.outItemRef(b)
			b = append(b, `,"content_index":0,"refusal":"`...)
			b = append(b, it.body...)
			b = append(b, `"}`...)
			_ = e.emit("response.refusal.done", b)
		} else {
			b := e.begin("response.output_text.done")
			b = e.outItemRef(b)
			b = append(b, `,"content_index":0,"text":"`...)
			b = append(b, it.body...)
			b = append(b, `","logprobs":[]}`...)
			_ = e.emit("response.output_text.done", b)
		}
		b := e.begin("response.content_part.done")
		b = e.outItemRef(b)
		b = append(b, `,"content_index":0,"part":`...)
		b = outMessagePart(b, it, it.body)
		b = append(b, '}')
		_ = e.emit("response.content_part.done", b)
	}
	b := e.begin("response.output_item.done")
	b = outKey(b, "output_index")
	b = outInt(b, int64(len(e.output)-1))
	b = append(b, `,"item":`...)
	b = outItemJSON(b, it)
	b = append(b, '}')
	_ = e.emit("response.output_item.done", b)
}

// begin starts an event in the reused buffer: {"type":...,"sequence_number":n
func (e *Emitter) begin(typ string) []byte {
	b := append(e.buf[:0], `{"type":"`...)
	b = append(b, typ...)
	b = append(b, `","sequence_number":`...)
	return outInt(b, e.seq)
}

// outItemRef writes the open item's item_id and output_index.
func (e *Emitter) outItemRef(b []byte) []byte {
	b = outKey(b, "item_id")
	b = outString(b, e.last().id)
	b = outKey(b, "output_index")
	return outInt(b, int64(len(e.output)-1))
}

// emit hands one event to the sink. After the sink's first error (the
// client went away) events are no longer written, but the emitter keeps
// building the response: the gateway still needs its final state.
func (e *Emitter) emit(typ string, b []byte) error {
	e.buf = b
	e.seq++
	if e.sinkErr != nil {
		return e.sinkErr
	}
	if err := e.sink.Event(typ, b); err != nil {
		e.sinkErr = err
	}
	return e.sinkErr
}
