package anthropic

import (
	"strings"
	"testing"

	"github.com/farebox/farebox/internal/testkit/upstreamtest"
	"github.com/farebox/farebox/responses"
	"github.com/tidwall/gjson"
)

func built(t *testing.T, cfg Config, body string) gjson.Result {
	t.Helper()
	b, err := build(upstreamtest.Parse(t, body), &cfg)
	if err != nil {
		t.Fatal(err)
	}
	return gjson.ParseBytes(b)
}

func TestToolChoiceMapping(t *testing.T) {
	for _, tc := range []struct{ choice, want string }{
		{`"auto"`, `{"type":"auto"}`},
		{`"required"`, `{"type":"any"}`},
		{`"none"`, `{"type":"none"}`},
		{`{"type":"function","name":"get_time"}`, `{"type":"tool","name":"get_time"}`},
		{`{"type":"allowed_tools","mode":"required","tools":[{"type":"function","name":"get_weather"}]}`, `{"type":"any"}`},
	} {
		got := built(t, Config{}, `{"model":"m","input":"x","tools":`+weatherTools+`,"tool_choice":`+tc.choice+`}`)
		if got.Get("tool_choice").Raw != tc.want {
			t.Errorf("tool_choice %s sent as %s, want %s", tc.choice, got.Get("tool_choice").Raw, tc.want)
		}
		if n := len(got.Get("tools").Array()); strings.Contains(tc.choice, "allowed_tools") != (n == 1) {
			t.Errorf("tool_choice %s: %d tools sent", tc.choice, n)
		}
		if got.Get("tools.0.input_schema.type").Str != "object" || got.Get("tools.0.description").Str == "" && got.Get("tools.0.name").Str == "get_weather" {
			t.Errorf("tools %s", got.Get("tools").Raw)
		}
	}
}

func TestMessagesFromItems(t *testing.T) {
	got := built(t, Config{Model: "claude-x"}, `{"model":"m","input":[
		{"role":"developer","content":"Rules."},
		{"role":"user","content":[{"type":"input_text","text":"See"},{"type":"input_image","image_url":"data:image/png;base64,AAAA"},
			{"type":"input_image","image_url":"https://example.com/a.png"},{"type":"input_file","file_data":"data:application/pdf;base64,JVBE","filename":"a.pdf"}]},
		{"type":"message","role":"assistant","content":[{"type":"output_text","text":"Calling.","annotations":[]}]},
		{"type":"function_call","call_id":"toolu_1","name":"get_weather","arguments":"{\"query\":\"a\"}"},
		{"type":"function_call","call_id":"toolu_2","name":"get_time","arguments":""},
		{"type":"function_call_output","call_id":"toolu_1","output":"one"},
		{"type":"function_call_output","call_id":"toolu_2","output":[{"type":"input_text","text":"two"}]},
		{"role":"user","content":"thanks"}]}`)
	want := map[string]string{
		"model": "claude-x", "system.0.text": "Rules.",
		"messages.0.content.1.source.type": "base64", "messages.0.content.1.source.media_type": "image/png",
		"messages.0.content.2.source.url": "https://example.com/a.png", "messages.0.content.3.type": "document",
		"messages.1.role": "assistant", "messages.1.content.0.text": "Calling.",
		"messages.1.content.1.id": "toolu_1", "messages.1.content.2.id": "toolu_2", "messages.1.content.2.input": "{}",
		"messages.2.role": "user", "messages.2.content.0.tool_use_id": "toolu_1", "messages.2.content.0.content": "one",
		"messages.2.content.1.tool_use_id": "toolu_2", "messages.2.content.1.content.0.text": "two",
		"messages.2.content.2.text": "thanks",
	}
	for path, v := range want {
		if r := got.Get(path); r.String() != v {
			t.Errorf("%s = %s, want %s", path, r.Raw, v)
		}
	}
	if n := len(got.Get("messages").Array()); n != 3 {
		t.Errorf("%d turns: %s", n, got.Get("messages").Raw)
	}
}

