package gateway_test

import (
	"context"
	"crypto/ecdsa"
	"math/big"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/farebox/farebox/gateway"
	"github.com/farebox/farebox/x402"
	"github.com/farebox/farebox/x402/payer"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	oresponses "github.com/openai/openai-go/v3/responses"
)

// Two fareboxes sell the same model at different prices; a third resells
// it with strategy cheapest, listing the dearer seller first. It buys from
// the cheaper while that one answers and from the other once it is killed;
// on chain, the reseller's wallet paid each seller exactly for the answers
// it delivered, and the user paid the reseller once per call.
func TestCheapestSellerIsBoughtFromAndFailsOver(t *testing.T) {
	a := sharedAnvil(t)
	const cheapPrice, dearPrice, resale = 1000, 1500, 3000
	seller := func(price string) (*testServer, common.Address) {
		pc, env := chainSettled(t, a)
		ts := startServer(t, gateway.Config{Models: []gateway.ModelConfig{{Name: sellerModel, Upstream: "scripted", Price: price}}, Payments: pc},
			gateway.Options{Getenv: func(k string) string { return env[k] }})
		return ts, common.HexToAddress(pc.PayTo)
	}
	cheap, cheapPayTo := seller("0.001")
	dear, dearPayTo := seller("0.0015")

	wallet, pc, env := resellerWallet(t, a, 20*dearPrice)
	resellerPayTo := common.HexToAddress(pc.PayTo)
	sup := x402Supplier
	reseller := startServer(t, gateway.Config{Payments: pc, Models: []gateway.ModelConfig{{Name: resoldModel, Price: "0.003",
		Suppliers: []gateway.SupplierConfig{sup("dear", dear.URL), sup("cheap", cheap.URL)},
		Routing:   gateway.RoutingConfig{Strategy: "cheapest", Circuit: gateway.CircuitConfig{Failures: 2, Cooldown: gateway.Duration(time.Hour)}}}}},
		gateway.Options{Getenv: func(k string) string { return env[k] }})

	userKey, _ := crypto.GenerateKey()
	user := crypto.PubkeyToAddress(userKey.PublicKey)
	if err := a.Fund(context.Background(), user, 20*resale); err != nil {
		t.Fatal(err)
	}
	cl := payingReseller(t, reseller, a.Network, userKey, resellerPayTo)
	accounts := map[string]common.Address{"user": user, "reseller": resellerPayTo, "wallet": wallet, "cheap": cheapPayTo, "dear": dearPayTo}
	balances := func() map[string]*big.Int {
		out := map[string]*big.Int{}
		for k, addr := range accounts {
			out[k] = usdcBalance(t, a, addr)
		}
		return out
	}
	before := balances()
	run := func(n int) {
		for i := range n {
			res, err := cl.Responses.New(context.Background(), oresponses.ResponseNewParams{Model: resoldModel, Input: userText("pooled resale")})
			if err != nil || !strings.Contains(res.OutputText(), "pooled resale") {
				t.Fatalf("call %d: %v %+v", i, err, res)
			}
		}
	}
	run(4)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	cheap.Shutdown(ctx) // the cheaper seller goes away mid-run
	cancel()
	run(4)
	after := balances()
	for who, want := range map[string]int64{"user": -8 * resale, "reseller": 8 * resale,
		"wallet": -4*cheapPrice - 4*dearPrice, "cheap": 4 * cheapPrice, "dear": 4 * dearPrice} {
		if got := new(big.Int).Sub(after[who], before[who]); got.Int64() != want {
			t.Errorf("%s moved %s, want %d", who, got, want)
		}
	}
}

// payingReseller is openai-go paying ts from key on network n.
func payingReseller(t *testing.T, ts *testServer, n *x402.Network, key *ecdsa.PrivateKey, payTo common.Address) *openai.Client {
	reg, err := x402.NewRegistry(n)
	if err != nil {
		t.Fatal(err)
	}
	tr := payer.NewTransport(payer.NewSigner(key), payer.WithNetworks(reg), payer.WithPayTo(payTo))
	return ts.client(t, option.WithHTTPClient(&http.Client{Transport: tr}))
}
