package gateway_test

import (
	"context"
	"encoding/json"
	"io"
	"math/big"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/farebox/farebox/gateway"
	"github.com/farebox/farebox/internal/testkit/fakeupstream"
	"github.com/farebox/farebox/x402"
	"github.com/farebox/farebox/x402/evm"
	oresponses "github.com/openai/openai-go/v3/responses"
)

// settledBooks is the part of GET /admin/api/summary that says what each
// supplier of a pooled model settled.
type settledBooks struct {
	Models map[string]struct {
		Settled      string `json:"settled"`
		SettledCalls int64  `json:"settled_calls"`
		Cost         string `json:"cost"`
		Margin       string `json:"margin"`
		Suppliers    map[string]struct {
			Calls        int64  `json:"calls"`
			Charged      string `json:"charged"`
			Settled      string `json:"settled"`
			SettledCalls int64  `json:"settled_calls"`
			Cost         string `json:"cost"`
			Margin       string `json:"margin"`
		} `json:"suppliers"`
	} `json:"models"`
}

// flakyUpstream is a Chat Completions upstream that fails (500) every
// request whose body contains fail and passes the others to up.
func flakyUpstream(t *testing.T, up *fakeupstream.Server, fail string) string {
	t.Helper()
	target, err := url.Parse(strings.TrimSuffix(up.URL(), "/v1"))
	if err != nil {
		t.Fatal(err)
	}
	proxy := httputil.NewSingleHostReverseProxy(target)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if strings.Contains(string(body), fail) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusInternalServerError)
			_, _ = w.Write([]byte(`{"error":{"message":"the supplier is down","type":"server_error"}}`))
			return
		}
		r.Body = io.NopCloser(strings.NewReader(string(body)))
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/v1"
}

// TestPaidPoolSettlesPerSupplier: a paid pool whose first supplier fails
// some calls (they fail over to the second) and answers the others books
// each mined transfer under the supplier that served its call, whether
// the transfer was mined before the model answered (settle before, confirm
// mined), possibly before or after (settle before, confirm broadcast) or
// alongside it (settle after), for JSON answers and a stream: each
// supplier's settled is what its calls charged, the suppliers' sum is the
// model's settled, which is payTo's gain on chain; each supplier's margin
// is its settled less its cost.
func TestPaidPoolSettlesPerSupplier(t *testing.T) {
	c := devChain(t)
	up, err := fakeupstream.Start(fakeupstream.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer up.Close()
	for _, tc := range []struct{ name, settle, confirm string }{
		{"after", "after", ""},
		{"before", "before", ""},
		{"before, mined first", "before", "mined"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st, err := evm.NewSettler(context.Background(), c.Client, c.RelayerKey)
			if err != nil {
				t.Fatal(err)
			}
			cfg := paidConfig(c, tc.settle)
			cfg.Payments.Confirm = tc.confirm
			cfg.Admin.TokenEnv = "FAREBOX_ADMIN_TOKEN"
			cfg.Models = []gateway.ModelConfig{{Name: pooled, Price: price,
				Suppliers: []gateway.SupplierConfig{
					{Name: "first", Upstream: "chat", UpstreamConfig: endpoint("chat", flakyUpstream(t, up, "failover"), "echo"),
						Cost: gateway.CostConfig{PerCall: "0.0002"}},
					{Name: "second", Upstream: "openai", UpstreamConfig: endpoint("openai", up.URL(), "echo"),
						Cost: gateway.CostConfig{PerCall: "0.0003"}},
				},
				Routing: gateway.RoutingConfig{Strategy: "ordered", Circuit: gateway.CircuitConfig{Failures: 100}}}}
			ts := startServer(t, cfg, gateway.Options{Networks: []*x402.Network{c.Network}, Settler: st, Ready: st.Ready,
				Getenv: func(n string) string { return map[string]string{"FAREBOX_ADMIN_TOKEN": adminToken}[n] }})
			var receipts []*x402.Receipt
			cl := payingClient(t, ts, c, &receipts)
			payToBefore := tokenBalance(t, c, common.HexToAddress(payTo))
			inputs := []string{"one", "failover two", "three", "failover four", "failover five", "failover streamed six"}
			for i, in := range inputs {
				if i == len(inputs)-1 {
					stream := cl.Responses.NewStreaming(context.Background(), oresponses.ResponseNewParams{Model: pooled, Input: userText(in)})
					var text string
					for stream.Next() {
						if ev := stream.Current(); ev.Type == "response.completed" {
							text = ev.Response.OutputText()
						}
					}
					if err := stream.Err(); err != nil || !strings.Contains(text, in) {
						t.Fatalf("stream %d: %v %q", i, err, text)
					}
					continue
				}
				res, err := cl.Responses.New(context.Background(), oresponses.ResponseNewParams{Model: pooled, Input: userText(in)})
				if err != nil || !strings.Contains(res.OutputText(), in) {
					t.Fatalf("call %d: %v %+v", i, err, res)
				}
			}
			gain := new(big.Int).Sub(tokenBalance(t, c, common.HexToAddress(payTo)), payToBefore)
			if want := big.NewInt(int64(len(inputs)) * atomics); gain.Cmp(want) != 0 {
				t.Fatalf("payTo gained %s on chain, want %s (once per call)", gain, want)
			}

			root := strings.TrimSuffix(ts.URL, "/v1")
			bearer := []string{"Authorization", "Bearer " + adminToken}
			var sum settledBooks
			for deadline := time.Now().Add(30 * time.Second); ; {
				status, _, b := do(t, "GET", root+"/admin/api/summary", nil, bearer...)
				if status != http.StatusOK || json.Unmarshal(b, &sum) != nil {
					t.Fatalf("summary: %d %s", status, b)
				}
				f := sum.Models[pooled]
				if f.SettledCalls == int64(len(inputs)) && f.Suppliers["first"].SettledCalls+f.Suppliers["second"].SettledCalls == int64(len(inputs)) {
					break // every transfer mined and attributed
				}
				if time.Now().After(deadline) {
					t.Fatalf("the transfers were never all booked per supplier: %s", b)
				}
				time.Sleep(20 * time.Millisecond)
			}
			f := sum.Models[pooled]
			first, second := f.Suppliers["first"], f.Suppliers["second"]
			if f.Settled != x402.FormatUSDC(gain) {
				t.Errorf("the model settled %s, payTo gained %s on chain", f.Settled, x402.FormatUSDC(gain))
			}
			if first.Calls != 2 || first.Charged != "0.002" || first.Settled != first.Charged || first.SettledCalls != 2 ||
				first.Cost != "0.0004" || first.Margin != "0.0016" {
				t.Errorf("first %+v; want 2 calls charging 0.002, all settled, cost 0.0004, margin 0.0016", first)
			}
			if second.Calls != 4 || second.Charged != "0.004" || second.Settled != second.Charged || second.SettledCalls != 4 ||
				second.Cost != "0.0012" || second.Margin != "0.0028" {
				t.Errorf("second %+v; want 4 calls (one streamed) charging 0.004, all settled, cost 0.0012, margin 0.0028", second)
			}
			if tc.confirm == "mined" {
				// Every transfer was mined before its model ran: each was booked
				// on the model, then moved to its supplier.
				if want := `farebox_settlement_events_total{event="attributed"} 6`; !strings.Contains(metricsText(t, ts), want) {
					t.Errorf("metrics lack %s", want)
				}
			}
			if f.Cost != "0.0016" || f.Margin != "0.0044" {
				t.Errorf("the model's cost %s and margin %s, want 0.0016 and 0.0044", f.Cost, f.Margin)
			}
		})
	}
}

