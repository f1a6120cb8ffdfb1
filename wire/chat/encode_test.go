package chat

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/farebox/farebox/responses"
	"github.com/farebox/farebox/schemas"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/packages/ssestream"
)

const toolsBody = `{"model":"m","stream":true,"stream_options":{"include_usage":true},"messages":[{"role":"user","content":"weather and time"}],
	"tools":[{"type":"function","function":{"name":"get_weather","parameters":{"type":"object","properties":{"city":{"type":"string"}}}}},
	{"type":"function","function":{"name":"get_time"}}]}`

// run decodes body, plays script on an emitter whose sink is a chat
// stream, and returns the stream's bytes and the chat object of the same
// response.
func run(t *testing.T, body string, script func(e *responses.Emitter)) (*httptest.ResponseRecorder, []byte) {
	t.Helper()
	req, err := Decode([]byte(body), responses.HostedDrop)
	if err != nil {
		t.Fatalf("Decode: %v", err)
	}
	rec := httptest.NewRecorder()
	n := 0
	ids := func(prefix string) string { n++; return prefix + strings.Repeat("x", n) }
	now := func() time.Time { return time.Unix(1749761642, 0) }
	s := NewStream(rec, StreamOptions{IncludeUsage: req.IncludeUsage})
	e := responses.NewEmitter(req, s, responses.EmitterOptions{Model: "m", Now: now, IDs: ids})
	script(e)
	if err := s.Done(); err != nil {
		t.Fatal(err)
	}
	obj, oerr := Object(e.Response())
	if oerr != nil && e.Status() != "failed" {
		t.Fatalf("Object: %v", oerr)
	}
	return rec, obj
}

// chunks reads every data line of a chat stream, validating each chunk
// against the spec; the last line must be [DONE].
func chunks(t *testing.T, body []byte) [][]byte {
	t.Helper()
	var out [][]byte
	frames := strings.Split(strings.TrimSuffix(string(body), "\n\n"), "\n\n")
	for i, f := range frames {
		data, ok := strings.CutPrefix(f, "data: ")
		if !ok {
			t.Fatalf("frame %d is not a data line: %q", i, f)
		}
		if data == "[DONE]" {
			if i != len(frames)-1 {
				t.Fatalf("[DONE] is frame %d of %d", i, len(frames))
			}
			return out
		}
		if !strings.Contains(data, `"error"`) {
			if err := schemas.ValidateOpenAI("CreateChatCompletionStreamResponse", []byte(data)); err != nil {
				t.Errorf("chunk %d: %v\n%s", i, err, data)
			}
		}
		out = append(out, []byte(data))
	}
	t.Fatal("the stream does not end with [DONE]")
	return nil
}

// sdkStream reads the stream with openai-go's own SSE stream, into its
// accumulator.
func sdkStream(body []byte) (openai.ChatCompletionAccumulator, error) {
	res := &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"text/event-stream"}}, Body: io.NopCloser(bytes.NewReader(body))}
	s := ssestream.NewStream[openai.ChatCompletionChunk](ssestream.NewDecoder(res), nil)
	var acc openai.ChatCompletionAccumulator
	for s.Next() {
		if !acc.AddChunk(s.Current()) {
			return acc, io.ErrUnexpectedEOF
		}
	}
	return acc, s.Err()
}

