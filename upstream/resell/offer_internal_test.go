package resell

import (
	"context"
	"io"
	"math/big"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/farebox/farebox/responses"
	"github.com/farebox/farebox/x402"
	"github.com/farebox/farebox/x402/payer"
	"github.com/tidwall/gjson"
)

// seen is one request a seller received.
type seen struct {
	method, path string
	header       http.Header
	body         []byte
}

// A seller that tells the cheapest probe apart could quote low to it and
// high to the calls it is then chosen for, or quote low in a token the
// wallet does not hold. The probe is sent as a streamed purchase is (the
// same method, path, headers and request keys), only the wallet's network
// and token count, and the price a purchase is then asked replaces the
// probe's at once: the seller is ranked by what it charges.
func TestHostileSellerCannotQuoteLowToTheProbe(t *testing.T) {
	usdc := x402.BaseSepolia
	otherToken := x402.NewNetwork(usdc.CAIP2, usdc.V1Name, usdc.ChainID, common.HexToAddress("0x00000000000000000000000000000000000000aa"), "Fake", "1")
	otherChain := x402.NewNetwork("", "", big.NewInt(1), usdc.Asset, "USD Coin", "2")
	offer := func(n *x402.Network, amount int64) *x402.Requirement {
		return &x402.Requirement{Scheme: "exact", Network: n, Amount: big.NewInt(amount), PayTo: common.HexToAddress("0x1"),
			MaxTimeoutSeconds: 60, Resource: "https://seller.example/v1/responses"}
	}
	var mu sync.Mutex
	var got []seen
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		mu.Lock()
		first := len(got) == 0
		got = append(got, seen{r.Method, r.URL.Path, r.Header.Clone(), body})
		mu.Unlock()
		reqs := []*x402.Requirement{offer(otherToken, 1), offer(otherChain, 1), offer(usdc, 5000)}
		if first { // the probe, if told apart: cheap
			reqs = []*x402.Requirement{offer(otherToken, 1), offer(otherChain, 1), offer(usdc, 100)}
		}
		w.Header().Set(x402.HeaderPaymentRequired, x402.PaymentRequiredHeader(reqs, "payment required"))
		w.WriteHeader(http.StatusPaymentRequired)
	}))
	defer srv.Close()
	reg, err := x402.NewRegistry(usdc)
	if err != nil {
		t.Fatal(err)
	}
	key, _ := crypto.GenerateKey()
	m, err := New(Config{BaseURL: srv.URL + "/v1", Model: "seller-model", Signer: payer.NewSigner(key), Networks: reg, MaxPrice: big.NewInt(1000)})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if p, err := m.Offer(ctx); err != nil || p.Int64() != 100 {
		t.Fatalf("the probe's price: %v %v, want 100 (the USDC offer on the wallet's network, not the 1 in another token or chain)", p, err)
	}
	req, perr := responses.Parse([]byte(`{"model":"resold","stream":true,"input":"what is the weather?"}`))
	if perr != nil {
		t.Fatal(perr)
	}
	if err := m.Respond(ctx, req, responses.NewEmitter(req, nil, responses.EmitterOptions{})); err == nil {
		t.Fatal("a purchase asked 5000 over max_upstream_price 1000 was made")
	}
	if p, err := m.Offer(ctx); err != nil || p.Int64() != 5000 {
		t.Errorf("after a purchase was asked 5000, the ranking price is %v %v", p, err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(got) != 2 {
		t.Fatalf("the seller saw %d requests, want the probe and the purchase", len(got))
	}
	probe, buy := got[0], got[1]
	if probe.method != buy.method || probe.path != buy.path {
		t.Errorf("probe %s %s, purchase %s %s", probe.method, probe.path, buy.method, buy.path)
	}
	for _, h := range []string{"Content-Type", "Accept", "User-Agent"} {
		if probe.header.Get(h) != buy.header.Get(h) {
			t.Errorf("%s: probe %q, purchase %q", h, probe.header.Get(h), buy.header.Get(h))
		}
	}
	for _, k := range []string{"model", "stream", "input", "store"} {
		if gjson.GetBytes(probe.body, k).Exists() != gjson.GetBytes(buy.body, k).Exists() || gjson.GetBytes(probe.body, k).Type != gjson.GetBytes(buy.body, k).Type {
			t.Errorf("request key %q: probe %s, purchase %s", k, gjson.GetBytes(probe.body, k).Raw, gjson.GetBytes(buy.body, k).Raw)
		}
	}
	if gjson.GetBytes(probe.body, "model").Str != gjson.GetBytes(buy.body, "model").Str {
		t.Errorf("probe model %s, purchase model %s", gjson.GetBytes(probe.body, "model").Raw, gjson.GetBytes(buy.body, "model").Raw)
	}
}
