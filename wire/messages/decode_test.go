package messages

import (
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/farebox/farebox/responses"
)

func TestClaudeCodeRequestDecodes(t *testing.T) {
	body, err := os.ReadFile("testdata/claude_code.json")
	if err != nil {
		t.Fatal(err)
	}
	req, perr := Decode(body, responses.HostedRefuse)
	if perr != nil {
		t.Fatalf("Decode: %v", perr)
	}
	if req.Model != "claude-opus-5-5" || !req.Stream || req.MaxOutputTokens == nil || *req.MaxOutputTokens != 128000 {
		t.Errorf("model %q stream %v max %v", req.Model, req.Stream, req.MaxOutputTokens)
	}
	if req.Instructions == nil || !strings.HasPrefix(*req.Instructions, "x-anthropic-billing-header") || !strings.Contains(*req.Instructions, "\n\nYou are Claude Code") {
		t.Errorf("instructions = %v", req.Instructions)
	}
	if len(req.Tools) != 12 || req.Tools[1].Name != "Bash" || req.Tools[1].Strict {
		t.Errorf("tools = %d, %+v", len(req.Tools), req.Tools[1])
	}
	var kinds []string
	for _, it := range req.Input {
		kinds = append(kinds, string(it.Type)+":"+it.Role)
	}
	want := []string{"message:user", "reasoning:", "message:assistant", "function_call:", "function_call_output:", "message:user",
		"message:developer", "reasoning:", "function_call:", "function_call_output:"}
	if !slices.Equal(kinds, want) {
		t.Fatalf("items = %v\nwant    %v", kinds, want)
	}
	if it := req.Input[1]; it.EncryptedContent != "anthropic.thinking:EqQBCkYIBxgCKkBsig" || !strings.Contains(string(it.Summary), "Glob will do") {
		t.Errorf("thinking = %+v", it)
	}
	if it := req.Input[7]; it.EncryptedContent != "anthropic.redacted:EmwKAhgBEgy3redacted" {
		t.Errorf("redacted = %+v", it)
	}
	if it := req.Input[3]; it.CallID != "toolu_01A" || it.Name != "Glob" || it.Arguments != `{"pattern":"**/*.go"}` {
		t.Errorf("tool_use = %+v", it)
	}
	if it := req.Input[9]; it.Output[0].Text != "Error: " || it.Output[1].Text != "exit status 1" {
		t.Errorf("error tool_result = %+v", it.Output)
	}
	if string(req.Reasoning) != `{"effort":"medium"}` || !req.IncludesEncryptedReasoning() {
		t.Errorf("reasoning = %s include %v", req.Reasoning, req.Include)
	}
	if req.User != nil || req.SafetyID != nil || len(req.Metadata) != 0 || len(req.Passthrough) != 0 {
		t.Errorf("metadata.user_id or context_management leaked: %+v %+v %+v", req.User, req.Metadata, req.Passthrough)
	}
}

