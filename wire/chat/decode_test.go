package chat

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/farebox/farebox/responses"
)

func TestDecodeMapsChatFieldsToTheCanonicalRequest(t *testing.T) {
	body := `{"model":"m","messages":[
		{"role":"system","content":"be brief"},
		{"role":"developer","content":[{"type":"text","text":"dev"}]},
		{"role":"user","name":"ann","content":[{"type":"text","text":"hi"},{"type":"image_url","image_url":{"url":"https://x/i.png","detail":"low"}}]},
		{"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"f","arguments":"{\"a\":1}"}},{"id":"call_2","type":"custom","custom":{"name":"c","input":"raw"}}]},
		{"role":"tool","tool_call_id":"call_1","content":"out1"},
		{"role":"tool","tool_call_id":"call_2","content":[{"type":"text","text":"out2"}]},
		{"role":"assistant","content":"done","refusal":"no"}],
		"tools":[{"type":"function","function":{"name":"f","parameters":{"type":"object","properties":{"a":{"type":"integer"}}}}},{"type":"custom","custom":{"name":"c","format":{"type":"grammar","grammar":{"syntax":"regex","definition":"[a-z]+"}}}}],
		"tool_choice":{"type":"function","function":{"name":"f"}},"parallel_tool_calls":false,
		"response_format":{"type":"json_schema","json_schema":{"name":"s","schema":{"type":"object"}}},
		"max_completion_tokens":100,"reasoning_effort":"low","temperature":0.5,"top_p":0.9,
		"stop":null,"n":1,"logprobs":false,"seed":7,"store":true,"user":"u","metadata":{"k":"v"},
		"stream":true,"stream_options":{"include_usage":true}}`
	req, err := Decode([]byte(body), responses.HostedDrop)
	if err != nil {
		t.Fatalf("Decode: %v", err)
	}
	var types []string
	for _, it := range req.Input {
		types = append(types, string(it.Type)+":"+it.Role)
	}
	want := []string{"message:system", "message:developer", "message:user", "function_call:", "custom_tool_call:", "function_call_output:", "custom_tool_call_output:", "message:assistant"}
	if !slices.Equal(types, want) {
		t.Fatalf("items = %v, want %v", types, want)
	}
	if got := req.Input[2].Content[1]; got.Type != "input_image" || got.ImageURL != "https://x/i.png" || got.Detail != "low" {
		t.Errorf("image part = %+v", got)
	}
	if it := req.Input[3]; it.CallID != "call_1" || it.Name != "f" || it.Arguments != `{"a":1}` {
		t.Errorf("function call = %+v", it)
	}
	if it := req.Input[7]; len(it.Content) != 2 || it.Content[1].Type != "refusal" || it.Content[1].Text != "no" {
		t.Errorf("assistant message = %+v", it.Content)
	}
	if len(req.Tools) != 2 || req.Tools[0].Strict || req.Tools[1].Kind != responses.ToolCustom {
		t.Errorf("tools = %+v", req.Tools)
	}
	if !strings.Contains(string(req.Tools[1].Format), `"definition":"[a-z]+"`) {
		t.Errorf("custom format = %s", req.Tools[1].Format)
	}
	if req.ToolChoice.Mode != responses.ChoiceFunction || req.ToolChoice.Name != "f" || req.ParallelToolCalls {
		t.Errorf("tool_choice = %+v, parallel %v", req.ToolChoice, req.ParallelToolCalls)
	}
	var text struct{ Format struct{ Type, Name string } }
	if err := json.Unmarshal(req.Text, &text); err != nil || text.Format.Type != "json_schema" || text.Format.Name != "s" {
		t.Errorf("text = %s", req.Text)
	}
	if req.MaxOutputTokens == nil || *req.MaxOutputTokens != 100 || string(req.Reasoning) != `{"effort":"low"}` {
		t.Errorf("max_output_tokens %v reasoning %s", req.MaxOutputTokens, req.Reasoning)
	}
	if !req.Stream || !req.IncludeUsage || *req.Temperature != 0.5 || *req.User != "u" || req.Metadata[0].Key != "k" {
		t.Errorf("request = %+v", req)
	}
}

