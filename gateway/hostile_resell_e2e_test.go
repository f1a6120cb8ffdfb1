package gateway_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/farebox/farebox/upstream/resell"
	"io"
	"math/big"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/farebox/farebox/gateway"
	"github.com/farebox/farebox/x402"
	"github.com/farebox/farebox/x402/channel"
	"github.com/farebox/farebox/x402/payer"
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
// gets a 502 naming the cause and no balance moves: the terms are judged
// before the reseller commits to buy (and starts its client's transfer).
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
			r := startResale(t, g.URL+"/v1", "0.001", 1_000_000, func(mc *gateway.ModelConfig) { mc.UpstreamConfig.(*resell.Settings).MaxSpendPerDay = "0.01" })
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

// holdingProxy stands before a seller: it passes every request on, and
// holds the first paid answer (already settled by the seller) until the
// reseller gives the call up or release is closed.
type holdingProxy struct {
	*httptest.Server
	bought  chan struct{} // closed once the seller answered the first paid request
	release chan struct{}
	once    sync.Once
}

func startHoldingProxy(t *testing.T, seller string) *holdingProxy {
	p := &holdingProxy{bought: make(chan struct{}), release: make(chan struct{})}
	p.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		out, _ := http.NewRequestWithContext(context.WithoutCancel(r.Context()), r.Method, seller+r.URL.Path, bytes.NewReader(body))
		out.Header = r.Header.Clone()
		res, err := http.DefaultClient.Do(out)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if r.Header.Get(x402.HeaderPaymentSignature) != "" {
			first := false
			p.once.Do(func() { first = true; close(p.bought) })
			if first {
				select {
				case <-p.release:
				case <-r.Context().Done():
				}
			}
		}
		for k, v := range res.Header {
			w.Header()[k] = v
		}
		w.WriteHeader(res.StatusCode)
		w.Write(b)
	}))
	t.Cleanup(p.Close)
	return p
}

// A reseller's client that hangs up once the reseller bought the upstream
// answer, and then retries with the same payment, cannot make the
// operator's wallet pay its seller more than it paid: the purchase is
// owed once signed, its answer kept, and every retry gets that answer,
// streamed or not.
func TestHostileHangUpAfterResoldPurchase(t *testing.T) {
	for _, stream := range []bool{false, true} {
		t.Run(map[bool]string{false: "json", true: "stream"}[stream], func(t *testing.T) { hangUpAfterResoldPurchase(t, stream) })
	}
}

func hangUpAfterResoldPurchase(t *testing.T, stream bool) {
	a := sharedAnvil(t)
	pc, env := chainSettled(t, a)
	seller := startServer(t, gateway.Config{Models: []gateway.ModelConfig{{Name: sellerModel, Upstream: "scripted", Price: "0.001"}}, Payments: pc},
		gateway.Options{Getenv: func(k string) string { return env[k] }})
	proxy := startHoldingProxy(t, strings.TrimSuffix(seller.URL, "/v1"))
	r := startResale(t, proxy.URL+"/v1", "0.001", 10*sellerPrice)
	r.sellerPayTo = common.HexToAddress(pc.PayTo)
	before := r.balances(t)

	res, _ := post(t, r.reseller.URL+"/responses", `{"model":"`+resoldModel+`","input":"hi"}`)
	offers, err := x402.DecodePaymentRequired(res.Header.Get(x402.HeaderPaymentRequired))
	if err != nil || len(offers) == 0 {
		t.Fatalf("offers %v %v", offers, err)
	}
	amount, _ := new(big.Int).SetString(offers[0].Amount, 10)
	req := &x402.Requirement{Scheme: "exact", Network: a.Network, Amount: amount, PayTo: common.HexToAddress(offers[0].PayTo),
		MaxTimeoutSeconds: offers[0].MaxTimeoutSeconds, Resource: offers[0].Resource}
	h, v, err := payer.NewSigner(r.userKey).PaymentHeader(req, 2)
	if err != nil {
		t.Fatal(err)
	}
	body := fmt.Sprintf(`{"model":%q,"input":"hang up after the purchase","stream":%v}`, resoldModel, stream)

	// The client leaves once the seller was paid, before the answer.
	ctx, cancel := context.WithCancel(context.Background())
	hung := make(chan error, 1)
	go func() {
		hreq, _ := http.NewRequestWithContext(ctx, http.MethodPost, r.reseller.URL+"/responses", strings.NewReader(body))
		hreq.Header.Set("Content-Type", "application/json")
		hreq.Header.Set(h, v)
		res, err := http.DefaultClient.Do(hreq)
		if err == nil {
			res.Body.Close()
		}
		hung <- err
	}()
	<-proxy.bought
	cancel()
	<-hung
	close(proxy.release)

	var first string
	for i := range 3 {
		a := postAnswer(r.reseller.URL+"/responses", body, h, v)
		if a.status != 200 || !strings.Contains(a.body, "hang up after the purchase") {
			t.Fatalf("retry %d: %d %s", i, a.status, a.body)
		}
		if i == 0 {
			first = a.body
		} else if a.body != first {
			t.Errorf("retry %d got another answer:\n%s\n---\n%s", i, a.body, first)
		}
	}
	r.checkMoved(t, before, map[string]int64{"user": -resalePrice, "reseller": resalePrice, "wallet": -sellerPrice, "seller": sellerPrice})
}
