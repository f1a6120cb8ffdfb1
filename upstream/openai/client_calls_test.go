package openai

import (
	"testing"

	"github.com/farebox/farebox/internal/testkit/upstreamtest"
	"github.com/farebox/farebox/responses"
	"github.com/tidwall/gjson"
)

// A Responses upstream's calls of built-in client tools (here shell_call)
// reach the client whole when the client declared the tool, with farebox's
// own item id; undeclared ones (a computer_call) and provider-run items (a
// web_search_call) do not.
func TestClientToolCallsPassOnlyWhenDeclared(t *testing.T) {
	req := upstreamtest.Parse(t, `{"model":"m","input":"x","tools":[{"type":"shell"}]}`)
	em := responses.NewEmitter(req, nil, responses.EmitterOptions{})
	m := newMapper(em)
	events := []string{
		`{"type":"response.output_item.added","output_index":0,"item":{"type":"shell_call","id":"sh_up","call_id":"call_s","status":"in_progress","action":{"commands":[]}}}`,
		`{"type":"response.output_item.done","output_index":0,"item":{"type":"shell_call","id":"sh_up","call_id":"call_s","status":"completed","action":{"commands":["ls -la"],"timeout_ms":1000}}}`,
		`{"type":"response.output_item.added","output_index":1,"item":{"type":"computer_call","id":"cu_up","call_id":"call_c","status":"in_progress"}}`,
		`{"type":"response.output_item.done","output_index":1,"item":{"type":"computer_call","id":"cu_up","call_id":"call_c","status":"completed","action":{"type":"click","x":1,"y":2}}}`,
		`{"type":"response.output_item.added","output_index":2,"item":{"type":"web_search_call","id":"ws_up","status":"in_progress"}}`,
		`{"type":"response.output_item.done","output_index":2,"item":{"type":"web_search_call","id":"ws_up","status":"completed"}}`,
		`{"type":"response.completed","response":{"usage":{"input_tokens":1,"output_tokens":1}}}`,
	}
	for _, ev := range events {
		if err := m.event([]byte(ev)); err != nil {
			t.Fatal(err)
		}
	}
	if err := em.Complete(nil); err != nil {
		t.Fatal(err)
	}
	out := gjson.GetBytes(em.Response(), "output").Array()
	if len(out) != 1 {
		t.Fatalf("output %s", gjson.GetBytes(em.Response(), "output").Raw)
	}
	it := out[0]
	if it.Get("type").Str != "shell_call" || it.Get("call_id").Str != "call_s" || it.Get("action.commands.0").Str != "ls -la" || it.Get("id").Str == "sh_up" {
		t.Fatalf("item %s", it.Raw)
	}
}

// The provider gets the gateway's view of the end user, never the
// client's words, and moderation or access_programs only as the operator
// allows (access_programs never).
func TestProviderSeesTheGatewaysEndUser(t *testing.T) {
	req := upstreamtest.Parse(t, `{"model":"m","input":"x","user":"alice","safety_identifier":"mine","prompt_cache_key":"k",
		"moderation":{"model":"omni"},"access_programs":{"cyber":"daybreak_red"}}`)
	req.Provider = responses.ProviderView{SafetyID: "fbu_1", CacheKey: "fbc_2"}
	b, err := build(req, "")
	if err != nil {
		t.Fatal(err)
	}
	got := gjson.ParseBytes(b)
	if got.Get("user").Exists() || got.Get("safety_identifier").Str != "fbu_1" || got.Get("prompt_cache_key").Str != "fbc_2" ||
		got.Get("moderation").Exists() || got.Get("access_programs").Exists() {
		t.Fatalf("%s", b)
	}
	req.Provider.Moderation = true
	if b, _ = build(req, ""); gjson.GetBytes(b, "moderation.model").Str != "omni" {
		t.Fatalf("moderation allowed: %s", b)
	}
}
