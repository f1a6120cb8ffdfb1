package fakeanthropic_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"
	"github.com/farebox/farebox/internal/testkit/fakeanthropic"
)

// The official SDK is the judge of the fake's wire: each scenario runs
// through Messages.New and through Messages.NewStreaming with the SDK's
// own accumulator, which refuses events out of order, and the two must
// agree.

func client(s *fakeanthropic.Server) anthropic.Client {
	return anthropic.NewClient(option.WithBaseURL(s.Origin()), option.WithAPIKey("sk-ant-test"), option.WithMaxRetries(0))
}

// both runs params whole and streamed and returns both messages, failing
// the test when either fails or when they disagree.
func both(t *testing.T, c anthropic.Client, params anthropic.MessageNewParams) (whole, streamed *anthropic.Message) {
	t.Helper()
	whole, err := c.Messages.New(context.Background(), params)
	if err != nil {
		t.Fatalf("Messages.New: %v", err)
	}
	streamed, err = stream(c, params)
	if err != nil {
		t.Fatalf("Messages.NewStreaming: %v", err)
	}
	checkMessage(t, whole)
	checkMessage(t, streamed)
	if whole.StopReason != streamed.StopReason || len(whole.Content) != len(streamed.Content) {
		t.Fatalf("whole %s with %d blocks, streamed %s with %d", whole.StopReason, len(whole.Content), streamed.StopReason, len(streamed.Content))
	}
	for i := range whole.Content {
		w, s := whole.Content[i], streamed.Content[i]
		if w.Type != s.Type || w.Text != s.Text || w.Thinking != s.Thinking || w.Signature != s.Signature ||
			w.Data != s.Data || w.Name != s.Name || string(w.Input) != string(s.Input) {
			t.Errorf("block %d: whole %s, streamed %s", i, w.RawJSON(), s.RawJSON())
		}
	}
	if whole.Usage.InputTokens != streamed.Usage.InputTokens || whole.Usage.OutputTokens != streamed.Usage.OutputTokens ||
		whole.Usage.CacheReadInputTokens != streamed.Usage.CacheReadInputTokens ||
		whole.Usage.CacheCreationInputTokens != streamed.Usage.CacheCreationInputTokens {
		t.Errorf("usage: whole %s, streamed %s", whole.Usage.RawJSON(), streamed.Usage.RawJSON())
	}
	return whole, streamed
}

func stream(c anthropic.Client, params anthropic.MessageNewParams) (*anthropic.Message, error) {
	st := c.Messages.NewStreaming(context.Background(), params)
	defer st.Close()
	msg := &anthropic.Message{}
	for st.Next() {
		if err := msg.Accumulate(st.Current()); err != nil {
			return nil, err
		}
	}
	return msg, st.Err()
}

// checkMessage fails on a message missing a field the API always sends.
func checkMessage(t *testing.T, m *anthropic.Message) {
	t.Helper()
	for name, ok := range map[string]bool{
		"id": m.JSON.ID.Valid(), "model": m.JSON.Model.Valid(), "role": m.JSON.Role.Valid(),
		"stop_reason": m.StopReason != "", "usage": m.JSON.Usage.Valid(),
		"usage.input_tokens": m.Usage.JSON.InputTokens.Valid(), "usage.output_tokens": m.Usage.JSON.OutputTokens.Valid(),
	} {
		if !ok {
			t.Errorf("message without %s: %s", name, m.RawJSON())
		}
	}
	if !strings.HasPrefix(m.ID, "msg_") || m.Type != "message" || m.Role != "assistant" {
		t.Errorf("message id %q type %q role %q", m.ID, m.Type, m.Role)
	}
}

func hello(model string) anthropic.MessageNewParams {
	return anthropic.MessageNewParams{Model: anthropic.Model(model), MaxTokens: 2048,
		Messages: []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("What is the weather in Paris?"))}}
}

