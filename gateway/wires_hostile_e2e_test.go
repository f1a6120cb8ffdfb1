package gateway_test

import (
	"context"
	"io"
	"math/big"
	"net/http"
	"strings"
	"testing"

	"github.com/farebox/farebox/gateway"
	"github.com/farebox/farebox/x402"
	"github.com/farebox/farebox/x402/evm"
	"github.com/farebox/farebox/x402/payer"
	"github.com/tidwall/gjson"
)

// The hostile cases Responses holds, on the Chat Completions and Messages
// wires: what is refused is refused before anything is paid or reaches
// the provider, in the wire's own error shape; the provider's tools never
// run; a used payment buys nothing else. The upstream's log and the chain
// judge.

// hostileWire is one client wire as a hostile test drives it.
type hostileWire struct {
	name, path string
	// body is a one-message request for model; extra is more fields
	// (",..." or "").
	body func(model, text, extra string) string
	// refused asserts the wire's error shape: status, and for chat the
	// OpenAI code, for messages Anthropic's error type.
	refused func(t *testing.T, status int, b []byte, wantStatus int, code string)
}

var hostileWires = []hostileWire{
	{name: "chat", path: "/chat/completions",
		body: func(model, text, extra string) string {
			return `{"model":"` + model + `","messages":[{"role":"user","content":"` + text + `"}]` + extra + `}`
		},
		refused: func(t *testing.T, status int, b []byte, want int, code string) {
			t.Helper()
			if status != want || (code != "" && gjson.GetBytes(b, "error.code").Str != code) || gjson.GetBytes(b, "error.message").Str == "" {
				t.Errorf("chat: %d %s, want %d %s in OpenAI's error shape", status, b, want, code)
			}
		}},
	{name: "messages", path: "/messages",
		body: func(model, text, extra string) string {
			return `{"model":"` + model + `","max_tokens":64,"messages":[{"role":"user","content":"` + text + `"}]` + extra + `}`
		},
		refused: func(t *testing.T, status int, b []byte, want int, code string) {
			t.Helper()
			typ := "invalid_request_error"
			if want == http.StatusPaymentRequired {
				typ = "billing_error"
			}
			if status != want || gjson.GetBytes(b, "type").Str != "error" || gjson.GetBytes(b, "error.type").Str != typ ||
				gjson.GetBytes(b, "error.message").Str == "" || gjson.GetBytes(b, "error.code").Exists() {
				t.Errorf("messages: %d %s, want %d %s in Anthropic's error shape (for %s)", status, b, want, typ, code)
			}
		}},
}

// clientPost sends body to url through client with the Anthropic version
// header (the chat wire ignores it) and header pairs.
func clientPost(t *testing.T, client *http.Client, url, body string, headers ...string) (*http.Response, []byte) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("anthropic-version", "2023-06-01")
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	res, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res, b
}