func TestDecodeRefusesHostileRequests(t *testing.T) {
	msgs := `"messages":[{"role":"user","content":"hi"}]`
	cases := []struct{ name, body, param, code string }{
		{"missing max_tokens", `{"model":"m",` + msgs + `}`, "max_tokens", "missing_required_parameter"},
		{"duplicate key", `{"model":"m","max_tokens":100,` + msgs + `,"model":"n"}`, "model", "duplicate_key"},
		{"nested duplicate", `{"model":"m","max_tokens":100,"messages":[{"role":"user","content":[{"type":"text","text":"a","text":"b"}]}]}`, "messages.0.content.0.text", "duplicate_key"},
		{"bad role", `{"model":"m","max_tokens":100,"messages":[{"role":"tool","content":"hi"}]}`, "messages.0.role", "invalid_value"},
		{"unknown field", `{"model":"m","max_tokens":100,` + msgs + `,"frobnicate":true}`, "frobnicate", "unknown_parameter"},
		{"unknown message key", `{"model":"m","max_tokens":100,"messages":[{"role":"user","content":"hi","name":"x"}]}`, "messages.0.name", "unknown_parameter"},
		{"web search tool", `{"model":"m","max_tokens":100,` + msgs + `,"tools":[{"type":"web_search_20250305","name":"web_search"}]}`, "tools.0.type", "unsupported_value"},
		{"code execution tool", `{"model":"m","max_tokens":100,` + msgs + `,"tools":[{"type":"code_execution_20250825","name":"code_execution"}]}`, "tools.0.type", "unsupported_value"},
		{"mcp servers", `{"model":"m","max_tokens":100,` + msgs + `,"mcp_servers":[{"type":"url","url":"https://x","name":"x"}]}`, "mcp_servers", "unsupported_value"},
		{"server tool result replayed", `{"model":"m","max_tokens":100,"messages":[{"role":"user","content":"hi"},{"role":"assistant","content":[{"type":"server_tool_use","id":"srvtoolu_1","name":"web_search","input":{}}]}]}`, "messages.1.content.0.type", "unsupported_value"},
		{"stop sequences", `{"model":"m","max_tokens":100,` + msgs + `,"stop_sequences":["END"]}`, "stop_sequences", "unsupported_parameter"},
		{"max_tokens too small", `{"model":"m","max_tokens":1,` + msgs + `}`, "max_tokens", "integer_below_min_value"},
		{"unpaired tool_result", `{"model":"m","max_tokens":100,"messages":[{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_9","content":"x"}]}]}`, "messages", ""},
		{"tool_use input not object", `{"model":"m","max_tokens":100,"messages":[{"role":"user","content":"hi"},{"role":"assistant","content":[{"type":"tool_use","id":"t","name":"f","input":"x"}]}]}`, "messages.1.content.0.input", "invalid_type"},
		{"bad text", `{"model":"m","max_tokens":100,"messages":[{"role":"user","content":[{"type":"text","text":5}]}]}`, "messages.0.content.0.text", "invalid_type"},
		{"tool without schema name", `{"model":"m","max_tokens":100,` + msgs + `,"tools":[{"input_schema":{"type":"object"}}]}`, "tools.0.name", "missing_required_parameter"},
		{"bad tool_choice", `{"model":"m","max_tokens":100,` + msgs + `,"tool_choice":{"type":"sometimes"}}`, "tool_choice.type", "invalid_value"},
		{"temperature", `{"model":"m","max_tokens":100,` + msgs + `,"temperature":5}`, "temperature", "decimal_above_max_value"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Decode([]byte(c.body), responses.HostedRefuse)
			if err == nil {
				t.Fatal("Decode accepted the body")
			}
			if err.Status != 400 || err.Param != c.param || c.code != "" && err.Code != c.code {
				t.Fatalf("error = %d %q %q %q, want %q %q", err.Status, err.Param, err.Code, err.Message, c.param, c.code)
			}
			if strings.Contains(err.Message, "input[") {
				t.Errorf("message names the Responses field: %s", err.Message)
			}
		})
	}
}

func TestDecodeMapsToolsAndChoices(t *testing.T) {
	body := `{"model":"m","max_tokens":100,"messages":[{"role":"user","content":[{"type":"text","text":"look"},{"type":"image","source":{"type":"base64","media_type":"image/png","data":"iVBOR"}},{"type":"image","source":{"type":"url","url":"https://x/i.png"}}]}],
		"tools":[{"type":"bash_20250124","name":"bash"},{"type":"text_editor_20250728","name":"str_replace_based_edit_tool"},{"type":"web_search_20250305","name":"web_search"},{"name":"f","input_schema":{"type":"object","properties":{}}}],
		"tool_choice":{"type":"tool","name":"f","disable_parallel_tool_use":true},"thinking":{"type":"enabled","budget_tokens":10000},"top_k":5,"stop_sequences":[]}`
	req, err := Decode([]byte(body), responses.HostedDrop)
	if err != nil {
		t.Fatalf("Decode: %v", err)
	}
	var names []string
	for _, tl := range req.Tools {
		names = append(names, tl.Name)
	}
	if !slices.Equal(names, []string{"bash", "str_replace_based_edit_tool", "f"}) || !slices.Equal(req.DroppedTools, []string{"web_search_20250305"}) {
		t.Errorf("tools %v dropped %v", names, req.DroppedTools)
	}
	if req.ToolChoice.Mode != responses.ChoiceFunction || req.ToolChoice.Name != "f" || req.ParallelToolCalls {
		t.Errorf("tool_choice %+v parallel %v", req.ToolChoice, req.ParallelToolCalls)
	}
	if p := req.Input[0].Content; p[1].ImageURL != "data:image/png;base64,iVBOR" || p[2].ImageURL != "https://x/i.png" {
		t.Errorf("images = %+v", p)
	}
	if string(req.Reasoning) != `{"effort":"medium","summary":"auto"}` {
		t.Errorf("reasoning = %s", req.Reasoning)
	}
	if _, err := DecodeCountTokens([]byte(`{"model":"m","messages":[{"role":"user","content":"hi"}]}`), responses.HostedDrop); err != nil {
		t.Errorf("count_tokens without max_tokens: %v", err)
	}
}

// TestEveryMessagesFieldIsClassified walks the official SDK's
// MessageNewParams: a field a new SDK release adds fails here until
// classified in Fields.
func TestEveryMessagesFieldIsClassified(t *testing.T) {
	for _, typ := range []reflect.Type{reflect.TypeFor[anthropic.MessageNewParams](), reflect.TypeFor[anthropic.MessageCountTokensParams]()} {
		for f := range typ.Fields() {
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if name == "" || name == "-" {
				continue
			}
			if _, ok := Fields[name]; !ok {
				t.Errorf("%s.%s (%s) is not classified in Fields", typ.Name(), f.Name, name)
			}
		}
	}
}
