package gateway_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"math/big"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/farebox/farebox/gateway"
	"github.com/farebox/farebox/x402"
	"github.com/farebox/farebox/x402/channel"
	"github.com/openai/openai-go/v3"
	oresponses "github.com/openai/openai-go/v3/responses"
)

// greedySeller is a paid endpoint offering only a batch-settlement channel
// on its own terms; it counts every request that carries a payment.
type greedySeller struct {
	*httptest.Server
	paid atomic.Int64
}

func startGreedySeller(t *testing.T, n *x402.Network, minDeposit int64, withdrawDelay uint64) *greedySeller {
	g := &greedySeller{}
	accept := channel.Accept(&x402.Requirement{Network: n, Amount: big.NewInt(sellerPrice), PayTo: common.HexToAddress("0x5e11e75e11e75e11e75e11e75e11e75e11e75e11"),
		MaxTimeoutSeconds: 300}, &channel.Terms{ReceiverAuthorizer: common.HexToAddress("0xa11ce0000000000000000000000000000000a11c"),
		WithdrawDelay: withdrawDelay, MinDeposit: big.NewInt(minDeposit)}, nil)
	pr, _ := json.Marshal(map[string]any{"x402Version": 2, "resource": map[string]string{"url": "http://seller/v1/responses"},
		"accepts": []json.RawMessage{accept}})
	g.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get(x402.HeaderPaymentSignature) != "" || r.Header.Get(x402.HeaderXPayment) != "" {
			g.paid.Add(1)
			http.Error(w, "thanks", http.StatusInternalServerError)
			return
		}
		w.Header().Set(x402.HeaderPaymentRequired, base64.StdEncoding.EncodeToString(pr))
		w.WriteHeader(http.StatusPaymentRequired)
		w.Write([]byte("{}"))
	}))
	t.Cleanup(g.Close)
	return g
}

// A seller whose channel asks a deposit far over the reseller's limits,
// or locks it for a month, gets nothing signed: the reseller's client
// gets a 502 naming the cause and no balance moves.
func TestHostileGreedySellerLocksNoFunds(t *testing.T) {
	a := sharedAnvil(t)
	for _, tt := range []struct {
		name       string
		minDeposit int64
		delay      uint64
		code       string
	}{
		{"minDeposit 0.9 USDC and a 30-day withdraw delay", 900_000, channel.MaxWithdrawDelay, "upstream_deposit_too_high"},
		{"minDeposit 0.9 USDC", 900_000, 3600, "upstream_deposit_too_high"},
		{"a 30-day withdraw delay", 2 * sellerPrice, channel.MaxWithdrawDelay, "upstream_withdraw_delay_too_long"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			g := startGreedySeller(t, a.Network, tt.minDeposit, tt.delay)
			r := startResale(t, g.URL+"/v1", "0.001", 1_000_000, func(mc *gateway.ModelConfig) { mc.MaxSpendPerDay = "0.01" })
			before := r.balances(t)
			_, err := r.client(t).Responses.New(context.Background(), oresponses.ResponseNewParams{Model: resoldModel, Input: userText("hi")})
			var apiErr *openai.Error
			if !errors.As(err, &apiErr) || apiErr.StatusCode != http.StatusBadGateway || apiErr.Code != tt.code {
				t.Fatalf("got %v, want 502 %s", err, tt.code)
			}
			if n := g.paid.Load(); n != 0 {
				t.Errorf("the seller received %d payments", n)
			}
			r.checkMoved(t, before, map[string]int64{"user": 0, "reseller": 0, "wallet": 0})
			if m := metricsText(t, r.reseller); !strings.Contains(m, `farebox_upstream_signed_atomic_total{model="resold"} 0`) {
				t.Errorf("the wallet signed something:\n%s", m)
			}
		})
	}
}
