package gateway_test

import (
	"bufio"
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/farebox/farebox/gateway"
	"github.com/farebox/farebox/internal/testkit/fakeupstream"
	"github.com/farebox/farebox/internal/testkit/requestcases"
	"github.com/farebox/farebox/schemas"
	"github.com/tidwall/gjson"
)

// sseData returns the data payloads of an SSE body, [DONE] excluded.
func sseData(t *testing.T, body []byte) [][]byte {
	t.Helper()
	var out [][]byte
	sc := bufio.NewScanner(bytes.NewReader(body))
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		if d, ok := bytes.CutPrefix(sc.Bytes(), []byte("data: ")); ok && string(d) != "[DONE]" {
			out = append(out, bytes.Clone(d))
		}
	}
	return out
}

// The requests Codex CLI 0.169 really sends, recorded, POSTed to the free
// model: a 200 stream of schema-valid events, the web_search tool dropped
// and named in Farebox-Dropped-Tools, and the tool outputs of a follow-up
// (after a function call, after a custom tool call) answered.
func TestCodexRequestsGet200FromTheFreeModel(t *testing.T) {
	ts := startServer(t, freeConfig(), gateway.Options{})
	cases := []struct{ file, want string }{
		{requestcases.CodexExec, "You said: run echo hi"},
		{requestcases.CodexExecFunctionFollowup, "exec_command returned: "},
		{requestcases.CodexExecCustomCallFollowup, "apply_patch returned: unsupported custom tool call: apply_patch"},
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			body := string(requestcases.CodexRequest(c.file))
			body = strings.Replace(body, `"model":"gpt-5.1-codex"`, `"model":"`+free+`"`, 1)
			res, out := post(t, ts.URL+"/responses", body, "Accept", "text/event-stream")
			if res.StatusCode != 200 {
				t.Fatalf("status %d: %s", res.StatusCode, out)
			}
			if got, want := res.Header.Get("Farebox-Dropped-Tools"), "web_search"; got != want {
				t.Errorf("Farebox-Dropped-Tools = %q, want %q", got, want)
			}
			evs := sseData(t, out)
			if len(evs) < 3 {
				t.Fatalf("%d events: %s", len(evs), out)
			}
			for _, ev := range evs {
				if err := schemas.ValidateEvent(ev); err != nil {
					t.Fatalf("%v\n%s", err, ev)
				}
			}
			last := evs[len(evs)-1]
			if got := gjson.GetBytes(last, "type").Str; got != "response.completed" {
				t.Fatalf("terminal %s", last)
			}
			text := gjson.GetBytes(last, "response.output.0.content.0.text").Str
			if !strings.HasPrefix(text, c.want) {
				t.Errorf("text %q, want prefix %q", text, c.want)
			}
			tools := gjson.GetBytes(last, "response.tools").Array()
			for _, tl := range tools {
				if tl.Get("type").Str == "web_search" {
					t.Errorf("the dropped tool is echoed: %s", tl.Raw)
				}
			}
		})
	}
	if !strings.Contains(ts.logs.String(), "provider-executed tools dropped") {
		t.Error("the drop is not logged")
	}
}

// With tools.hosted: refuse, the same request is a 400 naming the tool.
func TestCodexRequestRefusedUnderHostedRefuse(t *testing.T) {
	cfg := freeConfig()
	cfg.Tools.Hosted = "refuse"
	ts := startServer(t, cfg, gateway.Options{})
	res, out := post(t, ts.URL+"/responses", string(requestcases.CodexRequest(requestcases.CodexExec)))
	if res.StatusCode != 400 {
		t.Fatalf("status %d: %s", res.StatusCode, out)
	}
	if got, want := gjson.GetBytes(out, "error.param").Str, "tools[8].type"; got != want {
		t.Errorf("param %q, want %q: %s", got, want, out)
	}
}

// The recorded Codex request through each upstream kind: the provider's
// web_search never reaches the upstream; the Responses upstream gets the
// namespace, the reasoning settings and the fields farebox does not
// interpret (client_metadata, prompt_cache_key); the Chat upstream gets
// the namespace's functions and none of those fields.
func TestCodexRequestThroughUpstreams(t *testing.T) {
	for _, kind := range []string{"openai", "chat"} {
		t.Run(kind, func(t *testing.T) {
			up, err := fakeupstream.Start(fakeupstream.Options{})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { up.Close() })
			cfg := gateway.Config{Models: []gateway.ModelConfig{{Name: free, Upstream: kind, UpstreamConfig: endpoint(kind, up.URL(), "echo"), Price: "0"}}}
			ts := startServer(t, cfg, gateway.Options{})
			res, out := post(t, ts.URL+"/responses", string(requestcases.CodexRequest(requestcases.CodexExecFunctionFollowup)))
			if res.StatusCode != 200 {
				t.Fatalf("status %d: %s", res.StatusCode, out)
			}
			rec, err := up.WaitRequest(context.Background(), 1)
			if err != nil {
				t.Fatal(err)
			}
			body := string(rec.Body)
			if strings.Contains(body, "web_search") {
				t.Errorf("a provider-executed tool reached the %s upstream", kind)
			}
			responsesOnly := []string{`"client_metadata"`, `"prompt_cache_key"`, `"type":"namespace"`, `"encrypted_content":"gAAAAencrypted-blob-1"`, `"summary":"auto"`}
			for _, s := range responsesOnly {
				if got := strings.Contains(body, s); got != (kind == "openai") {
					t.Errorf("%s in the %s upstream's body: %v", s, kind, got)
				}
			}
			if !strings.Contains(body, `"close_agent"`) {
				t.Errorf("the namespace's functions are missing upstream")
			}
		})
	}
}

func TestToolsHostedMustBeDropOrRefuse(t *testing.T) {
	cfg := freeConfig()
	cfg.Tools.Hosted = "ignore"
	if _, err := gateway.New(cfg, gateway.Options{}); err == nil || !strings.Contains(err.Error(), "tools.hosted") {
		t.Fatalf("got %v, want an error naming tools.hosted", err)
	}
}
