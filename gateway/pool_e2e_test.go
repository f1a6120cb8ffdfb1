package gateway_test

import (
	"context"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/farebox/farebox/gateway"
	"github.com/farebox/farebox/internal/testkit/fakeupstream"
	"github.com/farebox/farebox/internal/testkit/redistest"
	"github.com/farebox/farebox/x402"
	"github.com/farebox/farebox/x402/evm"
	oresponses "github.com/openai/openai-go/v3/responses"
	"github.com/tidwall/gjson"
)

const pooled = "pooled"

// A paid model whose first supplier fails (500, refused connections, a
// hang past its first-byte timeout, 429): 20 paid calls are all answered
// by the second, the payer is charged exactly once per call on chain, and
// the failing supplier gets no more than failures + 1 calls.
func TestPaidPoolFailsOverAndChargesOnce(t *testing.T) {
	c := devChain(t)
	up, err := fakeupstream.Start(fakeupstream.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer up.Close()
	refusing, err := fakeupstream.RefusingURL()
	if err != nil {
		t.Fatal(err)
	}
	const failures = 3
	for _, tc := range []struct{ name, url, model string }{
		{"500", up.URL(), "status:500"},
		{"refused", refusing, "status:500+refused"},
		{"hangs", up.URL(), "status:timeout"},
		{"429", up.URL(), "status:429+retry_after=1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st, err := evm.NewSettler(context.Background(), c.Client, c.RelayerKey)
			if err != nil {
				t.Fatal(err)
			}
			cfg := paidConfig(c, "after")
			cfg.Models = []gateway.ModelConfig{{Name: pooled, Price: price,
				Suppliers: []gateway.SupplierConfig{
					{Name: "failing", Upstream: "chat", UpstreamConfig: endpoint("chat", tc.url, tc.model,
						gateway.UpstreamTimeouts{FirstByte: gateway.Duration(200 * time.Millisecond)})},
					{Name: "healthy", Upstream: "openai", UpstreamConfig: endpoint("openai", up.URL(), "echo+"+tc.name)},
				},
				Routing: gateway.RoutingConfig{Strategy: "ordered", Circuit: gateway.CircuitConfig{Failures: failures, Cooldown: gateway.Duration(time.Hour)}}}}
			ts := startServer(t, cfg, gateway.Options{Networks: []*x402.Network{c.Network}, Settler: st, Ready: st.Ready})
			res, _ := post(t, ts.URL+"/responses", `{"model":"`+pooled+`","input":"hi"}`)
			if got := gjson.Get(decodeHeader(t, res.Header.Get(x402.HeaderPaymentRequired)), "extensions.bazaar.info.input.body.model").Str; got != pooled {
				t.Errorf("the 402 declares bazaar discovery of model %q, want %q", got, pooled)
			}
			var receipts []*x402.Receipt
			cl := payingClient(t, ts, c, &receipts)
			payerBefore, payToBefore := tokenBalance(t, c, c.Payer), tokenBalance(t, c, common.HexToAddress(payTo))
			const calls = 20
			for i := range calls {
				if i%2 == 0 {
					res, err := cl.Responses.New(context.Background(), oresponses.ResponseNewParams{Model: pooled, Input: userText("pooled hello")})
					if err != nil || !strings.Contains(res.OutputText(), "pooled hello") {
						t.Fatalf("call %d: %v %+v", i, err, res)
					}
					continue
				}
				stream := cl.Responses.NewStreaming(context.Background(), oresponses.ResponseNewParams{Model: pooled, Input: userText("pooled stream")})
				var text string
				for stream.Next() {
					if ev := stream.Current(); ev.Type == "response.completed" {
						text = ev.Response.OutputText()
					}
				}
				if err := stream.Err(); err != nil || !strings.Contains(text, "pooled stream") {
					t.Fatalf("stream %d: %v %q", i, err, text)
				}
			}
			if got := received(up, "echo+"+tc.name); got != calls {
				t.Errorf("the healthy supplier answered %d of %d calls", got, calls)
			}
			if tc.url == up.URL() {
				if got := received(up, tc.model); got < 1 || got > failures+1 {
					t.Errorf("the failing supplier received %d requests, want 1 to %d", got, failures+1)
				}
			}
			want := big.NewInt(calls * atomics)
			if got := new(big.Int).Sub(payerBefore, tokenBalance(t, c, c.Payer)); got.Cmp(want) != 0 {
				t.Errorf("the payer paid %s, want %s (once per call)", got, want)
			}
			if got := new(big.Int).Sub(tokenBalance(t, c, common.HexToAddress(payTo)), payToBefore); got.Cmp(want) != 0 {
				t.Errorf("payTo received %s, want %s", got, want)
			}
			metrics := metricsText(t, ts)
			for _, want := range []string{`farebox_supplier_calls_total{model="pooled",outcome="ok",supplier="healthy"} 20`,
				`farebox_supplier_circuit_open{model="pooled",supplier="failing"} 1`,
				`farebox_supplier_circuit_open{model="pooled",supplier="healthy"} 0`} {
				if !strings.Contains(metrics, want) {
					t.Errorf("metrics lack %s", want)
				}
			}
			named := false
			for _, l := range strings.Split(ts.logs.String(), "\n") {
				if line := gjson.Parse(l); line.Get("msg").Str == "supplier call" && line.Get("supplier").Str == "healthy" && line.Get("model").Str == pooled {
					named = true
				}
			}
			if !named {
				t.Error("no supplier call log line names the supplier and the model")
			}
			if line := waitLog(t, ts, func(r gjson.Result) bool { return r.Get("charge").Str == "settled" }); line.Get("supplier").Str != "healthy" {
				t.Errorf("the paid call's request log line names supplier %q, want healthy", line.Get("supplier").Str)
			}
		})
	}
}

