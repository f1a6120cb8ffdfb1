package gateway_test

import (
	"context"
	"github.com/farebox/farebox/upstream/chat"
	upopenai "github.com/farebox/farebox/upstream/openai"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/farebox/farebox/gateway"
	"github.com/farebox/farebox/internal/testkit/fakeupstream"
	"github.com/farebox/farebox/x402"
	"github.com/farebox/farebox/x402/evm"
	"github.com/farebox/farebox/x402/payer"
	"github.com/tidwall/gjson"
)

// startFake runs a fake upstream that logs every request reaching it.
func startFake(t *testing.T) *fakeupstream.Server {
	t.Helper()
	up, err := fakeupstream.Start(fakeupstream.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { up.Close() })
	return up
}

// upstreamBodies are the bodies that reached up, oldest first.
func upstreamBodies(up *fakeupstream.Server) []string {
	var out []string
	for _, r := range up.Records() {
		out = append(out, string(r.Body))
	}
	return out
}

// What the operator's provider account must never see, judged by the
// upstream's own log: a shell environment read two ways (duplicate key),
// a file id, a moderation request, a client's raw safety_identifier and
// user. The requests that are refused never reach it at all.
func TestHostileRequestFieldsNeverReachTheProvider(t *testing.T) {
	up := startFake(t)
	cfg := gateway.Config{Models: []gateway.ModelConfig{
		{Name: "gpt", Upstream: "openai", UpstreamConfig: endpoint("openai", up.URL(), "echo"), Price: "0"},
	}}
	ts := startServer(t, cfg, gateway.Options{})
	refused := []struct{ name, body, code string }{
		{"the duplicate-key shell", `{"model":"gpt","input":"hi","tools":[{"type":"shell","environment":{"type":"local","type":"container_auto","file_ids":["file_1"]}}]}`, "duplicate_key"},
		{"an input_file by id", `{"model":"gpt","input":[{"role":"user","content":[{"type":"input_text","text":"read"},{"type":"input_file","file_id":"file-operators"}]}]}`, "file_id_not_supported"},
		{"an input_image by id", `{"model":"gpt","input":[{"role":"user","content":[{"type":"input_image","file_id":"file-operators"}]}]}`, "file_id_not_supported"},
	}
	for _, c := range refused {
		t.Run(c.name, func(t *testing.T) {
			res, body := post(t, ts.URL+"/responses", c.body)
			checkOpenAIError(t, res, body, 400, c.code)
		})
	}
	if got := upstreamBodies(up); len(got) != 0 {
		t.Fatalf("refused requests reached the upstream: %q", got)
	}

	res, body := post(t, ts.URL+"/responses", `{"model":"gpt","input":"hi","moderation":{"model":"omni-moderation-latest"},
		"safety_identifier":"client-chosen-id","user":"alice@example.com","prompt_cache_key":"shared-key",
		"tools":[{"type":"shell","environment":{"type":"local","container_id":"cntr_operators"}}]}`)
	if res.StatusCode != 200 {
		t.Fatalf("%d %s", res.StatusCode, body)
	}
	if gjson.GetBytes(body, "safety_identifier").Str != "client-chosen-id" {
		t.Errorf("the response echoes the client's own values: %s", body)
	}
	got := upstreamBodies(up)
	if len(got) != 1 {
		t.Fatalf("upstream requests %q", got)
	}
	sent := got[0]
	for _, never := range []string{"moderation", "client-chosen-id", "alice@example.com", "shared-key", "cntr_operators", "container_auto", "file-operators"} {
		if strings.Contains(sent, never) {
			t.Errorf("%s reached the upstream: %s", never, sent)
		}
	}
	if gjson.Get(sent, "user").Exists() {
		t.Errorf("user reached the upstream: %s", sent)
	}
	id := gjson.Get(sent, "safety_identifier").Str
	if !strings.HasPrefix(id, "fbu_") || !strings.HasPrefix(gjson.Get(sent, "prompt_cache_key").Str, "fbc_") {
		t.Errorf("the provider should see farebox's per-caller identifiers: %s", sent)
	}
	if env := gjson.Get(sent, "tools.0.environment").Raw; env != `{"type":"local"}` {
		t.Errorf("shell environment sent as %s", env)
	}
}

