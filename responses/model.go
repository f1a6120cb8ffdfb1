package responses

import "context"

// Model is one upstream behind farebox. Respond produces one response for
// req by calling out (Text, StartCall, Arguments, SetUsage, Incomplete); it
// never writes JSON itself and cannot end the response: the gateway holds
// the *Emitter behind out and calls Complete or Fail after deciding about
// payment.
//
// Respond returns nil when the model finished. A returned error is shown to
// the client: as an HTTP error when nothing was streamed yet, else as an
// error event followed by response.failed. Return a *Error to choose the
// status, type and message; any other error becomes a 502 "upstream error"
// with details only in the log.
type Model interface {
	Respond(ctx context.Context, req *Request, out Output) error
}

// Output is the half of *Emitter a model writes to, so a model can feed
// output but never end a response, read its state or reach the writer.
// Refusal feeds a message whose part is the model's refusal.
// Arguments feeds the open function call's arguments or the open custom
// call's input.
type Output interface {
	Text(delta string) error
	Refusal(delta string) error
	StartCall(callID, name string) error
	Arguments(delta string) error
	StartCustomCall(callID, name string) error
	StartReasoning() error
	ReasoningSummary(index int, delta string) error
	ReasoningEncrypted(content string) error
	ClientCall(wire, callID string, fields []byte) error
	SetUsage(u Usage)
	Incomplete(reason string)
}

var _ Output = (*Emitter)(nil)

// Usage is token accounting reported by a model.
type Usage struct {
	InputTokens  int64
	CachedTokens int64 // of InputTokens, read from the provider's cache
	// CacheWriteTokens, of InputTokens, were written to the provider's
	// cache (0 when the upstream reports none).
	CacheWriteTokens int64
	OutputTokens     int64
	ReasoningTokens  int64 // of OutputTokens
}

// InputTokenCounter is a Model that can count a request's input tokens
// with its upstream's own tokenizer (a Responses upstream's POST
// /responses/input_tokens). Models without it are estimated.
type InputTokenCounter interface {
	CountInputTokens(ctx context.Context, req *Request) (int64, error)
}
