package gateway_test

import (
	"strings"
	"testing"

	"github.com/farebox/farebox/gateway"
	"github.com/farebox/farebox/internal/testkit/fakeupstream"
	"github.com/tidwall/gjson"
)

// The free token count spends the operator's provider key, so it keeps
// to the model's limits before anything goes upstream: an input over
// max_input_tokens (on /v1/responses/input_tokens and Anthropic's
// /v1/messages/count_tokens) and a body over body_limit are refused, in
// each wire's error shape, with no request reaching the provider; an
// input within them is counted by the provider, once.
func TestQuoteRouteSendsNothingUpstreamPastTheLimits(t *testing.T) {
	up, err := fakeupstream.Start(fakeupstream.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer up.Close()
	cfg := gateway.Config{BodyLimit: 64 << 10, Models: []gateway.ModelConfig{{Name: "counted", Upstream: "openai", Price: "0",
		UpstreamConfig: endpoint("openai", up.URL(), "echo"), Limits: &gateway.ModelLimits{MaxInputTokens: 1000}}}}
	ts := startServer(t, cfg, gateway.Options{})
	big := strings.Repeat("many words of input ", 1000) // 20 kB: about 5,000 tokens, within body_limit
	for _, tc := range []struct{ path, body, wantType string }{
		{"/responses/input_tokens", `{"model":"counted","input":"` + big + `"}`, "invalid_request_error"},
		{"/messages/count_tokens", `{"model":"counted","messages":[{"role":"user","content":"` + big + `"}]}`, "invalid_request_error"},
	} {
		res, body := post(t, ts.URL+tc.path, tc.body)
		if res.StatusCode != 400 || gjson.GetBytes(body, "error.type").Str != tc.wantType {
			t.Errorf("%s over max_input_tokens: %d %s, want 400 %s", tc.path, res.StatusCode, body, tc.wantType)
		}
		if tc.path == "/messages/count_tokens" && gjson.GetBytes(body, "type").Str != "error" {
			t.Errorf("%s answered outside Anthropic's error shape: %s", tc.path, body)
		}
	}
	huge := strings.Repeat("x", 128<<10)
	if res, body := post(t, ts.URL+"/responses/input_tokens", `{"model":"counted","input":"`+huge+`"}`); res.StatusCode != 413 {
		t.Errorf("a body over body_limit: %d %s, want 413", res.StatusCode, body)
	}
	if n := len(up.Records()); n != 0 {
		t.Errorf("%d requests reached the provider for counts past the limits, want 0", n)
	}
	res, body := post(t, ts.URL+"/responses/input_tokens", `{"model":"counted","input":"a short one"}`)
	if res.StatusCode != 200 || gjson.GetBytes(body, "input_tokens").Int() != 4242 {
		t.Errorf("a count within the limits: %d %s, want the provider's 4242", res.StatusCode, body)
	}
	if n := len(up.Records()); n != 1 {
		t.Errorf("%d requests reached the provider for one count within the limits, want 1", n)
	}
}