// A paid per-call model with limits, tools.hosted: refuse, paid for by the
// paying transport: a duplicate key, a hosted (server) tool and an input
// over the limit are 400s in each wire's shape that reach no upstream and
// cost nothing; a max_tokens over the model's limit is capped at the
// upstream (as Responses' max_output_tokens is). The payer pays for the
// calls served only.
func TestWireHostileRefusalsAreNeverPaid(t *testing.T) {
	c := devChain(t)
	up := startFake(t)
	mc := exampleModel(t, "gpt-4.1-mini", up)
	lim := mc.Limits
	st, err := evm.NewSettler(context.Background(), c.Client, c.RelayerKey)
	if err != nil {
		t.Fatal(err)
	}
	cfg := gateway.Config{Models: []gateway.ModelConfig{mc}, Tools: gateway.ToolsConfig{Hosted: "refuse"},
		Payments: gateway.PaymentsConfig{PayTo: payTo, Networks: []string{c.Network.CAIP2}, Settle: "after"}}
	ts := startServer(t, cfg, gateway.Options{Networks: []*x402.Network{c.Network}, Settler: st, Ready: st.Ready,
		Getenv: func(k string) string { return map[string]string{"OPENAI_API_KEY": "sk-test"}[k] }})
	var settled []*payer.Settlement
	tr, from := payingTransport(t, 10*atomics, &settled)
	client := &http.Client{Transport: tr}
	before := tokenBalance(t, c, from)
	over := strings.Repeat("x", int(lim.MaxInputTokens)*4+8)
	const m = "gpt-4.1-mini"
	refusals := map[string][]struct{ name, body, code string }{
		"chat": {
			{"duplicate key", `{"model":"` + m + `","messages":[{"role":"user","content":"hi"}],"model":"gpt-5"}`, "duplicate_key"},
			{"nested duplicate key", `{"model":"` + m + `","messages":[{"role":"user","content":"hi","content":"other"}]}`, "duplicate_key"},
			{"hosted tool", hostileWires[0].body(m, "hi", `,"tools":[{"type":"web_search_preview"}]`), "unsupported_value"},
			{"web_search_options", hostileWires[0].body(m, "hi", `,"web_search_options":{}`), "unsupported_value"},
			{"input over the limit", hostileWires[0].body(m, over, ""), "input_above_limit"},
		},
		"messages": {
			{"duplicate key", `{"model":"` + m + `","max_tokens":64,"max_tokens":128000,"messages":[{"role":"user","content":"hi"}]}`, "duplicate_key"},
			{"web_search", hostileWires[1].body(m, "hi", `,"tools":[{"type":"web_search_20250305","name":"web_search","max_uses":3}]`), "hosted"},
			{"web_fetch", hostileWires[1].body(m, "hi", `,"tools":[{"type":"web_fetch_20250910","name":"web_fetch"}]`), "hosted"},
			{"code_execution", hostileWires[1].body(m, "hi", `,"tools":[{"type":"code_execution_20250825","name":"code_execution"}]`), "hosted"},
			{"input over the limit", hostileWires[1].body(m, over, ""), "input_above_limit"},
		},
	}
	for _, w := range hostileWires {
		t.Run(w.name, func(t *testing.T) {
			for _, c := range refusals[w.name] {
				res, b := clientPost(t, client, ts.URL+w.path, c.body)
				if res.Header.Get(x402.HeaderPaymentResponse) != "" {
					t.Errorf("%s: a receipt on a refusal", c.name)
				}
				w.refused(t, res.StatusCode, b, http.StatusBadRequest, c.code)
			}
			if got := upstreamBodies(up); len(got) != 0 {
				t.Fatalf("refused requests reached the upstream: %q", got)
			}
		})
	}
	// Over the model's output limit: served, capped at the upstream.
	for _, body := range []string{hostileWires[0].body(m, "hi", `,"max_completion_tokens":100000000`),
		hostileWires[0].body(m, "hi", `,"max_tokens":100000000`),
		`{"model":"` + m + `","max_tokens":128000,"messages":[{"role":"user","content":"hi"}]}`} {
		path := hostileWires[0].path
		if strings.Contains(body, `"max_tokens":128000`) {
			path = hostileWires[1].path
		}
		if res, b := clientPost(t, client, ts.URL+path, body); res.StatusCode != http.StatusOK {
			t.Fatalf("%s over the output limit: %d %s", path, res.StatusCode, b)
		}
	}
	got := upstreamBodies(up)
	if len(got) != 3 {
		t.Fatalf("upstream requests %q, want the 3 calls served", got)
	}
	for i, sent := range got {
		if n := gjson.Get(sent, "max_output_tokens"); !n.Exists() || n.Int() > lim.MaxOutputTokens {
			t.Errorf("call %d: max_output_tokens %s, limit %d", i, n.Raw, lim.MaxOutputTokens)
		}
	}
	settledBalances(t, c)
	charged := new(big.Int)
	for _, s := range settled {
		if s.Charged != nil {
			charged.Add(charged, s.Charged)
		}
	}
	if spent := new(big.Int).Sub(before, tokenBalance(t, c, from)); len(settled) != 3 || spent.Cmp(charged) != 0 || spent.Sign() <= 0 {
		t.Errorf("the payer spent %s in %d settlements charging %s, want 3 calls paid and the refusals free", spent, len(settled), charged)
	}
}

// Under tools.hosted: drop (the default), the hosted tools of either wire
// are removed before the provider sees the request and named in
// Farebox-Dropped-Tools; the client's own tools go on.
func TestWireHostileHostedToolsAreDropped(t *testing.T) {
	up := startFake(t)
	cfg := gateway.Config{Models: []gateway.ModelConfig{
		{Name: "gpt", Upstream: "openai", UpstreamConfig: endpoint("openai", up.URL(), "echo"), Price: "0"},
	}}
	ts := startServer(t, cfg, gateway.Options{})
	fn := `{"type":"function","function":{"name":"get_weather","parameters":{"type":"object"}}}`
	custom := `{"name":"get_weather","input_schema":{"type":"object"}}`
	for _, c := range []struct{ path, body, dropped string }{
		{"/chat/completions", hostileWires[0].body("gpt", "hi", `,"tools":[`+fn+`,{"type":"web_search_preview"}]`), "web_search_preview"},
		{"/chat/completions", hostileWires[0].body("gpt", "hi", `,"tools":[`+fn+`],"web_search_options":{}`), "web_search"},
		{"/messages", hostileWires[1].body("gpt", "hi", `,"tools":[`+custom+`,{"type":"web_search_20250305","name":"web_search"},`+
			`{"type":"web_fetch_20250910","name":"web_fetch"},{"type":"code_execution_20250825","name":"code_execution"}]`),
			"web_search_20250305"},
	} {
		res, b := clientPost(t, http.DefaultClient, ts.URL+c.path, c.body)
		if res.StatusCode != http.StatusOK || !strings.Contains(res.Header.Get("Farebox-Dropped-Tools"), c.dropped) {
			t.Errorf("%s: %d, Farebox-Dropped-Tools %q, want %s named: %s", c.path, res.StatusCode, res.Header.Get("Farebox-Dropped-Tools"), c.dropped, b)
		}
	}
	got := upstreamBodies(up)
	if len(got) != 3 {
		t.Fatalf("upstream requests %q", got)
	}
	for i, sent := range got {
		for _, never := range []string{"web_search", "web_fetch", "code_execution"} {
			if strings.Contains(sent, never) {
				t.Errorf("call %d: %s reached the upstream: %s", i, never, sent)
			}
		}
		if gjson.Get(sent, `tools.#(name=="get_weather")`).Raw == "" {
			t.Errorf("call %d: the client's own tool is gone: %s", i, sent)
		}
	}
}
