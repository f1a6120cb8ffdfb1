package chat

import (
	"strings"
	"testing"

	"github.com/farebox/farebox/internal/testkit/upstreamtest"
	"github.com/farebox/farebox/responses"
	"github.com/tidwall/gjson"
)

// A custom tool goes up as a function with one string argument, a
// custom_tool_call in the history as a call with {"input": ...}, and the
// refusal of a built-in client tool names the model.
func TestCustomToolTranslatesToAFunctionWithOneStringArgument(t *testing.T) {
	req := upstreamtest.Parse(t, `{"model":"coder","input":[{"role":"user","content":"patch"},
		{"type":"custom_tool_call","call_id":"c1","name":"apply_patch","input":"*** Begin Patch"},
		{"type":"custom_tool_call_output","call_id":"c1","output":"Done"}],
		"tools":[{"type":"custom","name":"apply_patch","format":{"type":"grammar","syntax":"lark","definition":"start: /.+/"}}]}`)
	body, err := translate(req, Config{})
	if err != nil {
		t.Fatal(err)
	}
	fn := gjson.GetBytes(body, "tools.0.function")
	if fn.Get("name").Str != "apply_patch" || fn.Get("parameters.properties.input.type").Str != "string" || fn.Get("parameters.required.0").Str != "input" {
		t.Fatalf("tool %s", fn.Raw)
	}
	if got, want := gjson.GetBytes(body, "messages.1.tool_calls.0.function.arguments").Str, `{"input":"*** Begin Patch"}`; got != want {
		t.Errorf("arguments %s, want %s", got, want)
	}
	if got := gjson.GetBytes(body, "messages.2.role").Str + " " + gjson.GetBytes(body, "messages.2.content").Str; got != "tool Done" {
		t.Errorf("output message %q", got)
	}
	_, err = translate(upstreamtest.Parse(t, `{"model":"coder","input":"x","tools":[{"type":"local_shell"}]}`), Config{})
	if e, ok := err.(*responses.Error); !ok || e.Status != 400 || !strings.Contains(e.Message, "Model 'coder'") {
		t.Fatalf("got %v", err)
	}
}

// The function call a Chat model makes to a custom tool reaches the client
// as a custom_tool_call whose input is the "input" string.
func TestCustomToolCallComesBackAsCustomToolCall(t *testing.T) {
	req := upstreamtest.Parse(t, `{"model":"m","input":"x","tools":[{"type":"custom","name":"apply_patch"},{"type":"function","name":"f"}]}`)
	em := responses.NewEmitter(req, nil, responses.EmitterOptions{})
	out := newCustomCalls(em, req)
	steps := []func() error{
		func() error { return out.StartCall("c1", "apply_patch") },
		func() error { return out.Arguments(`{"inp`) },
		func() error { return out.Arguments(`ut":"line one\nline two"}`) },
		func() error { return out.StartCall("c2", "f") },
		func() error { return out.Arguments(`{}`) },
		func() error { return finish(out) },
		func() error { return em.Complete(nil) },
	}
	for _, s := range steps {
		if err := s(); err != nil {
			t.Fatal(err)
		}
	}
	res := em.Response()
	if got := gjson.GetBytes(res, "output.0.type").Str + " " + gjson.GetBytes(res, "output.0.input").Str; got != "custom_tool_call line one\nline two" {
		t.Errorf("first item %q", got)
	}
	if got := gjson.GetBytes(res, "output.1.type").Str; got != "function_call" {
		t.Errorf("second item %q", got)
	}
}
