package anthropic

import (
	"strings"
	"testing"

	"github.com/farebox/farebox/internal/testkit/fakeanthropic"
	"github.com/farebox/farebox/internal/testkit/upstreamtest"
	"github.com/farebox/farebox/responses"
)

const weatherTools = `[
 {"type":"function","name":"get_weather","description":"Weather for a city","parameters":{"type":"object","properties":{"query":{"type":"string"}}}},
 {"type":"function","name":"get_time","parameters":{"type":"object","properties":{"query":{"type":"string"}}}}]`

func TestTextAnswerAndWhatIsSent(t *testing.T) {
	s := newFake(t, fakeanthropic.Options{APIKey: "sk-ant-operator"})
	m := newModel(t, s, Config{Model: "text", Betas: []string{"context-1m-2025-08-07", "fine-grained-tool-streaming-2025-05-14"}})
	o := run(t, m, `{"model":"claude","instructions":"Be brief.","input":"Hi","user":"client-own-user"}`, responses.ProviderView{SafetyID: "payer-hash-1"})
	if o.err != nil {
		t.Fatal(o.err)
	}
	if got, want := o.final.Get("output.0.content.0.text").Str, fakeanthropic.DefaultText; got != want {
		t.Errorf("text %q, want %q", got, want)
	}
	if got := o.final.Get("status").Str; got != "completed" {
		t.Errorf("status %s", got)
	}
	rec, _ := s.Last()
	h := rec.Header
	if h.Get("X-Api-Key") != "sk-ant-operator" || h.Get("Authorization") != "" || h.Get("Anthropic-Version") != "2023-06-01" ||
		h.Get("Anthropic-Beta") != "context-1m-2025-08-07,fine-grained-tool-streaming-2025-05-14" {
		t.Errorf("headers %v", h)
	}
	body := sent(t, s)
	if body.Get("model").Str != "text" || body.Get("max_tokens").Int() != DefaultMaxTokens || body.Get("system.0.text").Str != "Be brief." ||
		body.Get("messages.0.content.0.text").Str != "Hi" || body.Get("metadata.user_id").Str != "payer-hash-1" {
		t.Errorf("body %s", body.Raw)
	}
	if strings.Contains(body.Raw, "client-own-user") {
		t.Errorf("the client's own user reached the provider: %s", body.Raw)
	}
}

// A tool round trip: Anthropic's tool_use ids are the call ids the client
// sees, and the client's outputs go back as tool_results for those ids in
// one user turn (the fake refuses any other pairing).
func TestToolRoundTripKeepsIDsBothWays(t *testing.T) {
	s := newFake(t, fakeanthropic.Options{})
	m := newModel(t, s, Config{Model: "call"})
	o := run(t, m, `{"model":"claude","input":"Weather and time?","tools":`+weatherTools+`}`, responses.ProviderView{})
	if o.err != nil {
		t.Fatal(o.err)
	}
	calls := o.final.Get(`output.#(type=="function_call")#`).Array()
	if len(calls) != 2 {
		t.Fatalf("calls %s", o.final.Get("output").Raw)
	}
	input := `[{"role":"user","content":"Weather and time?"}`
	for _, c := range calls {
		if !strings.HasPrefix(c.Get("call_id").Str, "toolu_") || c.Get("arguments").Str != `{"query":"`+c.Get("name").Str+` round 1"}` {
			t.Errorf("call %s", c.Raw)
		}
		input += `,` + c.Raw
	}
	for _, c := range calls {
		input += `,{"type":"function_call_output","call_id":"` + c.Get("call_id").Str + `","output":"fine"}`
	}
	o = run(t, m, `{"model":"claude","input":`+input+`],"tools":`+weatherTools+`}`, responses.ProviderView{})
	if o.err != nil {
		t.Fatal(o.err)
	}
	text := o.final.Get("output.0.content.0.text").Str
	body := sent(t, s)
	assistant, results := body.Get("messages.1.content").Array(), body.Get("messages.2.content").Array()
	if len(assistant) != 2 || len(results) != 2 {
		t.Fatalf("turns %s", body.Get("messages").Raw)
	}
	for i, c := range calls {
		id := c.Get("call_id").Str
		if assistant[i].Get("id").Str != id || results[i].Get("tool_use_id").Str != id || !strings.Contains(text, id+" said fine") {
			t.Errorf("call %s: sent %s / %s, answer %q", id, assistant[i].Raw, results[i].Raw, text)
		}
	}
}