func weatherTools() []anthropic.ToolUnionParam {
	schema := anthropic.ToolInputSchemaParam{Properties: map[string]any{"query": map[string]string{"type": "string"}}}
	return []anthropic.ToolUnionParam{
		{OfTool: &anthropic.ToolParam{Name: "get_weather", InputSchema: schema}},
		{OfTool: &anthropic.ToolParam{Name: "get_time", InputSchema: schema}},
	}
}

func TestTextAnswerSpeaksTheWire(t *testing.T) {
	s := fakeanthropic.Start(fakeanthropic.Options{})
	defer s.Close()
	whole, _ := both(t, client(s), hello("text"))
	if got, want := whole.Content[0].Text, fakeanthropic.DefaultText; got != want {
		t.Errorf("text %q, want %q", got, want)
	}
	if whole.StopReason != anthropic.StopReasonEndTurn || whole.Usage.InputTokens != 25 || whole.Usage.OutputTokens != 9 {
		t.Errorf("stop %s usage %s", whole.StopReason, whole.Usage.RawJSON())
	}
}

// A tool round trip through the SDK: both tools called with input streamed
// as input_json_delta, then the results answered with text naming each id.
func TestToolCallsAndResultsPairByID(t *testing.T) {
	s := fakeanthropic.Start(fakeanthropic.Options{})
	defer s.Close()
	c := client(s)
	params := hello("call")
	params.Tools = weatherTools()
	_, streamed := both(t, c, params)
	if streamed.StopReason != anthropic.StopReasonToolUse || len(streamed.Content) != 2 {
		t.Fatalf("stop %s with %d blocks", streamed.StopReason, len(streamed.Content))
	}
	var results []anthropic.ContentBlockParamUnion
	for _, b := range streamed.Content {
		if b.Type != "tool_use" || !strings.HasPrefix(b.ID, "toolu_") || !strings.Contains(string(b.Input), b.Name+" round 1") {
			t.Errorf("block %s", b.RawJSON())
		}
		results = append(results, anthropic.NewToolResultBlock(b.ID, "sunny for "+b.ID, false))
	}
	params.Messages = append(params.Messages, streamed.ToParam(), anthropic.NewUserMessage(results...))
	whole, _ := both(t, c, params)
	for _, b := range streamed.Content {
		if !strings.Contains(whole.Content[0].Text, b.ID+" said sunny for "+b.ID) {
			t.Errorf("answer %q does not quote %s", whole.Content[0].Text, b.ID)
		}
	}
	// A result for an id the assistant never used is refused.
	params.Messages[len(params.Messages)-1] = anthropic.NewUserMessage(anthropic.NewToolResultBlock("toolu_other", "x", false))
	_, err := c.Messages.New(context.Background(), params)
	wantAPIError(t, err, 400, "invalid_request_error", "unexpected `tool_use_id`")
}

// Thinking blocks come signed; sent back intact they are accepted, altered
// or without their signature they are refused as Anthropic refuses them.
func TestThinkingSignaturesAreVerified(t *testing.T) {
	s := fakeanthropic.Start(fakeanthropic.Options{})
	defer s.Close()
	c := client(s)
	params := hello("call+redacted")
	params.Tools = weatherTools()
	params.Thinking = anthropic.ThinkingConfigParamOfEnabled(1024)
	_, streamed := both(t, c, params)
	th := streamed.Content[0]
	if th.Type != "thinking" || th.Thinking == "" || th.Signature != s.Sign(th.Thinking) || streamed.Content[1].Type != "redacted_thinking" {
		t.Fatalf("first blocks %s %s", th.RawJSON(), streamed.Content[1].RawJSON())
	}
	var results []anthropic.ContentBlockParamUnion
	for _, b := range streamed.Content[2:] {
		results = append(results, anthropic.NewToolResultBlock(b.ID, "ok", false))
	}
	turn := func(thinking anthropic.ContentBlockParamUnion) anthropic.MessageNewParams {
		p := params
		blocks := streamed.ToParam().OfAssistant.Content
		assistant := anthropic.NewAssistantMessage(append([]anthropic.ContentBlockParamUnion{thinking}, blocks[1:]...)...)
		p.Messages = append(append([]anthropic.MessageParam{}, params.Messages...), assistant, anthropic.NewUserMessage(results...))
		return p
	}
	if _, err := c.Messages.New(context.Background(), turn(anthropic.NewThinkingBlock(th.Signature, th.Thinking))); err != nil {
		t.Fatalf("intact signature refused: %v", err)
	}
	_, err := c.Messages.New(context.Background(), turn(anthropic.NewThinkingBlock(th.Signature, th.Thinking+" (edited)")))
	wantAPIError(t, err, 400, "invalid_request_error", "Invalid `signature`")
	_, err = c.Messages.New(context.Background(), turn(anthropic.NewThinkingBlock("", th.Thinking)))
	wantAPIError(t, err, 400, "invalid_request_error", "signature")
	_, err = c.Messages.New(context.Background(), turn(anthropic.NewRedactedThinkingBlock("0.forged")))
	wantAPIError(t, err, 400, "invalid_request_error", "Invalid `data`")
	_, err = c.Messages.New(context.Background(), turn(anthropic.NewTextBlock("no thinking")))
	wantAPIError(t, err, 400, "invalid_request_error", "must start with a thinking block")
}

