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