func TestParallelToolCallsOffCallsOneTool(t *testing.T) {
	s := newFake(t, fakeanthropic.Options{})
	m := newModel(t, s, Config{Model: "call"})
	o := run(t, m, `{"model":"claude","input":"x","parallel_tool_calls":false,"tools":`+weatherTools+`}`, responses.ProviderView{})
	if o.err != nil {
		t.Fatal(o.err)
	}
	if n := len(o.final.Get(`output.#(type=="function_call")#`).Array()); n != 1 {
		t.Errorf("%d calls, want 1", n)
	}
	if !sent(t, s).Get("tool_choice.disable_parallel_tool_use").Bool() {
		t.Errorf("tool_choice %s", sent(t, s).Get("tool_choice").Raw)
	}
}

// Anthropic's input_tokens excludes the cache: farebox's input counts the
// tokens read from and written to it too, each reported apart.
func TestCacheUsageIsMappedExactly(t *testing.T) {
	s := newFake(t, fakeanthropic.Options{Usage: fakeanthropic.Usage{InputTokens: 30, CacheReadTokens: 1000, CacheWriteTokens: 200, OutputTokens: 12}})
	body := `{"model":"claude","instructions":"Be brief.","input":[{"role":"user","content":"one"},{"role":"assistant","content":"two"},{"role":"user","content":"three"}]}`
	o := run(t, newModel(t, s, Config{Model: "text", Caching: true}), body, responses.ProviderView{})
	if o.err != nil {
		t.Fatal(o.err)
	}
	if got, want := o.usage, (responses.Usage{InputTokens: 1230, CachedTokens: 1000, CacheWriteTokens: 200, OutputTokens: 12}); got != want {
		t.Errorf("usage %+v, want %+v", got, want)
	}
	if u := o.final.Get("usage"); u.Get("input_tokens").Int() != 1230 || u.Get("input_tokens_details.cached_tokens").Int() != 1000 || u.Get("output_tokens").Int() != 12 {
		t.Errorf("response usage %s", u.Raw)
	}
	req := sent(t, s)
	for _, path := range []string{"system.0.cache_control.type", "messages.2.content.0.cache_control.type", "messages.0.content.0.cache_control.type"} {
		if req.Get(path).Str != "ephemeral" {
			t.Errorf("no breakpoint at %s: %s", path, req.Raw)
		}
	}
	if req.Get("messages.1.content.0.cache_control").Exists() {
		t.Errorf("breakpoint on the assistant turn: %s", req.Raw)
	}
	o = run(t, newModel(t, s, Config{Model: "text"}), body, responses.ProviderView{})
	if o.err != nil || strings.Contains(sent(t, s).Raw, "cache_control") || o.usage.InputTokens != 30 || o.usage.CachedTokens != 0 {
		t.Errorf("caching off: %v, usage %+v, body %s", o.err, o.usage, sent(t, s).Raw)
	}
}

