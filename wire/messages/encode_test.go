package messages

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/packages/pagination"
	"github.com/anthropics/anthropic-sdk-go/v2/packages/ssestream"
	"github.com/farebox/farebox/responses"
)

const thinkingBody = `{"model":"claude-x","max_tokens":1024,"stream":true,"thinking":{"type":"adaptive"},
	"messages":[{"role":"user","content":"weather in Paris?"}],
	"tools":[{"name":"get_weather","input_schema":{"type":"object","properties":{"city":{"type":"string"}}}}]}`

// play decodes body, plays script on an emitter whose sink is an Anthropic
// stream, and returns the stream's bytes and the message object.
func play(t *testing.T, body string, script func(e *responses.Emitter)) ([]byte, []byte) {
	t.Helper()
	req, err := Decode([]byte(body), responses.HostedDrop)
	if err != nil {
		t.Fatalf("Decode: %v", err)
	}
	rec := httptest.NewRecorder()
	n := 0
	ids := func(prefix string) string { n++; return prefix + strings.Repeat("x", n) }
	now := func() time.Time { return time.Unix(1749761642, 0) }
	e := responses.NewEmitter(req, NewStream(rec), responses.EmitterOptions{Model: "claude-x", Now: now, IDs: ids})
	script(e)
	if got := rec.Header().Get("Content-Type"); got != "text/event-stream" {
		t.Errorf("Content-Type = %q", got)
	}
	obj, oerr := Object(e.Response())
	if oerr != nil && e.Status() != "failed" {
		t.Fatalf("Object: %v", oerr)
	}
	return rec.Body.Bytes(), obj
}

// accumulate reads the stream with the official SDK's SSE stream into its
// accumulator, so a malformed or misordered event fails.
func accumulate(t *testing.T, body []byte) (anthropic.Message, []string, error) {
	t.Helper()
	res := &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"text/event-stream"}}, Body: io.NopCloser(bytes.NewReader(body))}
	s := ssestream.NewStream[anthropic.MessageStreamEventUnion](ssestream.NewDecoder(res), nil)
	var msg anthropic.Message
	var types []string
	for s.Next() {
		ev := s.Current()
		types = append(types, ev.Type)
		if err := msg.Accumulate(ev); err != nil {
			t.Fatalf("Accumulate(%s): %v", ev.Type, err)
		}
	}
	return msg, types, s.Err()
}

func TestStreamAndObjectAgreeWithThinkingTextAndToolUse(t *testing.T) {
	receipt := json.RawMessage(`{"success":true,"transaction":"0xabc","network":"eip155:84532"}`)
	stream, obj := play(t, thinkingBody, func(e *responses.Emitter) {
		_ = e.StartReasoning()
		_ = e.ReasoningSummary(0, "Paris: ")
		_ = e.ReasoningSummary(0, "call the tool.")
		_ = e.ReasoningEncrypted("anthropic.thinking:SIG+/=")
		_ = e.Text("Checking.")
		_ = e.StartCall("toolu_1", "get_weather")
		_ = e.Arguments(`{"city":`)
		_ = e.Arguments(`"Paris"}`)
		e.SetUsage(responses.Usage{InputTokens: 100, CachedTokens: 60, CacheWriteTokens: 10, OutputTokens: 20})
		_ = e.Complete(map[string]json.RawMessage{"x402": receipt})
	})
	msg, types, err := accumulate(t, stream)
	if err != nil {
		t.Fatalf("stream: %v", err)
	}
	want := "message_start content_block_start content_block_delta content_block_delta content_block_delta content_block_stop content_block_start content_block_delta content_block_stop content_block_start content_block_delta content_block_delta content_block_stop message_delta message_stop"
	if got := strings.Join(types, " "); got != want {
		t.Errorf("events:\n%s\nwant\n%s", got, want)
	}
	var om anthropic.Message
	if err := json.Unmarshal(obj, &om); err != nil {
		t.Fatal(err)
	}
	for name, m := range map[string]anthropic.Message{"stream": msg, "object": om} {
		if len(m.Content) != 3 {
			t.Fatalf("%s content = %+v", name, m.Content)
		}
		th, tx, tu := m.Content[0], m.Content[1], m.Content[2]
		if th.Type != "thinking" || th.Thinking != "Paris: call the tool." || th.Signature != "SIG+/=" {
			t.Errorf("%s thinking = %+v", name, th)
		}
		if tx.Type != "text" || tx.Text != "Checking." {
			t.Errorf("%s text = %+v", name, tx)
		}
		if tu.Type != "tool_use" || tu.ID != "toolu_1" || tu.Name != "get_weather" || string(tu.Input) != `{"city":"Paris"}` {
			t.Errorf("%s tool_use = %+v input %s", name, tu, tu.Input)
		}
		if m.StopReason != "tool_use" || m.ID != "msg_x" || m.Model != "claude-x" {
			t.Errorf("%s stop %q id %q model %q", name, m.StopReason, m.ID, m.Model)
		}
		if u := m.Usage; u.InputTokens != 30 || u.CacheReadInputTokens != 60 || u.CacheCreationInputTokens != 10 || u.OutputTokens != 20 {
			t.Errorf("%s usage = %+v", name, u)
		}
	}
	if got := om.JSON.ExtraFields["x402"].Raw(); got != string(receipt) {
		t.Errorf("object x402 = %s", got)
	}
	if !bytes.Contains(stream, []byte(`,"x402":{"success":true`)) {
		t.Errorf("the stream carries no receipt")
	}
}