func TestStreamAndObjectOfToolCallsAgree(t *testing.T) {
	receipt := json.RawMessage(`{"success":true,"transaction":"0xabc","network":"eip155:84532"}`)
	rec, obj := run(t, toolsBody, func(e *responses.Emitter) {
		_ = e.Text("Let me look.")
		_ = e.StartCall("call_A", "get_weather")
		_ = e.Arguments(`{"city":`)
		_ = e.Arguments(`"Paris"}`)
		_ = e.StartCall("call_B", "get_time")
		e.SetUsage(responses.Usage{InputTokens: 10, CachedTokens: 4, OutputTokens: 7, ReasoningTokens: 2})
		_ = e.Complete(map[string]json.RawMessage{"x402": receipt})
	})
	if got := rec.Header().Get("Content-Type"); got != "text/event-stream" {
		t.Errorf("Content-Type = %q", got)
	}
	cs := chunks(t, rec.Body.Bytes())
	if !bytes.Contains(cs[0], []byte(`"role":"assistant"`)) {
		t.Errorf("first chunk = %s", cs[0])
	}
	last := cs[len(cs)-1]
	if !bytes.Contains(last, []byte(`"choices":[]`)) || !bytes.Contains(last, []byte(`"prompt_tokens":10`)) {
		t.Errorf("usage chunk = %s", last)
	}
	if !bytes.Contains(cs[len(cs)-2], []byte(`"finish_reason":"tool_calls"}],"x402":`)) {
		t.Errorf("finish chunk = %s", cs[len(cs)-2])
	}
	acc, err := sdkStream(rec.Body.Bytes())
	if err != nil {
		t.Fatalf("openai-go stream: %v", err)
	}
	msg := acc.Choices[0].Message
	if msg.Content != "Let me look." || len(msg.ToolCalls) != 2 || acc.Choices[0].FinishReason != "tool_calls" {
		t.Fatalf("accumulated = %+v", acc.ChatCompletion)
	}
	if c := msg.ToolCalls[0]; c.ID != "call_A" || c.Function.Name != "get_weather" || c.Function.Arguments != `{"city":"Paris"}` {
		t.Errorf("call 0 = %+v", c)
	}
	if c := msg.ToolCalls[1]; c.ID != "call_B" || c.Function.Name != "get_time" || c.Function.Arguments != "{}" && c.Function.Arguments != "" {
		t.Errorf("call 1 = %+v", c)
	}
	if acc.Usage.PromptTokens != 10 || acc.Usage.CompletionTokens != 7 || acc.Usage.TotalTokens != 17 {
		t.Errorf("usage = %+v", acc.Usage)
	}

	if err := schemas.ValidateOpenAI("CreateChatCompletionResponse", obj); err != nil {
		t.Fatalf("object: %v\n%s", err, obj)
	}
	var cc openai.ChatCompletion
	if err := json.Unmarshal(obj, &cc); err != nil {
		t.Fatal(err)
	}
	om := cc.Choices[0].Message
	if om.Content != msg.Content || len(om.ToolCalls) != 2 || om.ToolCalls[0].Function.Arguments != `{"city":"Paris"}` || om.ToolCalls[1].ID != "call_B" {
		t.Errorf("object message = %+v", om)
	}
	if cc.Choices[0].FinishReason != "tool_calls" || cc.Usage.PromptTokensDetails.CachedTokens != 4 || cc.Usage.CompletionTokensDetails.ReasoningTokens != 2 {
		t.Errorf("object = %s", obj)
	}
	if cc.ID != acc.ID || cc.Created != acc.Created || cc.Model != "m" {
		t.Errorf("ids: object %s/%d, stream %s/%d", cc.ID, cc.Created, acc.ID, acc.Created)
	}
	if got := cc.JSON.ExtraFields["x402"].Raw(); got != string(receipt) {
		t.Errorf("object x402 = %s", got)
	}
}

func TestFinishReasons(t *testing.T) {
	cases := []struct {
		name   string
		script func(e *responses.Emitter)
		reason string
	}{
		{"text", func(e *responses.Emitter) { _ = e.Text("hi"); _ = e.Complete(nil) }, "stop"},
		{"cut", func(e *responses.Emitter) { _ = e.Text("hi"); e.Incomplete("max_output_tokens"); _ = e.Complete(nil) }, "length"},
		{"refusal", func(e *responses.Emitter) { _ = e.Refusal("I can't."); _ = e.Complete(nil) }, "stop"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rec, obj := run(t, `{"model":"m","stream":true,"messages":[{"role":"user","content":"hi"}]}`, c.script)
			chunks(t, rec.Body.Bytes())
			acc, err := sdkStream(rec.Body.Bytes())
			if err != nil {
				t.Fatal(err)
			}
			if got := acc.Choices[0].FinishReason; got != c.reason {
				t.Errorf("stream finish_reason = %q, want %q", got, c.reason)
			}
			if err := schemas.ValidateOpenAI("CreateChatCompletionResponse", obj); err != nil {
				t.Fatalf("object: %v\n%s", err, obj)
			}
			var cc openai.ChatCompletion
			if err := json.Unmarshal(obj, &cc); err != nil || cc.Choices[0].FinishReason != c.reason {
				t.Errorf("object finish_reason = %q (%v)", cc.Choices[0].FinishReason, err)
			}
			if c.name == "refusal" && (cc.Choices[0].Message.Refusal != "I can't." || acc.Choices[0].Message.Refusal != "I can't.") {
				t.Errorf("refusal: object %q, stream %q", cc.Choices[0].Message.Refusal, acc.Choices[0].Message.Refusal)
			}
		})
	}
}

