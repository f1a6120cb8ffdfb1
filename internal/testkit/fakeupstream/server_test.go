package fakeupstream

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/tidwall/gjson"
)

func start(t *testing.T, opts Options) *Server {
	t.Helper()
	s, err := Start(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func post(t *testing.T, s *Server, path, body string) (*http.Response, []byte) {
	t.Helper()
	res, err := http.Post(s.URL()+path, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	data, _ := io.ReadAll(res.Body)
	return res, data
}

// dataLines returns the data payloads of an SSE body.
func dataLines(body []byte) []string {
	var out []string
	for _, line := range strings.Split(string(body), "\n") {
		if d, ok := strings.CutPrefix(line, "data: "); ok {
			out = append(out, d)
		}
	}
	return out
}

func TestFixedTextAnswersBothAPIs(t *testing.T) {
	s := start(t, Options{})
	for i := 0; i < 2; i++ { // the second round is served from the precomputed answer
		_, body := post(t, s, "/responses", `{"model":"m","input":"hi"}`)
		if got := gjson.GetBytes(body, "output.0.content.0.text").Str; got != DefaultText {
			t.Fatalf("responses text = %q", got)
		}
		res, body := post(t, s, "/responses", `{"model":"m","input":"hi","stream":true}`)
		if ct := res.Header.Get("Content-Type"); ct != "text/event-stream" {
			t.Fatalf("content type %q", ct)
		}
		var text strings.Builder
		for _, d := range dataLines(body) {
			if gjson.Get(d, "type").Str == "response.output_text.delta" {
				text.WriteString(gjson.Get(d, "delta").Str)
			}
		}
		if text.String() != DefaultText {
			t.Fatalf("streamed text = %q", text.String())
		}
		_, body = post(t, s, "/chat/completions", `{"model":"m","messages":[{"role":"user","content":"hi"}]}`)
		if got := gjson.GetBytes(body, "choices.0.message.content").Str; got != DefaultText {
			t.Fatalf("chat text = %q", got)
		}
		_, body = post(t, s, "/chat/completions", `{"model":"m","stream":true,"stream_options":{"include_usage":true},"messages":[]}`)
		lines := dataLines(body)
		if lines[len(lines)-1] != "[DONE]" || !gjson.Get(lines[len(lines)-2], "usage.prompt_tokens_details").Exists() {
			t.Fatalf("chat stream tail = %q", lines[len(lines)-2:])
		}
	}
}

func TestEchoAndCallModes(t *testing.T) {
	s := start(t, Options{})
	_, body := post(t, s, "/responses", `{"model":"echo","input":[{"role":"user","content":[{"type":"input_text","text":"ping me"}]}]}`)
	if got := gjson.GetBytes(body, "output.0.content.0.text").Str; got != "ping me" {
		t.Errorf("echo = %q", got)
	}
	_, body = post(t, s, "/chat/completions", `{"model":"call","messages":[{"role":"user","content":"x"}],
		"tools":[{"type":"function","function":{"name":"a"}},{"type":"function","function":{"name":"b"}}]}`)
	if got := gjson.GetBytes(body, "choices.0.message.tool_calls.#.function.name").Raw; got != `["a","b"]` {
		t.Errorf("chat calls = %s", got)
	}
	_, body = post(t, s, "/chat/completions", `{"model":"call","messages":[{"role":"user","content":"x"},
		{"role":"assistant","tool_calls":[{"id":"c1","type":"function","function":{"name":"a","arguments":"{}"}}]},
		{"role":"tool","tool_call_id":"c1","content":"sunny"},
		{"role":"user","content":[{"type":"image_url","image_url":{"url":"data:image/png;base64,AA=="}}]}]}`)
	if got := gjson.GetBytes(body, "choices.0.message.content").Str; got != "Tool results: c1: sunny (+1 image(s))" {
		t.Errorf("tool round trip answer = %q", got)
	}
	_, body = post(t, s, "/responses", `{"model":"call:lookup","input":"x"}`)
	if got := gjson.GetBytes(body, "output.0.name").Str; got != "lookup" {
		t.Errorf("forced call = %q", got)
	}
}

func TestStatusInjection(t *testing.T) {
	s := start(t, Options{})
	res, body := post(t, s, "/responses", `{"model":"status:429+retry_after=7"}`)
	if res.StatusCode != 429 || res.Header.Get("Retry-After") != "7" || gjson.GetBytes(body, "error.code").Str != "rate_limit_exceeded" {
		t.Errorf("429: %d %q %s", res.StatusCode, res.Header.Get("Retry-After"), body)
	}
	res, body = post(t, s, "/chat/completions", `{"model":"status:500+plain"}`)
	if res.StatusCode != 500 || gjson.GetBytes(body, "error").Type != gjson.String {
		t.Errorf("500 plain: %d %s", res.StatusCode, body)
	}
}

func TestFixtureReplayIsByteExact(t *testing.T) {
	s := start(t, Options{})
	names := Fixtures("chat")
	if len(names) < 10 {
		t.Fatalf("chat fixtures: %v", names)
	}
	_, body := post(t, s, "/chat/completions", `{"model":"fixture:whole_call","stream":true}`)
	raw, _ := fixtureFS.ReadFile("fixtures/whole_call.chat.sse")
	var want []byte
	for _, line := range bytes.SplitAfter(raw, []byte("\n")) {
		if !bytes.HasPrefix(line, []byte("#")) {
			want = append(want, line...)
		}
	}
	if !bytes.Equal(bytes.TrimSpace(body), bytes.TrimSpace(want)) {
		t.Errorf("replayed:\n%s\nwant:\n%s", body, want)
	}
	res, _ := post(t, s, "/chat/completions", `{"model":"fixture:nope","stream":true}`)
	if res.StatusCode != 404 {
		t.Errorf("unknown fixture status %d", res.StatusCode)
	}
}

func TestAbortCutsTheConnection(t *testing.T) {
	s := start(t, Options{})
	res, err := http.Post(s.URL()+"/chat/completions", "application/json", strings.NewReader(`{"model":"fixture:mid_stream_failure","stream":true}`))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	if err == nil {
		t.Fatalf("read the whole body without error: %s", body)
	}
	if !strings.Contains(string(body), "Once upon") {
		t.Errorf("frames before the abort missing: %s", body)
	}
}

func TestRecordsNoticeClientDisconnect(t *testing.T) {
	s := start(t, Options{})
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() {
		req, _ := http.NewRequestWithContext(ctx, "POST", s.URL()+"/responses", strings.NewReader(`{"model":"status:timeout"}`))
		res, err := http.DefaultClient.Do(req)
		if err == nil {
			res.Body.Close()
		}
		errc <- err
	}()
	wctx, wcancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer wcancel()
	rec, err := s.WaitRequest(wctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	if rec.Model != "status:timeout" {
		t.Errorf("model %q", rec.Model)
	}
	cancel()
	<-errc
	select {
	case <-rec.Done():
	case <-wctx.Done():
		t.Fatal("the server never noticed the client left")
	}
	if !rec.Canceled() {
		t.Error("record not marked canceled")
	}
}

func TestStallHoldsTheLastFrameUntilTheClientLeaves(t *testing.T) {
	s := start(t, Options{})
	fixturesOnce.Do(loadFixtures)
	frames := fixtures["text.chat"].frames
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "POST", s.URL()+"/chat/completions",
		strings.NewReader(`{"model":"fixture:text+stall","stream":true,"messages":[{"role":"user","content":"hi"}]}`))
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	// Every frame but the last arrives; reading them is the proof they were sent.
	want := bytes.Join(frames[:len(frames)-1], nil)
	got := make([]byte, len(want))
	if _, err := io.ReadFull(res.Body, got); err != nil || !bytes.Equal(got, want) {
		t.Fatalf("read %q, %v; want every frame but the last", got, err)
	}
	rec := s.Records()[0]
	select {
	case <-rec.Done():
		t.Fatal("the request ended before the client left")
	default:
	}
	cancel()
	select {
	case <-rec.Done():
	case <-time.After(10 * time.Second): // a guard against a hang, not a measurement
		t.Fatal("the server never noticed the client left")
	}
	if !rec.Canceled() {
		t.Error("a stalled request ended without its client leaving")
	}
}

// BenchmarkFixedText measures the zero-delay arm's floor: a round trip to
// the precomputed fixed answer over loopback HTTP.
func BenchmarkFixedText(b *testing.B) {
	s, err := Start(Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	for _, bc := range []struct{ name, path, body string }{
		{"responses_stream", "/responses", `{"model":"bench","input":"hi","stream":true}`},
		{"chat_json", "/chat/completions", `{"model":"bench","messages":[{"role":"user","content":"hi"}]}`},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				res, err := http.Post(s.URL()+bc.path, "application/json", strings.NewReader(bc.body))
				if err != nil {
					b.Fatal(err)
				}
				io.Copy(io.Discard, res.Body)
				res.Body.Close()
			}
		})
	}
}

// "reason" streams as a reasoning model does: a reasoning item with two
// summary parts and, when include asks, encrypted_content; custom tools
// called with free-text input deltas; reasoning tokens in usage.
func TestReasonModeStreamsReasoningAndCustomCalls(t *testing.T) {
	s := start(t, Options{})
	_, body := post(t, s, "/responses", `{"model":"reason","stream":true,"include":["reasoning.encrypted_content"],"input":"x",
		"tools":[{"type":"custom","name":"apply_patch"},{"type":"function","name":"f"}]}`)
	text := string(body)
	for _, want := range []string{"response.reasoning_summary_part.added", "response.reasoning_summary_text.delta",
		`"encrypted_content":"enc:`, "response.custom_tool_call_input.delta", `"reasoning_tokens":5`, `"type":"function_call"`} {
		if !strings.Contains(text, want) {
			t.Errorf("no %s in\n%s", want, text)
		}
	}
	_, body = post(t, s, "/responses", `{"model":"reason","stream":true,"input":"x"}`)
	if strings.Contains(string(body), "encrypted_content") {
		t.Errorf("encrypted_content without include")
	}
}