// Cache figures are reported for a request with a breakpoint only.
func TestCacheUsageNeedsABreakpoint(t *testing.T) {
	s := fakeanthropic.Start(fakeanthropic.Options{Usage: fakeanthropic.Usage{InputTokens: 30, CacheReadTokens: 1000, CacheWriteTokens: 200, OutputTokens: 12}})
	defer s.Close()
	c := client(s)
	params := hello("text")
	plain, _ := both(t, c, params)
	if plain.Usage.CacheReadInputTokens != 0 || plain.Usage.CacheCreationInputTokens != 0 {
		t.Errorf("no breakpoint, usage %s", plain.Usage.RawJSON())
	}
	params.System = []anthropic.TextBlockParam{{Text: "You are terse.", CacheControl: anthropic.NewCacheControlEphemeralParam()}}
	cached, _ := both(t, c, params)
	if u := cached.Usage; u.InputTokens != 30 || u.CacheReadInputTokens != 1000 || u.CacheCreationInputTokens != 200 || u.OutputTokens != 12 {
		t.Errorf("with a breakpoint, usage %s", u.RawJSON())
	}
}

func TestFailuresInAnthropicsShape(t *testing.T) {
	s := fakeanthropic.Start(fakeanthropic.Options{})
	defer s.Close()
	c := client(s)
	_, err := c.Messages.New(context.Background(), hello("status:529"))
	wantAPIError(t, err, 529, "overloaded_error", "")
	_, err = c.Messages.New(context.Background(), hello("status:429+retry_after=7"))
	e := wantAPIError(t, err, 429, "rate_limit_error", "")
	if e != nil && e.Response.Header.Get("Retry-After") != "7" {
		t.Errorf("Retry-After %q", e.Response.Header.Get("Retry-After"))
	}
	_, err = stream(c, hello("status:529"))
	wantAPIError(t, err, 529, "overloaded_error", "")
}

// A mid-stream error event ends the SDK's stream with an error after the
// output began.
func TestMidStreamErrorEvent(t *testing.T) {
	s := fakeanthropic.Start(fakeanthropic.Options{})
	defer s.Close()
	c := client(s)
	st := c.Messages.NewStreaming(context.Background(), hello("error_midstream"))
	defer st.Close()
	msg, events := &anthropic.Message{}, 0
	for st.Next() {
		events++
		if err := msg.Accumulate(st.Current()); err != nil {
			t.Fatal(err)
		}
	}
	if st.Err() == nil || !strings.Contains(st.Err().Error(), "overloaded_error") {
		t.Errorf("stream error %v, want the overloaded_error event", st.Err())
	}
	if events < 3 || len(msg.Content) != 1 || msg.Content[0].Text == "" {
		t.Errorf("%d events, content %s: want some text before the error", events, msg.RawJSON())
	}
}