func TestMidStreamFailureRaisesInTheSDK(t *testing.T) {
	rec, _ := run(t, `{"model":"m","stream":true,"messages":[{"role":"user","content":"hi"}]}`, func(e *responses.Emitter) {
		_ = e.Text("partial")
		_ = e.Fail(&responses.Error{Status: 502, Type: "server_error", Message: "upstream went away"}, nil)
	})
	body := rec.Body.Bytes()
	if !bytes.Contains(body, []byte(`data: {"error":{"message":"upstream went away","type":"server_error"`)) {
		t.Fatalf("stream = %s", body)
	}
	_, err := sdkStream(body)
	if err == nil || !strings.Contains(err.Error(), "upstream went away") {
		t.Fatalf("openai-go raised %v", err)
	}
	if _, err := Object([]byte(`{"status":"failed","error":{"message":"x"}}`)); err == nil {
		t.Error("Object of a failed response succeeded")
	}
}

func TestNothingIsWrittenBeforeTheFirstEvent(t *testing.T) {
	rec := httptest.NewRecorder()
	s := NewStream(rec, StreamOptions{})
	if s.Started() || rec.Body.Len() != 0 || len(rec.Header()) != 0 {
		t.Fatal("the stream wrote before any event")
	}
	if err := s.KeepAlive(); err != nil || !s.Started() || rec.Body.String() != ": keep-alive\n\n" {
		t.Fatalf("keep-alive: %v %q", err, rec.Body.String())
	}
}

func TestErrorBodyIsOpenAIShaped(t *testing.T) {
	b := ErrorBody(responses.Invalid("messages[0].role", "invalid_value", "bad role"))
	if err := schemas.ValidateOpenAI("ErrorResponse", b); err != nil {
		t.Fatalf("%v: %s", err, b)
	}
}

func TestCustomToolCallsInTheObjectAndTheStream(t *testing.T) {
	body := `{"model":"m","stream":true,"messages":[{"role":"user","content":"patch it"}],"tools":[{"type":"custom","custom":{"name":"apply"}}]}`
	rec, obj := run(t, body, func(e *responses.Emitter) {
		_ = e.StartCustomCall("call_C", "apply")
		_ = e.Arguments("*** Begin")
		_ = e.Arguments(" Patch")
		_ = e.Complete(nil)
	})
	if err := schemas.ValidateOpenAI("CreateChatCompletionResponse", obj); err != nil {
		t.Fatalf("object: %v\n%s", err, obj)
	}
	var cc openai.ChatCompletion
	if err := json.Unmarshal(obj, &cc); err != nil {
		t.Fatal(err)
	}
	c := cc.Choices[0].Message.ToolCalls[0]
	if c.Type != "custom" || c.ID != "call_C" || c.Custom.Name != "apply" || c.Custom.Input != "*** Begin Patch" || cc.Choices[0].FinishReason != "tool_calls" {
		t.Errorf("custom call = %+v in %s", c, obj)
	}
	s := rec.Body.String()
	for _, want := range []string{`"tool_calls":[{"index":0,"id":"call_C","type":"custom","custom":{"name":"apply","input":""}}]`, `{"index":0,"custom":{"input":" Patch"}}`} {
		if !strings.Contains(s, want) {
			t.Errorf("stream lacks %s:\n%s", want, s)
		}
	}
}
