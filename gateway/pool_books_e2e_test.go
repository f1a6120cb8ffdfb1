package gateway_test

import (
	"context"
	"encoding/json"
	"math/big"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/farebox/farebox/gateway"
	"github.com/farebox/farebox/internal/testkit/fakeupstream"
	"github.com/farebox/farebox/x402"
	"github.com/farebox/farebox/x402/evm"
	oresponses "github.com/openai/openai-go/v3/responses"
)

// supplierBooks is the part of GET /admin/api/summary a pooled model's
// operator reads.
type supplierBooks struct {
	Models map[string]struct {
		Calls     int64  `json:"calls"`
		Settled   string `json:"settled"`
		Cost      string `json:"cost"`
		Margin    string `json:"margin"`
		Suppliers map[string]struct {
			Calls     int64  `json:"calls"`
			PaidCalls int64  `json:"paid_calls"`
			Charged   string `json:"charged"`
			Cost      string `json:"cost"`
		} `json:"suppliers"`
	} `json:"models"`
}

// TestPaidPoolBooksSupplierAndCost: a paid pool whose first supplier
// fails books each call under the supplier that served it, with that
// supplier's cost per million tokens from the call's usage (the failed
// attempt's per-call cost is not booked), and the model's margin is what
// settled on chain less that cost; export.csv has the supplier's lines.
func TestPaidPoolBooksSupplierAndCost(t *testing.T) {
	c := devChain(t)
	up, err := fakeupstream.Start(fakeupstream.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer up.Close()
	st, err := evm.NewSettler(context.Background(), c.Client, c.RelayerKey)
	if err != nil {
		t.Fatal(err)
	}
	cfg := paidConfig(c, "after")
	cfg.Admin.TokenEnv = "FAREBOX_ADMIN_TOKEN"
	cfg.Models = []gateway.ModelConfig{{Name: pooled, Price: price,
		Suppliers: []gateway.SupplierConfig{
			{Name: "failing", Upstream: "chat", UpstreamConfig: endpoint("chat", up.URL(), "status:500"), Cost: gateway.CostConfig{PerCall: "0.0005"}},
			{Name: "healthy", Upstream: "openai", UpstreamConfig: endpoint("openai", up.URL(), "echo"),
				Cost: gateway.CostConfig{InputPerMTok: "10", OutputPerMTok: "20"}},
		},
		Routing: gateway.RoutingConfig{Strategy: "ordered", Circuit: gateway.CircuitConfig{Failures: 100}}}}
	ts := startServer(t, cfg, gateway.Options{Networks: []*x402.Network{c.Network}, Settler: st, Ready: st.Ready,
		Getenv: func(n string) string { return map[string]string{"FAREBOX_ADMIN_TOKEN": adminToken}[n] }})
	var receipts []*x402.Receipt
	cl := payingClient(t, ts, c, &receipts)
	const calls = 3
	var cost int64 // atomic units: 10 per input token, 20 per output token
	for i := range calls {
		res, err := cl.Responses.New(context.Background(), oresponses.ResponseNewParams{Model: pooled, Input: userText("booked")})
		if err != nil || res.Usage.InputTokens == 0 {
			t.Fatalf("call %d: %v %+v", i, err, res)
		}
		cost += 10*res.Usage.InputTokens + 20*res.Usage.OutputTokens
	}
	root := strings.TrimSuffix(ts.URL, "/v1")
	bearer := []string{"Authorization", "Bearer " + adminToken}
	var sum supplierBooks
	for deadline := time.Now().Add(30 * time.Second); ; {
		status, _, b := do(t, "GET", root+"/admin/api/summary", nil, bearer...)
		if status != http.StatusOK || json.Unmarshal(b, &sum) != nil {
			t.Fatalf("summary: %d %s", status, b)
		}
		if sum.Models[pooled].Settled == "0.003" { // every transfer mined
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the transfers were never booked as settled: %s", b)
		}
		time.Sleep(20 * time.Millisecond)
	}
	f := sum.Models[pooled]
	wantCost, wantMargin := x402.FormatUSDC(big.NewInt(cost)), x402.FormatUSDC(big.NewInt(calls*atomics-cost))
	if f.Calls != calls || f.Cost != wantCost || f.Margin != wantMargin {
		t.Errorf("model figures %+v, want %d calls, cost %s, margin %s (settled less cost)", f, calls, wantCost, wantMargin)
	}
	h, ok := f.Suppliers["healthy"]
	if !ok || len(f.Suppliers) != 1 || h.Calls != calls || h.PaidCalls != calls || h.Charged != "0.003" || h.Cost != wantCost {
		t.Errorf("suppliers %+v, want healthy alone with %d paid calls charging 0.003 at cost %s", f.Suppliers, calls, wantCost)
	}
	status, _, b := do(t, "GET", root+"/admin/api/export.csv", nil, bearer...)
	if status != http.StatusOK || !strings.Contains(string(b), ","+pooled+",healthy,") {
		t.Errorf("export: %d, no line of supplier healthy\n%s", status, b)
	}
}