// TestUptoPoolSettlesPerSupplier: a pooled model priced per token, paid
// with upto through the official client: its charge is settled after the
// answer, once the supplier is known, so each transfer is booked under the
// supplier that served its call (the first, or the second after a
// failover) at what its receipt charged, and the two sum to payTo's gain.
func TestUptoPoolSettlesPerSupplier(t *testing.T) {
	up, err := fakeupstream.Start(fakeupstream.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer up.Close()
	cfg, opts, c := meteredConfig(t, nil)
	p := meteredPrice
	cfg.Admin.TokenEnv = "FAREBOX_ADMIN_TOKEN"
	opts.Getenv = func(n string) string { return map[string]string{"FAREBOX_ADMIN_TOKEN": adminToken}[n] }
	cfg.Models = []gateway.ModelConfig{{Name: pooled, PricePerMTok: &p,
		Suppliers: []gateway.SupplierConfig{
			{Name: "first", Upstream: "chat", UpstreamConfig: endpoint("chat", flakyUpstream(t, up, "failover"), "echo")},
			{Name: "second", Upstream: "openai", UpstreamConfig: endpoint("openai", up.URL(), "echo")},
		},
		Routing: gateway.RoutingConfig{Strategy: "ordered", Circuit: gateway.CircuitConfig{Failures: 100}}}}
	ts := startServer(t, cfg, opts)
	key := freshPayer(t, c, 1_000_000, true)
	approvePermit2(t, c, key)
	receiver := common.HexToAddress(payTo)
	before := tokenBalance(t, c, receiver)
	charged := map[string]int64{}
	for _, tc := range []struct{ supplier, input string }{{"first", "metered one"}, {"second", "metered failover two"}} {
		paid := payUpto(t, ts, c, key, map[string]any{"model": pooled, "input": tc.input})
		if paid.Status != http.StatusOK || paid.Receipt == nil || !paid.Receipt.Success {
			t.Fatalf("%s: status %d, receipt %+v: %s", tc.input, paid.Status, paid.Receipt, paid.Body)
		}
		amount, ok := new(big.Int).SetString(paid.Receipt.Amount, 10)
		if !ok || amount.Sign() <= 0 {
			t.Fatalf("receipt amount %q", paid.Receipt.Amount)
		}
		charged[tc.supplier] = amount.Int64()
	}
	gain := new(big.Int).Sub(tokenBalance(t, c, receiver), before)
	if want := charged["first"] + charged["second"]; gain.Int64() != want {
		t.Fatalf("payTo gained %s on chain, the receipts charged %d", gain, want)
	}
	root := strings.TrimSuffix(ts.URL, "/v1")
	var sum settledBooks
	for deadline := time.Now().Add(30 * time.Second); ; {
		status, _, b := do(t, "GET", root+"/admin/api/summary", nil, "Authorization", "Bearer "+adminToken)
		if status != http.StatusOK || json.Unmarshal(b, &sum) != nil {
			t.Fatalf("summary: %d %s", status, b)
		}
		if sum.Models[pooled].SettledCalls == 2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the transfers were never booked as settled: %s", b)
		}
		time.Sleep(20 * time.Millisecond)
	}
	f := sum.Models[pooled]
	if f.Settled != x402.FormatUSDC(gain) {
		t.Errorf("the model settled %s, payTo gained %s", f.Settled, x402.FormatUSDC(gain))
	}
	for name, want := range charged {
		if got := f.Suppliers[name]; got.Settled != x402.FormatUSDC(big.NewInt(want)) || got.SettledCalls != 1 {
			t.Errorf("supplier %s: %+v, want 1 transfer settling %s", name, got, x402.FormatUSDC(big.NewInt(want)))
		}
	}
}