// TestThinkingTravelsBackByteForByte holds the encrypted_content encoding:
// what a client got as a thinking or redacted_thinking block, sent back,
// is the reasoning item's encrypted content again.
func TestThinkingTravelsBackByteForByte(t *testing.T) {
	for _, enc := range []string{"anthropic.thinking:EqQBCkYI", "anthropic.redacted:EmwKAhgB", "gAAAAABresponses-upstream=="} {
		_, obj := play(t, thinkingBody, func(e *responses.Emitter) {
			_ = e.StartReasoning()
			_ = e.ReasoningEncrypted(enc)
			_ = e.Text("ok")
			_ = e.Complete(nil)
		})
		var m struct {
			Content []json.RawMessage `json:"content"`
		}
		if err := json.Unmarshal(obj, &m); err != nil {
			t.Fatal(err)
		}
		next := `{"model":"claude-x","max_tokens":1024,"messages":[{"role":"user","content":"hi"},{"role":"assistant","content":[` +
			string(m.Content[0]) + `,{"type":"text","text":"ok"}]},{"role":"user","content":"again"}]}`
		req, err := Decode([]byte(next), responses.HostedDrop)
		if err != nil {
			t.Fatalf("%s: %v", enc, err)
		}
		if got := req.Input[1].EncryptedContent; got != enc {
			t.Errorf("sent %q, came back %q (block %s)", enc, got, m.Content[0])
		}
	}
}

func TestStopReasons(t *testing.T) {
	cases := []struct {
		name, reason string
		script       func(e *responses.Emitter)
	}{
		{"end_turn", "end_turn", func(e *responses.Emitter) { _ = e.Text("hi"); _ = e.Complete(nil) }},
		{"max_tokens", "max_tokens", func(e *responses.Emitter) { _ = e.Text("hi"); e.Incomplete("max_output_tokens"); _ = e.Complete(nil) }},
		{"refusal", "refusal", func(e *responses.Emitter) { _ = e.Refusal("No."); _ = e.Complete(nil) }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			stream, obj := play(t, `{"model":"claude-x","max_tokens":100,"messages":[{"role":"user","content":"hi"}]}`, c.script)
			msg, _, err := accumulate(t, stream)
			if err != nil {
				t.Fatal(err)
			}
			var om anthropic.Message
			if err := json.Unmarshal(obj, &om); err != nil {
				t.Fatal(err)
			}
			if msg.StopReason != anthropic.StopReason(c.reason) || om.StopReason != anthropic.StopReason(c.reason) {
				t.Errorf("stop_reason: stream %q object %q, want %q", msg.StopReason, om.StopReason, c.reason)
			}
		})
	}
}

