package gateway_test

import (
	"context"
	"encoding/json"
	"github.com/farebox/farebox/internal/testkit/inprocess"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/farebox/farebox/gateway"
	"github.com/farebox/farebox/upstream/scripted"
	"github.com/farebox/farebox/x402"
	"github.com/farebox/farebox/x402/payer"
	"github.com/tidwall/gjson"
)

// adminPayer is one line of GET /admin/api/payers.
type adminPayer struct {
	Payer    string `json:"payer"`
	Settled  string `json:"settled"`
	Failed   string `json:"failed"`
	Owed     string `json:"owed"`
	Forgiven string `json:"forgiven"`
	Debts    []struct {
		Amount int64  `json:"amount"`
		Reason string `json:"reason"`
		Model  string `json:"model"`
	} `json:"debts"`
}

// adminPayerOf reads the payers list and returns who's line (nil: not listed).
func adminPayerOf(t *testing.T, root string, who common.Address) *adminPayer {
	t.Helper()
	status, _, b := do(t, "GET", root+"/admin/api/payers", nil, "Authorization", "Bearer "+adminToken)
	var res struct {
		Payers []adminPayer `json:"payers"`
	}
	if status != http.StatusOK || json.Unmarshal(b, &res) != nil {
		t.Fatalf("payers: %d %s", status, b)
	}
	for _, p := range res.Payers {
		if p.Payer == strings.ToLower(who.Hex()) {
			return &p
		}
	}
	return nil
}