func TestStopReasons(t *testing.T) {
	s := fakeanthropic.Start(fakeanthropic.Options{})
	defer s.Close()
	c := client(s)
	for _, reason := range []anthropic.StopReason{anthropic.StopReasonMaxTokens, anthropic.StopReasonRefusal,
		anthropic.StopReasonPauseTurn, anthropic.StopReasonModelContextWindowExceeded, anthropic.StopReasonStopSequence} {
		whole, _ := both(t, c, hello("stop:"+string(reason)))
		if whole.StopReason != reason {
			t.Errorf("stop %s, want %s", whole.StopReason, reason)
		}
		if reason == anthropic.StopReasonRefusal && whole.StopDetails.Explanation == "" {
			t.Errorf("refusal without an explanation: %s", whole.RawJSON())
		}
	}
}

// The fake refuses what Anthropic refuses: no version header, no max_tokens.
func TestRequestChecks(t *testing.T) {
	s := fakeanthropic.Start(fakeanthropic.Options{APIKey: "sk-ant-test"})
	defer s.Close()
	res, err := http.Post(s.URL()+"/messages", "application/json", strings.NewReader(`{"model":"text","max_tokens":5,"messages":[{"role":"user","content":"hi"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != 401 {
		t.Errorf("no key: %d, want 401", res.StatusCode)
	}
	params := hello("text")
	params.MaxTokens = 0
	c := client(s)
	_, err = c.Messages.New(context.Background(), params)
	wantAPIError(t, err, 400, "invalid_request_error", "max_tokens")
	r, err := s.Last()
	if err != nil || r.Header.Get("Anthropic-Version") == "" || !strings.Contains(string(r.Body), `"max_tokens":0`) {
		t.Errorf("recorded %v %v", r.Header, err)
	}
}

func wantAPIError(t *testing.T, err error, status int, typ, msg string) *anthropic.Error {
	t.Helper()
	var e *anthropic.Error
	if !errors.As(err, &e) {
		t.Errorf("error %v, want an API error %d", err, status)
		return nil
	}
	if e.StatusCode != status || string(e.Type()) != typ || !strings.Contains(e.Message, msg) {
		t.Errorf("error %d %s %q, want %d %s containing %q", e.StatusCode, e.Type(), e.Message, status, typ, msg)
	}
	return e
}

func TestCountTokensSpeaksTheWire(t *testing.T) {
	s := fakeanthropic.Start(fakeanthropic.Options{Usage: fakeanthropic.Usage{InputTokens: 30, CacheReadTokens: 7}})
	defer s.Close()
	c := client(s)
	n, err := c.Messages.CountTokens(context.Background(), anthropic.MessageCountTokensParams{Model: "text",
		Messages: []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("hi"))}})
	if err != nil {
		t.Fatal(err)
	}
	if n.InputTokens != 37 || !n.JSON.InputTokens.Valid() {
		t.Errorf("count %s", n.RawJSON())
	}
	_, err = c.Messages.CountTokens(context.Background(), anthropic.MessageCountTokensParams{Model: "text"})
	wantAPIError(t, err, 400, "invalid_request_error", "messages")
}

// A stalled stream holds until the client leaves, and Done says when.
func TestStallEndsWhenTheClientLeaves(t *testing.T) {
	s := fakeanthropic.Start(fakeanthropic.Options{})
	defer s.Close()
	c := client(s)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	st := c.Messages.NewStreaming(ctx, hello("stall"))
	msg := &anthropic.Message{}
	for st.Next() {
		if err := msg.Accumulate(st.Current()); err != nil {
			t.Fatal(err)
		}
		if st.Current().Type == "content_block_delta" {
			cancel()
		}
	}
	st.Close()
	if len(msg.Content) != 1 || msg.Content[0].Text == "" {
		t.Errorf("content before the stall %s", msg.RawJSON())
	}
	r, err := s.Last()
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-r.Done:
	case <-time.After(5 * time.Second):
		t.Fatal("the stalled request outlived its client")
	}
}