// The operator may let moderation through for a model.
func TestModerationPassesWhereTheOperatorAllowsIt(t *testing.T) {
	up := startFake(t)
	cfg := gateway.Config{Models: []gateway.ModelConfig{
		{Name: "gpt", Upstream: "openai", UpstreamConfig: endpoint("openai", up.URL(), "echo"), Price: "0", Limits: &gateway.ModelLimits{Moderation: true}},
	}}
	ts := startServer(t, cfg, gateway.Options{})
	if res, body := post(t, ts.URL+"/responses", `{"model":"gpt","input":"hi","moderation":{"model":"omni-moderation-latest"}}`); res.StatusCode != 200 {
		t.Fatalf("%d %s", res.StatusCode, body)
	}
	if got := upstreamBodies(up); len(got) != 1 || !strings.Contains(got[0], `"moderation":{"model":"omni-moderation-latest"}`) {
		t.Fatalf("upstream bodies %q", got)
	}
}

// exampleModel is the example config's model named name, in front of up.
func exampleModel(t *testing.T, name string, up *fakeupstream.Server) gateway.ModelConfig {
	t.Helper()
	c, err := gateway.LoadConfig("../farebox.example.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for _, mc := range c.Models {
		if mc.Name == name {
			switch k := mc.UpstreamConfig.(type) {
			case *upopenai.Settings:
				k.BaseURL = up.URL()
			case *chat.Settings:
				k.BaseURL = up.URL()
			}
			return mc
		}
	}
	t.Fatalf("no model %s in the example config", name)
	return gateway.ModelConfig{}
}

