package messages_test

import (
	"fmt"
	"net/http/httptest"
	"time"

	"github.com/farebox/farebox/responses"
	"github.com/farebox/farebox/wire/messages"
)

// An adapter decodes, runs the paid call on an emitter whose sink is the
// Anthropic stream (or responses.Discard), and for a non-streaming call
// turns the final response into one message; errors go out through
// ErrorBody.
func Example() {
	opts := responses.EmitterOptions{Model: "claude-x", Now: func() time.Time { return time.Unix(1, 0) }, IDs: func(p string) string { return p + "1" }}
	body := []byte(`{"model":"claude-x","max_tokens":100,"stream":true,"messages":[{"role":"user","content":"hi"}]}`)
	req, err := messages.Decode(body, responses.HostedDrop)
	if err != nil {
		status, b := messages.ErrorBody(err)
		fmt.Println(status, string(b))
		return
	}
	w := httptest.NewRecorder()
	e := responses.NewEmitter(req, messages.NewStream(w), opts)
	_ = e.Text("Hello.") // the model, inside the paid call
	_ = e.Complete(nil)  // the paid call, with the receipt as extra["x402"]
	fmt.Print(w.Body.String())

	e = responses.NewEmitter(req, responses.Discard{}, opts)
	_ = e.Text("Hello.")
	_ = e.Complete(nil)
	obj, _ := messages.Object(e.Response())
	fmt.Println(string(obj))

	_, err = messages.Decode([]byte(`{"model":"claude-x","messages":[{"role":"user","content":"hi"}]}`), responses.HostedDrop)
	status, b := messages.ErrorBody(err)
	fmt.Println(status, string(b))
	// Output:
	// event: message_start
	// data: {"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"claude-x","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":0,"output_tokens":0}}}
	//
	// event: content_block_start
	// data: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}
	//
	// event: content_block_delta
	// data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hello."}}
	//
	// event: content_block_stop
	// data: {"type":"content_block_stop","index":0}
	//
	// event: message_delta
	// data: {"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"input_tokens":0,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":0}}
	//
	// event: message_stop
	// data: {"type":"message_stop"}
	//
	// {"id":"msg_1","type":"message","role":"assistant","model":"claude-x","content":[{"type":"text","text":"Hello."}],"stop_reason":"end_turn","stop_sequence":null,"usage":{"input_tokens":0,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":0}}
	// 400 {"type":"error","error":{"type":"invalid_request_error","message":"Missing required parameter: 'max_tokens'."}}
}
