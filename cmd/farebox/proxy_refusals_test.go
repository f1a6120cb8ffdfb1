package main

import (
	"bytes"
	"math/big"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/farebox/farebox/x402"
	"github.com/farebox/farebox/x402/payer"
	"github.com/farebox/farebox/x402/payer/payertest"
	"github.com/tidwall/gjson"
)

// TestHostileSellerHangsUpAfterPayment: a seller takes the signed payment
// and hangs up without an answer. The client gets an OpenAI-shaped 502,
// and the payment's ceiling stays counted against the budget (it may have
// moved money), so the next paid request over the budget is refused
// before anything is signed.
func TestHostileSellerHangsUpAfterPayment(t *testing.T) {
	shop, _ := payertest.NewShop(t, x402.BaseSepolia, 1000, payertest.Charges(1000))
	shop.Schemes = []string{x402.SchemeExact}
	var paid atomic.Int64
	seller := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get(x402.HeaderPaymentSignature) == "" {
			shop.ServeHTTP(w, r)
			return
		}
		paid.Add(1)
		conn, _, err := http.NewResponseController(w).Hijack()
		if err == nil {
			conn.Close()
		}
	}))
	defer seller.Close()
	log := &syncBuffer{}
	p, err := NewProxy(seller.URL+"/v1", payer.NewTransport(payer.NewSigner(devPayerKey(t))), big.NewInt(1500), log)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(p)
	defer srv.Close()
	post := func(body string) (int, string) {
		t.Helper()
		res, err := http.Post(srv.URL+"/v1/responses", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		var b bytes.Buffer
		_, _ = b.ReadFrom(res.Body)
		return res.StatusCode, b.String()
	}
	status, body := post(`{"model":"m","input":"first"}`)
	if status != http.StatusBadGateway || gjson.Get(body, "error.code").String() != "upstream_unreachable" {
		t.Fatalf("hung up after payment: %d %s", status, body)
	}
	if !strings.Contains(log.String(), "got no receipt; it stays counted against the budget") {
		t.Errorf("the log does not say the payment stays counted:\n%s", log.String())
	}
	status, body = post(`{"model":"m","input":"second"}`)
	if status != http.StatusPaymentRequired || gjson.Get(body, "error.code").String() != "budget_exceeded" {
		t.Fatalf("over the budget with an unanswered payment: %d %s", status, body)
	}
	if n := paid.Load(); n != 1 {
		t.Errorf("the seller got %d payments, want the first only", n)
	}
	if p.Spent().Sign() != 0 {
		t.Errorf("spent %s with no receipt", p.Spent())
	}
}

// TestProxySaysWhyItDidNotPay: a price over --max-price, a path outside
// /v1 and an upstream that is not there each get an OpenAI error object
// saying what happened, and nothing is paid.
func TestProxySaysWhyItDidNotPay(t *testing.T) {
	shop, seller := payertest.NewShop(t, x402.BaseSepolia, 1000, payertest.Charges(1000))
	shop.Schemes = []string{x402.SchemeExact}
	p, err := NewProxy(seller.URL+"/v1", payer.NewTransport(payer.NewSigner(devPayerKey(t)), payer.WithSpendCap(big.NewInt(500))), nil, &syncBuffer{})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(p)
	defer srv.Close()
	for _, c := range []struct {
		path, code string
		status     int
		says       string
	}{
		{"/v1/responses", "payment_refused", http.StatusPaymentRequired, "over the spend cap of 0.0005 USDC"},
		{"/responses", "unknown_url", http.StatusNotFound, "serves /v1/*"},
	} {
		res, err := http.Post(srv.URL+c.path, "application/json", strings.NewReader(`{"model":"m","input":"x"}`))
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		_, _ = b.ReadFrom(res.Body)
		res.Body.Close()
		body := b.String()
		if res.StatusCode != c.status || gjson.Get(body, "error.code").String() != c.code || !strings.Contains(gjson.Get(body, "error.message").String(), c.says) {
			t.Errorf("%s: %d %s, want %d %s saying %q", c.path, res.StatusCode, body, c.status, c.code, c.says)
		}
		if res.Header.Get("X-Should-Retry") != "false" || res.Header.Get(x402.HeaderPaymentRequired) != "" {
			t.Errorf("%s: X-Should-Retry %q, PAYMENT-REQUIRED %q", c.path, res.Header.Get("X-Should-Retry"), res.Header.Get(x402.HeaderPaymentRequired))
		}
	}
	shop.Mu.Lock()
	defer shop.Mu.Unlock()
	if len(shop.Headers) != 0 {
		t.Errorf("the seller got %d payments", len(shop.Headers))
	}

	m := NewProxyMain(&syncBuffer{}, &syncBuffer{}, func(string) string { return "" })
	if err := m.ParseFlags([]string{"--upstream", "http://" + closedAddr(t) + "/v1", "--addr", "127.0.0.1:0"}); err != nil {
		t.Fatal(err)
	}
	if err := m.Run(t.Context()); err == nil || !strings.Contains(err.Error(), "--upstream") || !strings.Contains(err.Error(), "connection refused") {
		t.Errorf("no upstream: %v", err)
	}
	_ = m.Close()
}