func TestThinkingFromEffort(t *testing.T) {
	body := func(effort, extra string) string {
		return `{"model":"m","input":"x","temperature":0.3,"reasoning":{"effort":"` + effort + `"}` + extra + `}`
	}
	enabled := Config{Thinking: Thinking{Mode: ThinkingEnabled, Budgets: map[string]int64{"high": 5000}}}
	if got := built(t, enabled, body("high", "")); got.Get("thinking").Raw != `{"type":"enabled","budget_tokens":5000}` || got.Get("temperature").Exists() {
		t.Errorf("enabled: %s", got.Raw)
	}
	if got := built(t, enabled, body("medium", `,"max_output_tokens":3000`)); got.Get("thinking.budget_tokens").Int() != 2999 || got.Get("max_tokens").Int() != 3000 {
		t.Errorf("budget beyond max_tokens: %s", got.Raw)
	}
	if got := built(t, enabled, body("medium", `,"max_output_tokens":1000`)); got.Get("thinking").Exists() {
		t.Errorf("no room to think, yet thinking: %s", got.Raw)
	}
	if got := built(t, enabled, body("none", "")); got.Get("thinking").Exists() || got.Get("temperature").Float() != 0.3 {
		t.Errorf("effort none: %s", got.Raw)
	}
	if got := built(t, enabled, body("high", `,"tools":`+weatherTools+`,"tool_choice":"required"`)); got.Get("thinking").Exists() {
		t.Errorf("forced tool choice with thinking: %s", got.Raw)
	}
	adaptive := Config{Thinking: Thinking{Mode: ThinkingAdaptive}}
	if got := built(t, adaptive, body("xhigh", "")); got.Get("thinking").Raw != `{"type":"adaptive"}` || got.Get("output_config.effort").Str != "xhigh" {
		t.Errorf("adaptive: %s", got.Raw)
	}
	if got := built(t, Config{}, body("high", "")); got.Get("thinking").Exists() {
		t.Errorf("thinking off, yet sent: %s", got.Raw)
	}
}

func TestMaxTokensDefaultAndLimit(t *testing.T) {
	cfg := Config{MaxTokens: MaxTokens{Default: 1000, Limit: 4000}}
	if got := built(t, cfg, `{"model":"m","input":"x"}`).Get("max_tokens").Int(); got != 1000 {
		t.Errorf("default %d", got)
	}
	if got := built(t, cfg, `{"model":"m","input":"x","max_output_tokens":9000}`).Get("max_tokens").Int(); got != 4000 {
		t.Errorf("limit %d", got)
	}
}

func TestStructuredOutputNeedsTheModelsSupport(t *testing.T) {
	body := `{"model":"m","input":"x","text":{"format":{"type":"json_schema","name":"r","schema":{"type":"object","properties":{"a":{"type":"string"}}}}}}`
	_, err := build(upstreamtest.Parse(t, body), &Config{})
	if e := asError(t, err); e.Status != 400 || e.Param != "text.format" {
		t.Errorf("%d %s %q", e.Status, e.Param, e.Message)
	}
	got := built(t, Config{StructuredOutput: true}, body)
	if got.Get("output_config.format.type").Str != "json_schema" || got.Get("output_config.format.schema.properties.a.type").Str != "string" {
		t.Errorf("output_config %s", got.Get("output_config").Raw)
	}
}

func TestUnsupportedInputIsTheClientsError(t *testing.T) {
	for _, body := range []string{
		`{"model":"m","input":"x","tools":[{"type":"local_shell"}]}`,
		`{"model":"m","input":[{"role":"user","content":"x"},{"type":"function_call","call_id":"c","name":"f","arguments":"[1]"},{"type":"function_call_output","call_id":"c","output":"x"}]}`,
	} {
		_, err := build(upstreamtest.Parse(t, body), &Config{})
		var e *responses.Error
		if e = asError(t, err); e.Status != 400 || e.Type != "invalid_request_error" {
			t.Errorf("%s: %d %s", body, e.Status, e.Type)
		}
	}
}

// encrypted_content of another provider's reasoning is left out; ours
// comes back as the block it was.
func TestReasoningItemsComeBackAsTheirBlocks(t *testing.T) {
	got := built(t, Config{}, `{"model":"m","input":[{"role":"user","content":"x"},
		{"type":"reasoning","summary":[{"type":"summary_text","text":"Plan."}],"encrypted_content":"gAAAA-openai"},
		{"type":"reasoning","summary":[{"type":"summary_text","text":"Mine."}],"encrypted_content":"anthropic.thinking:c2ln+/="},
		{"type":"reasoning","summary":[],"encrypted_content":"anthropic.redacted:ZGF0YQ=="},
		{"type":"message","role":"assistant","content":[{"type":"output_text","text":"ok","annotations":[]}]}]}`)
	if got.Get("messages.1.content").Raw != `[{"type":"thinking","thinking":"Mine.","signature":"c2ln+/="},{"type":"redacted_thinking","data":"ZGF0YQ=="},{"type":"text","text":"ok"}]` {
		t.Errorf("assistant turn %s", got.Get("messages.1.content").Raw)
	}
}

func TestTemperatureWithinAnthropicsRange(t *testing.T) {
	if got := built(t, Config{}, `{"model":"m","input":"x","temperature":1.7}`).Get("temperature").Raw; got != "1" {
		t.Errorf("temperature 1.7 sent as %s", got)
	}
	if got := built(t, Config{}, `{"model":"m","input":"x","temperature":0.2,"top_p":0.9}`); got.Get("temperature").Float() != 0.2 || got.Get("top_p").Float() != 0.9 {
		t.Errorf("sampling sent as %s", got.Raw)
	}
}