// received counts the requests up got for model.
func received(up *fakeupstream.Server, model string) int {
	n := 0
	for _, r := range up.Records() {
		if r.Model == model {
			n++
		}
	}
	return n
}

// While a pool fails over from a supplier that hangs before its first
// byte, a streaming client receives keep-alive comments, then the second
// supplier's whole answer and nothing of the first.
func TestKeepAlivesWhileAPoolFailsOver(t *testing.T) {
	up, err := fakeupstream.Start(fakeupstream.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer up.Close()
	cfg := gateway.Config{Keepalive: gateway.Duration(40 * time.Millisecond), Models: []gateway.ModelConfig{{Name: pooled, Price: "0",
		Suppliers: []gateway.SupplierConfig{
			{Name: "hangs", Upstream: "chat", UpstreamConfig: endpoint("chat", up.URL(), "status:timeout",
				gateway.UpstreamTimeouts{FirstByte: gateway.Duration(300 * time.Millisecond)})},
			{Name: "answers", Upstream: "chat", UpstreamConfig: endpoint("chat", up.URL(), "echo")},
		}}}}
	ts := startServer(t, cfg, gateway.Options{})
	res, body := post(t, ts.URL+"/responses", `{"model":"`+pooled+`","stream":true,"input":"after a failover"}`)
	if res.StatusCode != 200 {
		t.Fatalf("%d %s", res.StatusCode, body)
	}
	frames := strings.Split(strings.TrimSuffix(string(body), "\n\n"), "\n\n")
	if len(frames) == 0 || frames[0] != ": keep-alive" {
		t.Errorf("the stream does not open with a keep-alive while the first supplier hangs:\n%s", body)
	}
	if !strings.Contains(string(body), "response.completed") || strings.Contains(string(body), "response.failed") ||
		!strings.Contains(string(body), "after a failover") {
		t.Errorf("the answer is not the second supplier's whole answer:\n%s", body)
	}
	if got := received(up, "status:timeout"); got != 1 {
		t.Errorf("the hanging supplier received %d requests", got)
	}
}

// Two replicas sharing Redis share each supplier's circuit: the failures
// one sees open it for the other, so the failing supplier gets only
// `failures` calls across both.
func TestReplicasShareCircuitsThroughRedis(t *testing.T) {
	addr := redistest.Start(t)
	up, err := fakeupstream.Start(fakeupstream.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer up.Close()
	cfg := gateway.Config{Payments: gateway.PaymentsConfig{RedisURL: "redis://" + addr + "/0"},
		Models: []gateway.ModelConfig{{Name: pooled, Price: "0",
			Suppliers: []gateway.SupplierConfig{
				{Name: "failing", Upstream: "chat", UpstreamConfig: endpoint("chat", up.URL(), "status:500+replicas")},
				{Name: "healthy", Upstream: "chat", UpstreamConfig: endpoint("chat", up.URL(), "echo")},
			},
			Routing: gateway.RoutingConfig{Circuit: gateway.CircuitConfig{Failures: 3, Cooldown: gateway.Duration(time.Hour)}}}}}
	replicas := []*testServer{startServer(t, cfg, gateway.Options{}), startServer(t, cfg, gateway.Options{})}
	for i := range 20 {
		res, body := post(t, replicas[i%2].URL+"/responses", `{"model":"`+pooled+`","input":"shared circuit"}`)
		if res.StatusCode != 200 || !strings.Contains(string(body), "shared circuit") {
			t.Fatalf("call %d: %d %s", i, res.StatusCode, body)
		}
	}
	if got := received(up, "status:500+replicas"); got != 3 {
		t.Errorf("the failing supplier received %d requests across two replicas, want 3", got)
	}
}