// A per-call model of the example config bounds what a paid call asks of
// the upstream: max_output_tokens always sent and at most the limit, a
// reasoning effort among the allowed ones, and an input over the limit
// refused before anything is paid or sent. The provider sees the payer
// as one stable end user that is not its address.
func TestHostilePerCallRequestIsBoundedByTheModelsLimits(t *testing.T) {
	c := devChain(t)
	up := startFake(t)
	mc := exampleModel(t, "gpt-4.1-mini", up)
	lim := mc.Limits
	if mc.Price == "" || lim == nil || lim.MaxOutputTokens == 0 || lim.MaxInputTokens == 0 {
		t.Fatalf("the example's per-call model has no limits: %+v", mc)
	}
	st, err := evm.NewSettler(context.Background(), c.Client, c.RelayerKey)
	if err != nil {
		t.Fatal(err)
	}
	cfg := gateway.Config{Models: []gateway.ModelConfig{mc},
		Payments: gateway.PaymentsConfig{PayTo: payTo, Networks: []string{c.Network.CAIP2}, Settle: "after"}}
	ts := startServer(t, cfg, gateway.Options{Networks: []*x402.Network{c.Network}, Settler: st, Ready: st.Ready,
		Getenv: func(k string) string { return map[string]string{"OPENAI_API_KEY": "sk-test"}[k] }})
	reg, err := x402.NewRegistry(c.Network)
	if err != nil {
		t.Fatal(err)
	}
	receipts := 0
	tr := payer.NewTransport(payer.NewSigner(c.PayerKey), payer.WithNetworks(reg), payer.WithPayTo(common.HexToAddress(payTo)),
		payer.OnReceipt(func(*x402.Receipt) { receipts++ }))
	client := &http.Client{Transport: tr, Timeout: 30 * time.Second}
	pay := func(body string) (int, string) {
		t.Helper()
		res, err := client.Post(ts.URL+"/responses", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res.StatusCode, string(b)
	}

	for _, body := range []string{
		`{"model":"gpt-4.1-mini","input":"hi","reasoning":{"effort":"xhigh","summary":"detailed"},"text":{"verbosity":"high"},"service_tier":"auto"}`,
		`{"model":"gpt-4.1-mini","input":"hi","max_output_tokens":100000000,"reasoning":{"effort":"high"}}`,
		`{"model":"gpt-4.1-mini","input":"hi","max_output_tokens":16,"reasoning":{"effort":"minimal"}}`,
	} {
		if status, b := pay(body); status != 200 {
			t.Fatalf("%d %s", status, b)
		}
	}
	got := upstreamBodies(up)
	if len(got) != 3 {
		t.Fatalf("upstream requests %q", got)
	}
	var ids []string
	for i, sent := range got {
		n := gjson.Get(sent, "max_output_tokens")
		if !n.Exists() || n.Int() > lim.MaxOutputTokens {
			t.Errorf("call %d: max_output_tokens %s, limit %d: %s", i, n.Raw, lim.MaxOutputTokens, sent)
		}
		if e := gjson.Get(sent, "reasoning.effort").Str; !contains(lim.ReasoningEfforts, e) {
			t.Errorf("call %d: effort %q is not among %v", i, e, lim.ReasoningEfforts)
		}
		if v := gjson.Get(sent, "text.verbosity").Str; v == "high" {
			t.Errorf("call %d: verbosity %q over %s", i, v, lim.MaxVerbosity)
		}
		if tier := gjson.Get(sent, "service_tier").Str; tier != "" && !contains(lim.ServiceTiers, tier) {
			t.Errorf("call %d: service tier %q is not among %v", i, tier, lim.ServiceTiers)
		}
		id := gjson.Get(sent, "safety_identifier").Str
		if !strings.HasPrefix(id, "fbu_") || strings.Contains(strings.ToLower(sent), strings.ToLower(c.Payer.Hex()[2:])) {
			t.Errorf("call %d: safety_identifier %q", i, id)
		}
		ids = append(ids, id)
	}
	if ids[0] != ids[1] || ids[1] != ids[2] {
		t.Errorf("one payer, several identifiers: %v", ids)
	}
	if n := gjson.Get(got[2], "max_output_tokens").Int(); n != 16 {
		t.Errorf("a client's smaller max_output_tokens is kept: %d", n)
	}

	paidBefore := receipts
	over := strings.Repeat("x", int(lim.MaxInputTokens)*4+8)
	status, b := pay(`{"model":"gpt-4.1-mini","input":"` + over + `"}`)
	if status != 400 || gjson.Get(b, "error.code").Str != "input_above_limit" || gjson.Get(b, "error.param").Str != "input" {
		t.Fatalf("an input over the limit: %d %s", status, b)
	}
	if !strings.Contains(gjson.Get(b, "error.message").Str, strconv.FormatInt(lim.MaxInputTokens, 10)) {
		t.Errorf("the error should name the limit: %s", b)
	}
	if len(upstreamBodies(up)) != 3 || receipts != paidBefore {
		t.Errorf("an input over the limit reached the upstream or was paid for")
	}
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// A Chat upstream is bounded the same way: the cap is always sent (as
// max_completion_tokens), the effort lowered, and no end-user field at all.
func TestChatUpstreamGetsTheModelsLimits(t *testing.T) {
	up := startFake(t)
	cfg := gateway.Config{Models: []gateway.ModelConfig{
		{Name: "llama", Upstream: "chat", UpstreamConfig: endpoint("chat", up.URL(), "echo"), Price: "0",
			Limits: &gateway.ModelLimits{MaxOutputTokens: 300, ReasoningEfforts: []string{"low"}}},
	}}
	ts := startServer(t, cfg, gateway.Options{})
	for _, body := range []string{
		`{"model":"llama","input":"hi"}`,
		`{"model":"llama","input":"hi","max_output_tokens":100000,"reasoning":{"effort":"high"},"safety_identifier":"mine","user":"alice"}`,
	} {
		if res, b := post(t, ts.URL+"/responses", body); res.StatusCode != 200 {
			t.Fatalf("%d %s", res.StatusCode, b)
		}
	}
	got := upstreamBodies(up)
	if len(got) != 2 {
		t.Fatalf("upstream requests %q", got)
	}
	for i, sent := range got {
		if n := gjson.Get(sent, "max_completion_tokens"); n.Int() != 300 {
			t.Errorf("call %d: max_completion_tokens %s: %s", i, n.Raw, sent)
		}
		if e := gjson.Get(sent, "reasoning_effort"); e.Exists() && e.Str != "low" {
			t.Errorf("call %d: effort %s", i, e.Raw)
		}
		if strings.Contains(sent, "mine") || strings.Contains(sent, "alice") || strings.Contains(sent, "safety_identifier") {
			t.Errorf("call %d: an end-user field reached a chat server: %s", i, sent)
		}
	}
}