func TestDecodeNamesTheChatFieldInErrors(t *testing.T) {
	cases := []struct{ name, body, param, code string }{
		{"not json", `{`, "", "invalid_json"},
		{"duplicate key", `{"model":"m","model":"n","messages":[]}`, "model", "duplicate_key"},
		{"nested duplicate", `{"model":"m","messages":[{"role":"user","content":"a","content":"b"}]}`, "messages[0].content", "duplicate_key"},
		{"missing model", `{"messages":[{"role":"user","content":"hi"}]}`, "model", "missing_required_parameter"},
		{"missing messages", `{"model":"m"}`, "messages", "missing_required_parameter"},
		{"empty messages", `{"model":"m","messages":[]}`, "messages", "empty_array"},
		{"unknown field", `{"model":"m","messages":[{"role":"user","content":"hi"}],"frobnicate":1}`, "frobnicate", "unknown_parameter"},
		{"unknown message key", `{"model":"m","messages":[{"role":"user","content":"hi","x":1}]}`, "messages[0].x", "unknown_parameter"},
		{"bad role", `{"model":"m","messages":[{"role":"robot","content":"hi"}]}`, "messages[0].role", "invalid_value"},
		{"function role", `{"model":"m","messages":[{"role":"function","name":"f","content":"hi"}]}`, "messages[0].role", "unsupported_value"},
		{"n", `{"model":"m","messages":[{"role":"user","content":"hi"}],"n":2}`, "n", "unsupported_parameter"},
		{"logprobs", `{"model":"m","messages":[{"role":"user","content":"hi"}],"logprobs":true}`, "logprobs", "unsupported_parameter"},
		{"top_logprobs", `{"model":"m","messages":[{"role":"user","content":"hi"}],"top_logprobs":3}`, "top_logprobs", "unsupported_parameter"},
		{"stop", `{"model":"m","messages":[{"role":"user","content":"hi"}],"stop":["x"]}`, "stop", "unsupported_parameter"},
		{"audio modality", `{"model":"m","messages":[{"role":"user","content":"hi"}],"modalities":["text","audio"]}`, "modalities", "unsupported_parameter"},
		{"functions", `{"model":"m","messages":[{"role":"user","content":"hi"}],"functions":[{"name":"f"}]}`, "functions", "unsupported_parameter"},
		{"both token limits", `{"model":"m","messages":[{"role":"user","content":"hi"}],"max_tokens":20,"max_completion_tokens":20}`, "max_completion_tokens", "invalid_value"},
		{"token limit below minimum", `{"model":"m","messages":[{"role":"user","content":"hi"}],"max_tokens":1}`, "max_tokens", "integer_below_min_value"},
		{"temperature range", `{"model":"m","messages":[{"role":"user","content":"hi"}],"temperature":3}`, "temperature", "decimal_above_max_value"},
		{"bad effort", `{"model":"m","messages":[{"role":"user","content":"hi"}],"reasoning_effort":7}`, "reasoning_effort", "invalid_type"},
		{"unpaired tool message", `{"model":"m","messages":[{"role":"user","content":"hi"},{"role":"tool","tool_call_id":"call_9","content":"x"}]}`, "messages", ""},
		{"bad arguments type", `{"model":"m","messages":[{"role":"user","content":"hi"},{"role":"assistant","tool_calls":[{"id":"c","type":"function","function":{"name":"f","arguments":5}}]},{"role":"tool","tool_call_id":"c","content":"x"}]}`, "messages[1].tool_calls[0].function.arguments", "invalid_type"},
		{"tool without name", `{"model":"m","messages":[{"role":"user","content":"hi"}],"tools":[{"type":"function","function":{"description":"d"}}]}`, "tools[0].function.name", "missing_required_parameter"},
		{"audio part", `{"model":"m","messages":[{"role":"user","content":[{"type":"input_audio","input_audio":{}}]}]}`, "messages[0].content[0].type", "unsupported_value"},
		{"bad text part", `{"model":"m","messages":[{"role":"user","content":[{"type":"text","text":5}]}]}`, "messages[0].content[0].text", "invalid_type"},
		{"stream_options without stream", `{"model":"m","messages":[{"role":"user","content":"hi"}],"stream_options":{"include_usage":true}}`, "stream_options", "invalid_value"},
		{"forced unknown tool", `{"model":"m","messages":[{"role":"user","content":"hi"}],"tool_choice":{"type":"function","function":{"name":"nope"}}}`, "tool_choice.function.name", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Decode([]byte(c.body), responses.HostedDrop)
			if err == nil {
				t.Fatal("Decode accepted the body")
			}
			if err.Status != 400 || err.Param != c.param || (c.code != "" && err.Code != c.code) {
				t.Fatalf("error = %d %q %q %q, want param %q code %q", err.Status, err.Param, err.Code, err.Message, c.param, c.code)
			}
			if c.param != "" && strings.Contains(err.Message, "input[") {
				t.Errorf("message names the Responses field: %s", err.Message)
			}
		})
	}
}

func TestDecodeAppliesTheHostedToolPolicy(t *testing.T) {
	body := `{"model":"m","messages":[{"role":"user","content":"hi"}],"web_search_options":{},"tools":[{"type":"web_search_preview"}]}`
	req, err := Decode([]byte(body), responses.HostedDrop)
	if err != nil {
		t.Fatalf("drop: %v", err)
	}
	if len(req.Tools) != 0 || !slices.Contains(req.DroppedTools, "web_search") || !slices.Contains(req.DroppedTools, "web_search_preview") {
		t.Errorf("dropped = %v, tools = %v", req.DroppedTools, req.Tools)
	}
	_, err = Decode([]byte(body), responses.HostedRefuse)
	if err == nil || err.Param != "web_search_options" {
		t.Fatalf("refuse: %v", err)
	}
	_, err = Decode([]byte(`{"model":"m","messages":[{"role":"user","content":"hi"}],"tools":[{"type":"web_search_preview"}]}`), responses.HostedRefuse)
	if err == nil || err.Param != "tools[0].type" {
		t.Fatalf("refuse tool: %v", err)
	}
}

// The openai SDK's tool loop appends completion.choices[0].message as it
// came, annotations and refusal: null included; that history must decode.
func TestDecodeAcceptsAnAnsweredMessageSentBack(t *testing.T) {
	body := `{"model":"m","messages":[
		{"role":"user","content":"weather?"},
		{"role":"assistant","content":null,"refusal":null,"annotations":[],"tool_calls":[{"id":"call_1","type":"function","function":{"name":"f","arguments":"{}"}}]},
		{"role":"tool","tool_call_id":"call_1","content":"sunny"}],
		"tools":[{"type":"function","function":{"name":"f","parameters":{"type":"object"}}}]}`
	req, err := Decode([]byte(body), responses.HostedDrop)
	if err != nil {
		t.Fatalf("Decode: %v", err)
	}
	if len(req.Input) != 3 || req.Input[1].Type != responses.ItemFunctionCall || req.Input[2].OutputText != "sunny" {
		t.Fatalf("items = %+v", req.Input)
	}
}
