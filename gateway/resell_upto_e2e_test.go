package gateway_test

import (
	"context"
	"encoding/json"
	"math/big"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/farebox/farebox/gateway"
	"github.com/farebox/farebox/internal/testkit/chaintest"
	"github.com/farebox/farebox/upstream/resell"
	"github.com/farebox/farebox/x402"
	"github.com/farebox/farebox/x402/evm"
	"github.com/farebox/farebox/x402/evm/contracts"
	"github.com/farebox/farebox/x402/payer/payertest"
	"github.com/farebox/farebox/x402/upto"
	oresponses "github.com/openai/openai-go/v3/responses"
)

// A reseller buying from an upto seller (a 0.05 USDC maximum per call)
// through `upstream: x402`, with payments.chain.rpc_url set: its books'
// cost is what the chain proves each settlement moved. An honest seller
// charging 0.012345 and 0.02 is booked at exactly the wallet's balance
// drop; a seller settling 0.012345 but saying 0 is booked at the signed
// maxima, never at its word. Judged on chain, in the metric and in the
// books (the cost sampler's figure).
func TestResoldUptoSellerCostIsWhatTheChainMoved(t *testing.T) {
	ctx := context.Background()
	a := chaintest.StartAnvil(t)
	if err := contracts.InstallCanonical(ctx, a.Client.Client(), big.NewInt(chaintest.ChainID)); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		lie    bool
		moved  int64 // what the wallet pays on chain for the two calls
		booked int64 // the books' cost
	}{
		{"honest", false, 12_345 + 20_000, 12_345 + 20_000},
		{"receipts of 0", true, 2 * 12_345, 2 * 50_000},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rk, err := a.NewRelayer(ctx)
			if err != nil {
				t.Fatal(err)
			}
			relayer, err := evm.NewTransactor(ctx, a.Client, rk)
			if err != nil {
				t.Fatal(err)
			}
			charges := payertest.Charges(12_345, 20_000)
			if tc.lie {
				charges = payertest.Charges(12_345)
			}
			shop, srv := payertest.NewShop(t, a.Network, 50_000, charges)
			shop.Schemes, shop.LieCharge = []string{upto.Scheme}, tc.lie
			shop.OnChain(relayer, a.Client)
			wallet, pc, env := resellerWallet(t, a, 1_000_000)
			env["FAREBOX_ADMIN_TOKEN"] = adminToken
			reseller := startServer(t, gateway.Config{Admin: gateway.AdminConfig{TokenEnv: "FAREBOX_ADMIN_TOKEN"}, Payments: pc,
				Models: []gateway.ModelConfig{{Name: resoldModel, Upstream: "x402", Price: "0.1", UpstreamConfig: &resell.Settings{
					BaseURL: srv.URL + "/v1", UpstreamModel: "metered", PayerKeyEnv: "RESELLER_WALLET_KEY", MaxUpstreamPrice: "0.05"}}}},
				gateway.Options{Getenv: func(k string) string { return env[k] }})
			userKey, _ := crypto.GenerateKey()
			if err := a.Fund(ctx, crypto.PubkeyToAddress(userKey.PublicKey), 1_000_000); err != nil {
				t.Fatal(err)
			}
			cl := payingReseller(t, reseller, a.Network, userKey, common.HexToAddress(pc.PayTo))
			before := usdcBalance(t, a, wallet)
			for i := range 2 {
				if _, err := cl.Responses.New(ctx, oresponses.ResponseNewParams{Model: resoldModel, Input: userText("metered")}); err != nil {
					t.Fatalf("call %d: %v (the seller refused %v)", i, err, shop.Refused)
				}
			}
			if moved := new(big.Int).Sub(before, usdcBalance(t, a, wallet)).Int64(); moved != tc.moved {
				t.Fatalf("the wallet paid %d on chain, want %d", moved, tc.moved)
			}
			metric := `farebox_upstream_paid_atomic_total{model="` + resoldModel + `"} ` + big.NewInt(tc.booked).String()
			cost := x402.FormatUSDC(big.NewInt(tc.booked))
			// The cost is booked off the answer's path and sampled into the
			// books every 10 s: nothing here to await but the figures.
			var books supplierBooks
			for deadline := time.Now().Add(40 * time.Second); ; {
				m := metricsText(t, reseller)
				status, _, b := do(t, "GET", strings.TrimSuffix(reseller.URL, "/v1")+"/admin/api/summary", nil, "Authorization", "Bearer "+adminToken)
				if status != http.StatusOK || json.Unmarshal(b, &books) != nil {
					t.Fatalf("summary: %d %s", status, b)
				}
				if strings.Contains(m, metric) && books.Models[resoldModel].Cost == cost {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("want %s and the books' cost %s; metrics:\n%s\nbooks: %s", metric, cost, grepLines(m, "farebox_upstream_"), b)
				}
				time.Sleep(100 * time.Millisecond)
			}
		})
	}
}
