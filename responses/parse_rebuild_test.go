package responses

import (
	"strings"
	"testing"
)

// What farebox forwards of a shell's local environment, a custom tool's
// format and a client tool's call is rebuilt from the published fields:
// anything else the client put there (a container id, file ids, an
// unknown key) is left behind.
func TestHostileForwardedObjectsAreRebuiltFromKnownFields(t *testing.T) {
	req := mustParse(t, []byte(`{"model":"m","tools":[
		{"type":"shell","environment":{"type":"local","container_id":"cntr_1","file_ids":["file_1"],"skills":[{"name":"s","description":"d","path":"/p","x":1}]}},
		{"type":"custom","name":"g","format":{"type":"grammar","syntax":"lark","definition":"start: /.+/","container":"c"}}],
		"input":[{"role":"user","content":"go"},
		{"type":"shell_call","call_id":"c3","action":{"commands":["ls"],"container_id":"cntr_1"},"caller":{"type":"program"},"status":"completed","extra":1},
		{"type":"shell_call_output","call_id":"c3","output":[{"stdout":"a","stderr":"","outcome":{"type":"exit","exit_code":0,"x":2}}]}]}`))
	want := map[string]string{
		"shell": `{"type":"shell","environment":{"type":"local","skills":[{"name":"s","description":"d","path":"/p"}]}}`,
	}
	for _, tool := range req.Tools {
		if w, ok := want[tool.Name]; ok && string(tool.Config) != w {
			t.Errorf("%s: %s, want %s", tool.Name, tool.Config, w)
		}
		if tool.Kind == ToolCustom && string(tool.Format) != `{"type":"grammar","syntax":"lark","definition":"start: /.+/"}` {
			t.Errorf("custom format %s", tool.Format)
		}
	}
	if got := string(req.Input[1].Raw); got != `{"type":"shell_call","call_id":"c3","action":{"commands":["ls"]},"status":"completed"}` {
		t.Errorf("shell_call %s", got)
	}
	if got := string(req.Input[2].Raw); got != `{"type":"shell_call_output","call_id":"c3","output":[{"stdout":"a","stderr":"","outcome":{"type":"exit","exit_code":0}}]}` {
		t.Errorf("shell_call_output %s", got)
	}
}

// A forwarded object whose known fields have the wrong type, or that
// points at the provider's side (a container, a stored file), is a 400.
func TestForwardedObjectsAreChecked(t *testing.T) {
	for _, c := range []struct{ name, body, param, code string }{
		{"a shell_call in a provider container", `{"model":"m","input":[{"type":"shell_call","call_id":"c","action":{"commands":["ls"]},"environment":{"type":"container_reference","container_id":"cntr_1"}}]}`, "input[0].environment.type", "invalid_value"},
		{"a screenshot by file id", `{"model":"m","input":[{"type":"computer_call","id":"cu","call_id":"c","action":{"type":"screenshot"}},{"type":"computer_call_output","call_id":"c","output":{"type":"computer_screenshot","file_id":"file_1"}}]}`, "input[1].output.file_id", "file_id_not_supported"},
		{"commands not strings", `{"model":"m","input":[{"type":"shell_call","call_id":"c","action":{"commands":[1]}}]}`, "input[0].action.commands[0]", "invalid_type"},
		{"a click without x", `{"model":"m","input":[{"type":"computer_call","id":"cu","call_id":"c","action":{"type":"click","button":"left","y":1}}]}`, "input[0].action.x", "missing_required_parameter"},
		{"an unknown patch operation", `{"model":"m","input":[{"type":"apply_patch_call","call_id":"c","operation":{"type":"chmod","path":"a"}}]}`, "input[0].operation.type", "invalid_value"},
		{"a skill without a path", `{"model":"m","input":"x","tools":[{"type":"shell","environment":{"type":"local","skills":[{"name":"s","description":"d"}]}}]}`, "tools[0].environment.skills[0].path", "missing_required_parameter"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse([]byte(c.body))
			if err == nil || err.Param != c.param || err.Code != c.code {
				t.Fatalf("got %+v, want %s at %s", err, c.code, c.param)
			}
			if c.code == "file_id_not_supported" && !strings.Contains(err.Message, "inline") {
				t.Errorf("the message should say what to send instead: %s", err.Message)
			}
		})
	}
}

// text and reasoning keep only their published keys.
func TestTextAndReasoningAreRebuilt(t *testing.T) {
	req := mustParse(t, []byte(`{"model":"m","input":"x","text":{"format":{"type":"json_schema","name":"a","schema":{"type":"object"},"x":1},"verbosity":"low","y":2},"reasoning":{"effort":"low","budget":9}}`))
	if got := string(req.Text); got != `{"format":{"type":"json_schema","name":"a","schema":{"type":"object"}},"verbosity":"low"}` {
		t.Errorf("text %s", got)
	}
	if got := string(req.Reasoning); got != `{"effort":"low"}` {
		t.Errorf("reasoning %s", got)
	}
}

// The uninterpreted top-level objects a Responses upstream may get are
// rebuilt too: prompt_cache_options loses a stored response's id and
// prewarm, moderation its unknown keys, client_metadata must hold strings.
func TestPassthroughObjectsAreRebuilt(t *testing.T) {
	req := mustParse(t, []byte(`{"model":"m","input":"x","prompt_cache_options":{"mode":"explicit","ttl":"12h","comparison_response_id":"resp_operators","prewarm":true},
		"moderation":{"model":"omni","policy":{"input":{"mode":"block","x":1}},"y":2},"client_metadata":{"session_id":"s"}}`))
	want := map[string]string{
		"prompt_cache_options": `{"mode":"explicit","ttl":"12h"}`,
		"moderation":           `{"model":"omni","policy":{"input":{"mode":"block"}}}`,
		"client_metadata":      `{"session_id":"s"}`,
	}
	for _, f := range req.Passthrough {
		if string(f.Value) != want[f.Key] {
			t.Errorf("%s: %s, want %s", f.Key, f.Value, want[f.Key])
		}
	}
	if len(req.Passthrough) != len(want) {
		t.Errorf("passthrough %+v", req.Passthrough)
	}
	if _, err := Parse([]byte(`{"model":"m","input":"x","client_metadata":{"n":1}}`)); err == nil || err.Param != "client_metadata.n" {
		t.Errorf("a number in client_metadata: %v", err)
	}
}