// A payer is served (200 with a successful receipt, the transfer
// broadcast) and then empties its balance with a transaction mined before
// farebox's transfer, which fails on chain. The operator sees the payer
// owe exactly the failed transfer; the payer's next call is refused for
// it; forgiving answers that amount, clears the debt and writes it off in
// the books (not revenue: settled and margin count only what was mined);
// the payer's next call is then served and settled on chain. A second
// forgive forgives 0.
func TestAdminForgivesARealDebt(t *testing.T) {
	a := sharedAnvil(t)
	relayer, err := a.NewRelayer(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	pc := usdcPayments(a)
	pc.Settler = "chain"
	pc.Chain = gateway.ChainConfig{RPCURL: a.RPCURL, RelayerKeyEnv: relayerEnv}
	env := map[string]string{relayerEnv: hexutil.Encode(crypto.FromECDSA(relayer)), "FAREBOX_ADMIN_TOKEN": adminToken}
	m := &countingModel{inner: scripted.New(scripted.Options{})}
	cfg := gateway.Config{Models: []gateway.ModelConfig{{Name: usdcModel, Upstream: inprocess.Kind, UpstreamConfig: inprocess.Use(m), Price: price}}, Payments: pc,
		Admin: gateway.AdminConfig{TokenEnv: "FAREBOX_ADMIN_TOKEN"}}
	ts := startServer(t, cfg, gateway.Options{Getenv: func(k string) string { return env[k] }})
	f := &usdcFarebox{testServer: ts, a: a, model: m, payTo: common.HexToAddress(pc.PayTo)}
	root := strings.TrimSuffix(f.URL, "/v1")
	bearer := []string{"Authorization", "Bearer " + adminToken}
	key, from := fundedPayer(t, f, atomics)
	req := f.offer(t, 2)
	body := `{"model":"` + usdcModel + `","input":"serve me on credit"}`
	ctx := context.Background()

	rpc := manualMining(t, a)
	name, value, err := payer.NewSigner(key).PaymentHeader(req, 2)
	if err != nil {
		t.Fatal(err)
	}
	res, b := postBounded(t, f.URL+"/responses", body, name, value)
	if rc, err := x402.DecodeReceipt(res.Header.Get(x402.HeaderPaymentResponse)); res.StatusCode != 200 || err != nil || !rc.Success {
		t.Fatalf("the served call: %d %s, receipt %+v %v", res.StatusCode, b, rc, err)
	}
	// Served; its transfer waits in the pool. The payer outbids it with a
	// transfer of everything it holds, and the block carries both.
	if err := a.Client.SendTransaction(ctx, drainTx(t, f, key, from, atomics)); err != nil {
		t.Fatal(err)
	}
	if err := rpc.CallContext(ctx, nil, "evm_mine"); err != nil {
		t.Fatal(err)
	}
	if err := rpc.CallContext(ctx, nil, "evm_setAutomine", true); err != nil {
		t.Fatal(err)
	}
	var p *adminPayer
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(50 * time.Millisecond) {
		if p = adminPayerOf(t, root, from); p != nil && p.Owed != "0" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no debt listed for the payer: %+v\n%s", p, grepLines(ts.logs.String(), "settle"))
		}
	}
	if p.Owed != price || len(p.Debts) != 1 || p.Debts[0].Amount != atomics || p.Debts[0].Reason == "" || p.Debts[0].Model != usdcModel ||
		p.Failed != price || p.Settled != "0" {
		t.Fatalf("the payer's line: %+v, want it to owe the failed transfer, %s", p, price)
	}
	if paid := usdcBalance(t, a, f.payTo); paid.Sign() != 0 {
		t.Fatalf("payTo received %s from the failed transfer", paid)
	}

	// Funded again, the debtor is still refused, for its debt.
	if err := a.Fund(ctx, from, atomics); err != nil {
		t.Fatal(err)
	}
	pay := func() (*http.Response, []byte) {
		name, value, err := payer.NewSigner(key).PaymentHeader(req, 2)
		if err != nil {
			t.Fatal(err)
		}
		return postBounded(t, f.URL+"/responses", body, name, value)
	}
	if res, b := pay(); res.StatusCode != http.StatusPaymentRequired || gjson.GetBytes(b, "error.code").String() != x402.ReasonInsufficientFunds ||
		!strings.Contains(string(b), "earlier payment") {
		t.Fatalf("the debtor's next call: %d %s, want a 402 for its debt", res.StatusCode, b)
	}
	runs := m.calls.Load()

	forgive := func() (string, int) {
		t.Helper()
		status, _, b := do(t, "POST", root+"/admin/api/debts/"+from.Hex()+"/forgive", nil, bearer...)
		var out struct {
			Payer    string `json:"payer"`
			Forgiven string `json:"forgiven"`
			Debts    int    `json:"debts"`
		}
		if status != http.StatusOK || json.Unmarshal(b, &out) != nil || out.Payer != strings.ToLower(from.Hex()) {
			t.Fatalf("forgive: %d %s", status, b)
		}
		return out.Forgiven, out.Debts
	}
	if got, n := forgive(); got != price || n != 1 {
		t.Fatalf("forgive answered %s for %d debts, want %s for 1", got, n, price)
	}
	if p := adminPayerOf(t, root, from); p == nil || p.Owed != "0" || len(p.Debts) != 0 || p.Forgiven != price || p.Failed != price {
		t.Fatalf("after forgiving: %+v, want nothing owed and %s forgiven", p, price)
	}

	// Forgiven, the payer is served again and pays on chain.
	if res, b := pay(); res.StatusCode != 200 {
		t.Fatalf("the forgiven payer's next call: %d %s", res.StatusCode, b)
	}
	if m.calls.Load() != runs+1 {
		t.Errorf("the model ran %d times after forgiving, want once", m.calls.Load()-runs)
	}
	waitBalance(t, a, f.payTo, atomics)
	if left := usdcBalance(t, a, from); left.Sign() != 0 {
		t.Errorf("the payer holds %s after paying its call, want 0", left)
	}

	// The books: one call settled, one failed and written off; the margin
	// counts only the mined one.
	var sum struct {
		Models map[string]struct {
			Settled, Failed, Forgiven, Margin string
		} `json:"models"`
	}
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		status, _, b := do(t, "GET", root+"/admin/api/summary", nil, bearer...)
		if status != http.StatusOK || json.Unmarshal(b, &sum) != nil {
			t.Fatalf("summary: %d %s", status, b)
		}
		if sum.Models[usdcModel].Settled == price || time.Now().After(deadline) {
			break
		}
	}
	if got := sum.Models[usdcModel]; got.Settled != price || got.Failed != price || got.Forgiven != price || got.Margin != price {
		t.Errorf("summary of %s: %+v, want %s settled, failed, forgiven and margin", usdcModel, got, price)
	}
	if got, n := forgive(); got != "0" || n != 0 {
		t.Errorf("a second forgive answered %s for %d debts, want 0", got, n)
	}
	if p := adminPayerOf(t, root, from); p == nil || p.Forgiven != price {
		t.Errorf("after a second forgive: %+v, want still %s forgiven once", p, price)
	}
}
