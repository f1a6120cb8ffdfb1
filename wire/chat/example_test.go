package chat_test

import (
	"fmt"
	"net/http/httptest"
	"time"

	"github.com/farebox/farebox/responses"
	"github.com/farebox/farebox/wire/chat"
)

// An adapter decodes, runs the paid call on an emitter whose sink is the
// chat stream (or responses.Discard), then ends the stream with Done or
// turns the final response into one chat.completion.
func Example() {
	opts := responses.EmitterOptions{Model: "m", Now: func() time.Time { return time.Unix(1, 0) }, IDs: func(p string) string { return p + "1" }}
	body := []byte(`{"model":"m","stream":true,"messages":[{"role":"user","content":"hi"}]}`)
	req, err := chat.Decode(body, responses.HostedDrop)
	if err != nil {
		fmt.Println(err.Status, string(chat.ErrorBody(err)))
		return
	}
	w := httptest.NewRecorder()
	stream := chat.NewStream(w, chat.StreamOptions{IncludeUsage: req.IncludeUsage})
	e := responses.NewEmitter(req, stream, opts)
	_ = e.Text("Hello.") // the model, inside the paid call
	_ = e.Complete(nil)  // the paid call, with the receipt as extra["x402"]
	_ = stream.Done()
	fmt.Print(w.Body.String())

	req.Stream = false
	e = responses.NewEmitter(req, responses.Discard{}, opts)
	_ = e.Text("Hello.")
	_ = e.Complete(nil)
	obj, _ := chat.Object(e.Response())
	fmt.Println(string(obj))

	_, err = chat.Decode([]byte(`{"model":"m","messages":[{"role":"user","content":"hi"}],"n":2}`), responses.HostedDrop)
	fmt.Println(err.Status, string(chat.ErrorBody(err)))
	// Output:
	// data: {"id":"resp_1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}]}
	//
	// data: {"id":"resp_1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"Hello."},"finish_reason":null}]}
	//
	// data: {"id":"resp_1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}
	//
	// data: [DONE]
	//
	// {"id":"resp_1","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"Hello.","refusal":null,"annotations":[]},"finish_reason":"stop","logprobs":null}],"usage":{"prompt_tokens":0,"completion_tokens":0,"total_tokens":0,"prompt_tokens_details":{"cached_tokens":0},"completion_tokens_details":{"reasoning_tokens":0}}}
	// 400 {"error":{"message":"Unsupported parameter: 'n' must be 1: farebox answers one choice per paid call.","type":"invalid_request_error","param":"n","code":"unsupported_parameter"}}
}
