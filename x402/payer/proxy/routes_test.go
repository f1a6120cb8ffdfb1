package proxy_test

import (
	"io"
	"math/big"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/farebox/farebox/x402"
	"github.com/farebox/farebox/x402/payer"
	"github.com/farebox/farebox/x402/payer/payertest"
	"github.com/tidwall/gjson"
)

// pathShop is a shop (402, then the paid answer) that records the path of
// every paid request it gets.
func pathShop(t *testing.T) (*payertest.Shop, *httptest.Server, func() []string) {
	shop, _ := payertest.NewShop(t, x402.BaseSepolia, 1000, payertest.Charges(1000))
	shop.Schemes = []string{x402.SchemeExact}
	var mu sync.Mutex
	var paths []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get(x402.HeaderPaymentSignature) != "" {
			mu.Lock()
			paths = append(paths, r.URL.Path)
			mu.Unlock()
		}
		shop.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return shop, srv, func() []string { mu.Lock(); defer mu.Unlock(); return append([]string(nil), paths...) }
}

// TestProxyPaysEveryPaidRoute: each client wire's paid route (Responses,
// Chat Completions, Anthropic Messages and its token count) is forwarded
// to the same route of the upstream, its 402 paid and its answer
// delivered, with a receipt in the log.
func TestProxyPaysEveryPaidRoute(t *testing.T) {
	routes := []string{"/v1/responses", "/v1/chat/completions", "/v1/messages", "/v1/messages/count_tokens"}
	shop, seller, paidPaths := pathShop(t)
	log := &syncBuffer{}
	p, url := serve(t, seller.URL+"/v1", payer.NewTransport(payer.NewSigner(payerKey(t))), nil, log)
	for _, route := range routes {
		if res, body := post(t, url+route, `{"model":"m","messages":[{"role":"user","content":"hi"}]}`); res.StatusCode != http.StatusOK {
			t.Errorf("POST %s: %d %s, want the paid answer", route, res.StatusCode, body)
		}
	}
	if got, want := strings.Join(paidPaths(), " "), strings.Join(routes, " "); got != want {
		t.Errorf("the seller was paid on %q, want %q", got, want)
	}
	if n := len(shop.Seen()); n != len(routes) {
		t.Errorf("the seller got %d payments, want %d", n, len(routes))
	}
	if n := strings.Count(log.String(), "receipt "); n != len(routes) {
		t.Errorf("%d receipts logged, want %d:\n%s", n, len(routes), log.String())
	}
	if want := big.NewInt(int64(1000 * len(routes))); p.Spent().Cmp(want) != 0 {
		t.Errorf("spent %s, want %s", p.Spent(), want)
	}
}

// TestProxyPaysNoOtherPOST: a POST to a route the proxy does not pay (a
// stored response's cancel) is forwarded unpaid, and the seller's 402
// comes back as it came.
func TestProxyPaysNoOtherPOST(t *testing.T) {
	shop, seller, _ := pathShop(t)
	p, url := serve(t, seller.URL+"/v1", payer.NewTransport(payer.NewSigner(payerKey(t))), nil, &syncBuffer{})
	res, body := post(t, url+"/v1/responses/resp_1/cancel", `{}`)
	if res.StatusCode != http.StatusPaymentRequired || res.Header.Get(x402.HeaderPaymentRequired) == "" {
		t.Errorf("POST /v1/responses/resp_1/cancel: %d (PAYMENT-REQUIRED %q) %s, want the seller's 402", res.StatusCode, res.Header.Get(x402.HeaderPaymentRequired), body)
	}
	if n := len(shop.Seen()); n != 0 || p.Signed().Sign() != 0 {
		t.Errorf("%d payments, %s signed for an unpaid route", n, p.Signed())
	}
}

// TestProxyAnswersAnthropicClientsInTheirShape: on /v1/messages the
// proxy's own refusals (a price it will not pay, a foreign Host) are
// Anthropic error objects, which the anthropic SDKs read and do not
// retry; nothing is paid.
func TestProxyAnswersAnthropicClientsInTheirShape(t *testing.T) {
	shop, seller, _ := pathShop(t)
	_, url := serve(t, seller.URL+"/v1", payer.NewTransport(payer.NewSigner(payerKey(t)), payer.WithSpendCap(big.NewInt(500))), nil, &syncBuffer{})
	res, body := post(t, url+"/v1/messages", `{"model":"m","max_tokens":8,"messages":[{"role":"user","content":"hi"}]}`)
	if res.StatusCode != http.StatusPaymentRequired || gjson.Get(body, "type").String() != "error" ||
		gjson.Get(body, "error.type").String() != "billing_error" || !strings.Contains(gjson.Get(body, "error.message").String(), "over the spend cap") {
		t.Errorf("over the spend cap: %d %s, want an Anthropic billing_error", res.StatusCode, body)
	}
	if res.Header.Get("X-Should-Retry") != "false" {
		t.Errorf("X-Should-Retry %q", res.Header.Get("X-Should-Retry"))
	}
	req, _ := http.NewRequest(http.MethodPost, url+"/v1/messages", strings.NewReader(`{}`))
	req.Host = "evil.example"
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	if res.StatusCode != http.StatusMisdirectedRequest || gjson.GetBytes(b, "error.type").String() != "invalid_request_error" ||
		!strings.Contains(gjson.GetBytes(b, "error.message").String(), "evil.example") {
		t.Errorf("foreign Host: %d %s, want an Anthropic invalid_request_error", res.StatusCode, b)
	}
	if n := len(shop.Seen()); n != 0 {
		t.Errorf("the seller got %d payments", n)
	}
}