func TestStopReasons(t *testing.T) {
	s := newFake(t, fakeanthropic.Options{})
	for _, tc := range []struct{ model, status, reason string }{
		{"stop:end_turn", "completed", ""},
		{"stop:stop_sequence", "completed", ""},
		{"stop:max_tokens", "incomplete", "max_output_tokens"},
		{"stop:model_context_window_exceeded", "incomplete", "max_output_tokens"},
		{"stop:pause_turn", "incomplete", "max_output_tokens"},
		{"stop:refusal", "completed", ""},
	} {
		t.Run(tc.model, func(t *testing.T) {
			o := run(t, newModel(t, s, Config{Model: tc.model}), `{"model":"claude","input":"x"}`, responses.ProviderView{})
			if o.err != nil {
				t.Fatal(o.err)
			}
			if got := o.final.Get("status").Str; got != tc.status {
				t.Errorf("status %s, want %s", got, tc.status)
			}
			if got := o.final.Get("incomplete_details.reason").Str; got != tc.reason {
				t.Errorf("incomplete reason %q, want %q", got, tc.reason)
			}
			refusal := o.final.Get(`output.#.content.#(type=="refusal").refusal`).Array()
			if (tc.model == "stop:refusal") != (len(refusal) == 1 && refusal[0].Str == "The fake declines this request.") {
				t.Errorf("refusal %v in %s", refusal, o.final.Get("output").Raw)
			}
		})
	}
}

// The count is Anthropic's own, for exactly the prompt Respond would send.
func TestCountInputTokensAsksAnthropic(t *testing.T) {
	s := newFake(t, fakeanthropic.Options{Usage: fakeanthropic.Usage{InputTokens: 40, CacheWriteTokens: 2}})
	m := newModel(t, s, Config{Model: "text", Caching: true})
	n, err := m.CountInputTokens(t.Context(), upstreamtest.Parse(t, `{"model":"claude","instructions":"Be brief.","input":"Hi","max_output_tokens":50,"tools":`+weatherTools+`}`))
	if err != nil || n != 42 {
		t.Fatalf("count %d, %v", n, err)
	}
	rec, _ := s.Last()
	if !strings.HasSuffix(rec.Header.Get("X-Api-Key"), "operator") {
		t.Errorf("headers %v", rec.Header)
	}
	body := sent(t, s)
	if body.Get("max_tokens").Exists() || body.Get("system.0.text").Str != "Be brief." || len(body.Get("tools").Array()) != 2 || body.Get("messages.0.content.0.text").Str != "Hi" {
		t.Errorf("count request %s", body.Raw)
	}
}

// A custom tool (free text, like Codex's apply_patch) goes up as a tool
// with one "input" string; its call comes back as a custom call of that
// text, and goes up again, with its output, under the same id.
func TestCustomToolRoundTrip(t *testing.T) {
	s := newFake(t, fakeanthropic.Options{})
	m := newModel(t, s, Config{Model: "call"})
	tools := `[{"type":"custom","name":"apply_patch","description":"Patch files.","format":{"type":"grammar","syntax":"lark","definition":"start: /.+/"}}]`
	o := run(t, m, `{"model":"claude","input":"Patch it.","tools":`+tools+`}`, responses.ProviderView{})
	if o.err != nil {
		t.Fatal(o.err)
	}
	call := o.final.Get("output.0")
	if call.Get("type").Str != "custom_tool_call" || call.Get("name").Str != "apply_patch" || call.Get("input").Str != "apply_patch round 1" {
		t.Fatalf("output %s", o.final.Get("output").Raw)
	}
	if schema := sent(t, s).Get("tools.0.input_schema"); schema.Get("properties.input.type").Str != "string" || !strings.Contains(schema.Raw, "lark") {
		t.Errorf("custom tool sent as %s", schema.Raw)
	}
	id := call.Get("call_id").Str
	input := `[{"role":"user","content":"Patch it."},` + call.Raw + `,{"type":"custom_tool_call_output","call_id":"` + id + `","output":"patched"}]`
	o = run(t, m, `{"model":"claude","input":`+input+`,"tools":`+tools+`}`, responses.ProviderView{})
	if o.err != nil {
		t.Fatal(o.err)
	}
	body := sent(t, s)
	if body.Get("messages.1.content.0.input.input").Str != "apply_patch round 1" || body.Get("messages.2.content.0.tool_use_id").Str != id ||
		!strings.Contains(o.final.Get("output.0.content.0.text").Str, id+" said patched") {
		t.Errorf("sent %s, answer %s", body.Get("messages").Raw, o.final.Get("output").Raw)
	}
}