func TestMidStreamFailureAndPingsInTheSDK(t *testing.T) {
	rec := httptest.NewRecorder()
	s := NewStream(rec)
	if s.Started() {
		t.Fatal("started before any event")
	}
	req, _ := Decode([]byte(`{"model":"m","max_tokens":100,"messages":[{"role":"user","content":"hi"}]}`), responses.HostedDrop)
	e := responses.NewEmitter(req, s, responses.EmitterOptions{Model: "m"})
	_ = e.Text("partial")
	if err := s.Ping(); err != nil {
		t.Fatal(err)
	}
	_ = e.Fail(&responses.Error{Status: 502, Type: "server_error", Message: "upstream went away"}, nil)
	_, _, err := accumulate(t, rec.Body.Bytes())
	if err == nil || !strings.Contains(err.Error(), "upstream went away") {
		t.Fatalf("the SDK raised %v\n%s", err, rec.Body.Bytes())
	}
	if !bytes.Contains(rec.Body.Bytes(), []byte("event: ping\ndata: {\"type\":\"ping\"}\n\n")) {
		t.Error("no ping frame")
	}
}

func TestErrorBodiesInAnthropicsShape(t *testing.T) {
	cases := map[int]string{400: "invalid_request_error", 401: "authentication_error", 402: "billing_error", 404: "not_found_error",
		409: "invalid_request_error", 413: "request_too_large", 429: "rate_limit_error", 500: "api_error", 502: "api_error", 503: "overloaded_error", 529: "overloaded_error"}
	for status, typ := range cases {
		got, body := ErrorBody(&responses.Error{Status: status, Message: "m"})
		var e struct {
			Type  string `json:"type"`
			Error struct{ Type, Message string }
		}
		if err := json.Unmarshal(body, &e); err != nil || got != status || e.Type != "error" || e.Error.Type != typ || e.Error.Message != "m" {
			t.Errorf("%d: status %d body %s", status, got, body)
		}
	}
	if _, body := ErrorBody(responses.Invalid("x", "c", "bad")); !json.Valid(body) {
		t.Errorf("invalid body %s", body)
	}
}

func TestCountTokensAndModelsReadByTheSDK(t *testing.T) {
	var n anthropic.MessageTokensCount
	if err := json.Unmarshal(CountTokens(42), &n); err != nil || n.InputTokens != 42 {
		t.Errorf("count = %+v %v", n, err)
	}
	created := time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC)
	var page pagination.Page[anthropic.ModelInfo]
	if err := json.Unmarshal(Models([]Model{{ID: "a", Created: created}, {ID: "b", Created: created}}), &page); err != nil {
		t.Fatal(err)
	}
	if len(page.Data) != 2 || page.Data[0].ID != "a" || page.Data[0].DisplayName != "a" || !page.Data[1].CreatedAt.Equal(created) || page.HasMore || page.FirstID != "a" || page.LastID != "b" {
		t.Errorf("page = %+v", page)
	}
	if err := json.Unmarshal(Models(nil), &page); err != nil || len(page.Data) != 0 {
		t.Errorf("empty page: %v %+v", err, page)
	}
}

// An uncited text block carries no citations key, as Anthropic's own: the
// Vercel AI SDK's Anthropic provider refuses citations: null.
func TestTextBlockHasNoNullCitations(t *testing.T) {
	_, obj := play(t, `{"model":"claude-x","max_tokens":100,"messages":[{"role":"user","content":"hi"}]}`,
		func(e *responses.Emitter) { _ = e.Text("hi"); _ = e.Complete(nil) })
	if strings.Contains(string(obj), "citations") {
		t.Errorf("object = %s, want no citations key", obj)
	}
}
