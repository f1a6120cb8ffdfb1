package openai

import (
	"bytes"
	"encoding/json"
	"flag"
	"path/filepath"
	"strings"
	"testing"

	"github.com/farebox/farebox/internal/testkit/fakeupstream"
	"github.com/farebox/farebox/internal/testkit/upstreamtest"
	"github.com/tidwall/gjson"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata")

const tools = `[
 {"type":"function","name":"get_weather","description":"Weather for a city","parameters":{"type":"object","properties":{"city":{"type":"string"}},"required":["city"],"additionalProperties":false},"strict":true},
 {"type":"function","function":{"name":"get_time","parameters":{"type":"object","properties":{"zone":{"type":"string"}}}}}]`

var requestShapes = []struct{ name, model, body string }{
	{"string_input", "", `{"model":"client-model","input":"Hello","instructions":"Be brief."}`},
	{"upstream_model_and_settings", "gpt-4.1-mini", `{"model":"client-model","input":"Hello","max_output_tokens":100,
		"temperature":0.5,"top_p":0.8,"truncation":"auto","reasoning":{"effort":"low","summary":"auto"},
		"text":{"format":{"type":"json_object"},"verbosity":"low"},
		"metadata":{"k":"v"},"user":"u1","prompt_cache_key":"pk","service_tier":"flex","store":true,"include":["reasoning.encrypted_content"]}`},
	{"tool_round_trip_with_image", "", `{"model":"m","tools":` + tools + `,"parallel_tool_calls":false,"input":[
		{"role":"user","content":[{"type":"input_text","text":"Screenshot?"},{"type":"input_image","image_url":"https://x/a.png","detail":"low"}]},
		{"type":"reasoning","id":"rs_1","summary":[]},
		{"type":"message","role":"assistant","content":[{"type":"output_text","text":"Sure.","annotations":[]}]},
		{"type":"function_call","call_id":"call_A","name":"get_weather","arguments":"{\"city\":\"Paris\"}"},
		{"type":"function_call_output","call_id":"call_A","output":[{"type":"input_text","text":"see"},{"type":"input_image","image_url":"data:image/png;base64,AA=="}]}]}`},
	{"tool_choice_function", "", `{"model":"m","input":"x","tools":` + tools + `,"tool_choice":{"type":"function","name":"get_time"}}`},
	{"tool_choice_allowed", "", `{"model":"m","input":"x","tools":` + tools + `,"tool_choice":{"type":"allowed_tools","mode":"required","tools":[{"type":"function","name":"get_weather"}]}}`},
	{"tool_choice_none", "", `{"model":"m","input":"x","tools":` + tools + `,"tool_choice":"none"}`},
	{"codex_tools_and_fields", "", `{"model":"m","stream":true,"store":false,"include":["reasoning.encrypted_content"],
		"reasoning":{"summary":"auto"},"prompt_cache_key":"k","client_metadata":{"session_id":"s"},"safety_identifier":"h",
		"top_logprobs":2,"prompt":{"id":"pmpt_1"},"text":{"verbosity":"low"},"service_tier":"flex",
		"context_management":[{"type":"compaction","compact_threshold":1000}],
		"tools":[{"type":"function","name":"exec_command","parameters":{"type":"object","properties":{}}},
			{"type":"namespace","name":"agents","description":"Sub-agents.","tools":[{"type":"function","name":"spawn","strict":false}]},
			{"type":"custom","name":"apply_patch","format":{"type":"grammar","syntax":"lark","definition":"start: /.+/"}},
			{"type":"shell"},{"type":"web_search","external_web_access":false},{"type":"mcp","server_label":"x","server_url":"https://x"},
			{"type":"shell","environment":{"type":"container_auto"}}],
		"input":[{"role":"user","content":"go"},
			{"type":"reasoning","id":"rs_9","summary":[{"type":"summary_text","text":"Plan."}],"content":null,"encrypted_content":"gAAAA"},
			{"type":"function_call","call_id":"c1","name":"spawn","namespace":"agents","arguments":"{}"},
			{"type":"function_call_output","call_id":"c1","output":"ok"},
			{"type":"custom_tool_call","call_id":"c2","name":"apply_patch","input":"*** Begin Patch"},
			{"type":"custom_tool_call_output","call_id":"c2","output":"Done"},
			{"type":"shell_call","call_id":"c3","action":{"commands":["ls"]},"status":"completed"},
			{"type":"shell_call_output","call_id":"c3","output":[{"stdout":"a","stderr":"","outcome":{"type":"exit","exit_code":0}}]}]}`},
}

func TestRequestIsCanonical(t *testing.T) {
	for _, tc := range requestShapes {
		t.Run(tc.name, func(t *testing.T) {
			got, err := build(upstreamtest.Parse(t, tc.body), tc.model)
			if err != nil {
				t.Fatal(err)
			}
			for _, key := range []string{"previous_response_id", "prompt", "context_management"} {
				if gjson.GetBytes(got, key).Exists() {
					t.Errorf("%s forwarded upstream", key)
				}
			}
			if !gjson.GetBytes(got, "stream").Bool() || gjson.GetBytes(got, "store").Bool() {
				t.Errorf("stream/store wrong: %s", got)
			}
			gjson.GetBytes(got, "input").ForEach(func(_, it gjson.Result) bool {
				if it.Get("type").Str == "reasoning" && (it.Get("encrypted_content").Str == "" || it.Get("id").Exists()) {
					t.Errorf("reasoning item forwarded without encrypted_content or with an id: %s", it.Raw)
				}
				return true
			})
			for _, hosted := range []string{"web_search", `"mcp"`, "container_auto"} {
				if strings.Contains(string(got), hosted) {
					t.Errorf("provider-executed tool %s forwarded: %s", hosted, got)
				}
			}
			var pretty bytes.Buffer
			json.Indent(&pretty, got, "", "  ")
			pretty.WriteByte('\n')
			upstreamtest.Golden(t, filepath.Join("testdata", "requests", tc.name+".json"), pretty.Bytes(), *update)
		})
	}
}

// wantOutput is what each fixture must come out as, whatever its golden
// file says: the final output items in order, as "type detail".
var wantOutput = map[string][]string{
	"text":               {"message Hello, world!"},
	"parallel_calls":     {`function_call call_w1 get_weather {"city": "Paris"}`, `function_call call_w2 get_weather {"city": "Tokyo"}`},
	"hosted_items":       {"reasoning", "message It is sunny."},
	"args_done_only":     {`function_call call_d1 get_weather {"city":"Paris"}`},
	"incomplete":         {"message The quick brown fox"},
	"error_event":        {"message Partial answer"},
	"mid_stream_failure": {"message Once upon a time"},
	"failed_mid_stream":  {"message Half an answer"},
	"refusal":            {"message refusal: I can't help with that."},
}

// An upstream's response.failed after some output reaches the client as
// response.failed with the spec's server_error, the upstream's own words
// (its address and secrets removed) and the usage it reported.
func TestUpstreamFailureMidStreamKeepsWordsAndUsage(t *testing.T) {
	up, err := fakeupstream.Start(fakeupstream.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer up.Close()
	m, err := New(Config{BaseURL: up.URL(), Model: "fixture:failed_mid_stream"})
	if err != nil {
		t.Fatal(err)
	}
	_, _, final := upstreamtest.Transcript(t, m, upstreamtest.GoldenRequest)
	if got := gjson.GetBytes(final, "status").Str; got != "failed" {
		t.Fatalf("status %q, want failed", got)
	}
	if got := gjson.GetBytes(final, "error.code").Str; got != "server_error" {
		t.Errorf("error.code %q, want server_error", got)
	}
	msg := gjson.GetBytes(final, "error.message").Str
	if !strings.Contains(msg, "upstream failed mid-stream") || strings.Contains(msg, "10.0.0.7") {
		t.Errorf("error.message %q: want the upstream's words without its address", msg)
	}
	if got := gjson.GetBytes(final, "usage.output_tokens").Int(); got != 7 {
		t.Errorf("usage.output_tokens %d, want the 7 the upstream reported", got)
	}
}

func TestFixturesGolden(t *testing.T) {
	upstreamtest.FixturesGolden(t, "responses", newModel, *update, func(t *testing.T, name, _ string, final []byte) {
		checkOutput(t, name, final)
	})
}

func checkOutput(t *testing.T, name string, final []byte) {
	t.Helper()
	want, ok := wantOutput[name]
	if !ok {
		t.Fatalf("fixture %s has no expected output in wantOutput", name)
	}
	var got []string
	gjson.GetBytes(final, "output").ForEach(func(_, it gjson.Result) bool {
		switch it.Get("type").Str {
		case "message":
			if p := it.Get("content.0"); p.Get("type").Str == "refusal" {
				got = append(got, "message refusal: "+p.Get("refusal").Str)
				break
			}
			got = append(got, "message "+it.Get("content.0.text").Str)
		case "function_call":
			got = append(got, "function_call "+it.Get("call_id").Str+" "+it.Get("name").Str+" "+it.Get("arguments").Str)
		default:
			got = append(got, it.Get("type").Str)
		}
		return true
	})
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("output:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestProviderToolItemsAreDropped(t *testing.T) {
	up, err := fakeupstream.Start(fakeupstream.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer up.Close()
	m, err := New(Config{BaseURL: up.URL(), Model: "fixture:hosted_items"})
	if err != nil {
		t.Fatal(err)
	}
	rec := upstreamtest.NewRecorder(t)
	upstreamtest.Run(t, m, upstreamtest.Parse(t, upstreamtest.GoldenRequest), rec)
	for _, bad := range []string{"web_search", "rs_up1", "ws_up1"} {
		if strings.Contains(rec.String(), bad) {
			t.Errorf("%q reached the client", bad)
		}
	}
	if !strings.Contains(rec.String(), `"delta":"Thinking"`) {
		t.Errorf("the reasoning summary did not stream: %s", rec.String())
	}
}

// A payer asking for a tier that costs the operator more than the price
// farebox quoted (priority, fast, ...) does not get it upstream.
func TestHostileServiceTierThatCostsMoreIsNotForwarded(t *testing.T) {
	for tier, want := range map[string]string{"priority": "", "fast": "", "scale": "", "ultrafast": "", "flex": "flex", "auto": "auto", "default": ""} {
		got, err := build(upstreamtest.Parse(t, `{"model":"m","input":"x","service_tier":"`+tier+`"}`), "")
		if err != nil {
			t.Fatal(err)
		}
		if g := gjson.GetBytes(got, "service_tier").Str; g != want {
			t.Errorf("service_tier %s went up as %q, want %q", tier, g, want)
		}
	}
}
