package proxy_test

import (
	"bufio"
	"bytes"
	"context"
	"crypto/ecdsa"
	"fmt"
	"math/big"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/crypto"
	"github.com/farebox/farebox/x402"
	"github.com/farebox/farebox/x402/payer"
	"github.com/farebox/farebox/x402/payer/payertest"
	"github.com/farebox/farebox/x402/payer/proxy"
	"github.com/tidwall/gjson"
)

// syncBuffer is a log the proxy's handlers write to while a test reads it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string { s.mu.Lock(); defer s.mu.Unlock(); return s.b.String() }

func payerKey(t *testing.T) *ecdsa.PrivateKey {
	t.Helper()
	key, err := crypto.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	return key
}

// serve starts a proxy to upstream paying through tr, and returns its URL.
func serve(t *testing.T, upstream string, tr *payer.Transport, budget *big.Int, log *syncBuffer) (*proxy.Proxy, string) {
	t.Helper()
	p, err := proxy.New(proxy.Config{Upstream: upstream, Transport: tr, Budget: budget, Log: log})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(p)
	t.Cleanup(srv.Close)
	return p, srv.URL
}

// post sends body to url and returns the status and the body read.
func post(t *testing.T, url, body string) (*http.Response, string) {
	t.Helper()
	res, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var b bytes.Buffer
	_, _ = b.ReadFrom(res.Body)
	return res, b.String()
}

const paidBody = `{"model":"farebox-scripted","input":"pay me"}`

// TestProxyStreamsEachChunkAtOnce: an event the upstream flushed reaches
// the client while the upstream still holds the rest of the stream back,
// so nothing sits in a buffer of the proxy.
func TestProxyStreamsEachChunkAtOnce(t *testing.T) {
	release := make(chan struct{})
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, "event: first\ndata: {\"n\":1}\n\n")
		http.NewResponseController(w).Flush()
		select {
		case <-release:
		case <-r.Context().Done():
			return
		}
		fmt.Fprint(w, "event: last\ndata: {\"n\":2}\n\n")
	}))
	defer up.Close()
	_, url := serve(t, up.URL+"/v1", payer.NewTransport(payer.NewSigner(payerKey(t))), nil, &syncBuffer{})

	// The timeout only stops a proxy that holds the event from hanging the test.
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, url+"/v1/responses", strings.NewReader(`{"stream":true}`))
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	lines := bufio.NewScanner(res.Body)
	for lines.Scan() && lines.Text() != `data: {"n":1}` {
	}
	if lines.Err() != nil || ctx.Err() != nil {
		t.Fatalf("the first event did not arrive before the rest: %v %v", lines.Err(), ctx.Err())
	}
	close(release)
	for lines.Scan() && lines.Text() != `data: {"n":2}` {
	}
	if lines.Text() != `data: {"n":2}` {
		t.Fatalf("the last event never came: %v", lines.Err())
	}
}

// forged is a seller's receipt text: an escape sequence and a forged log
// line.
const forged = "\x1b[2J\x1b[31mok\nfarebox proxy: receipt 99: total=0 USDC\u202e"

// TestSellerTextIsEscaped: receipt fields a seller sends reach the log
// and the terminal with their control characters escaped.
func TestSellerTextIsEscaped(t *testing.T) {
	shop, seller := payertest.NewShop(t, x402.BaseSepolia, 1000, payertest.Charges(1000))
	shop.Schemes, shop.ReceiptText = []string{x402.SchemeExact}, forged
	log := &syncBuffer{}
	_, url := serve(t, seller.URL+"/v1", payer.NewTransport(payer.NewSigner(payerKey(t))), nil, log)
	post(t, url+"/v1/responses", paidBody)
	got := log.String()
	if strings.ContainsAny(got, "\x1b\u202e") || strings.Count(got, "\n") != 1 || !strings.Contains(got, `tx=\u001b[2J\u001b[31mok\u000afarebox proxy: receipt 99`) {
		t.Errorf("the receipt line carries the seller's text raw:\n%q", got)
	}
}

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
	p, url := serve(t, seller.URL+"/v1", payer.NewTransport(payer.NewSigner(payerKey(t))), big.NewInt(1500), log)
	res, body := post(t, url+"/v1/responses", `{"model":"m","input":"first"}`)
	if res.StatusCode != http.StatusBadGateway || gjson.Get(body, "error.code").String() != "upstream_unreachable" {
		t.Fatalf("hung up after payment: %d %s", res.StatusCode, body)
	}
	if !strings.Contains(log.String(), "got no receipt; it stays counted against the budget") {
		t.Errorf("the log does not say the payment stays counted:\n%s", log.String())
	}
	res, body = post(t, url+"/v1/responses", `{"model":"m","input":"second"}`)
	if res.StatusCode != http.StatusPaymentRequired || gjson.Get(body, "error.code").String() != "budget_exceeded" {
		t.Fatalf("over the budget with an unanswered payment: %d %s", res.StatusCode, body)
	}
	if n := paid.Load(); n != 1 {
		t.Errorf("the seller got %d payments, want the first only", n)
	}
	if p.Spent().Sign() != 0 {
		t.Errorf("spent %s with no receipt", p.Spent())
	}
}

// TestProxySaysWhyItDidNotPay: a price over the transport's spend cap and
// a path outside /v1 each get an OpenAI error object saying what
// happened, and nothing is paid.
func TestProxySaysWhyItDidNotPay(t *testing.T) {
	shop, seller := payertest.NewShop(t, x402.BaseSepolia, 1000, payertest.Charges(1000))
	shop.Schemes = []string{x402.SchemeExact}
	_, url := serve(t, seller.URL+"/v1", payer.NewTransport(payer.NewSigner(payerKey(t)), payer.WithSpendCap(big.NewInt(500))), nil, &syncBuffer{})
	for _, c := range []struct {
		path, code string
		status     int
		says       string
	}{
		{"/v1/responses", "payment_refused", http.StatusPaymentRequired, "over the spend cap of 0.0005 USDC"},
		{"/responses", "unknown_url", http.StatusNotFound, "serves /v1/*"},
	} {
		res, body := post(t, url+c.path, `{"model":"m","input":"x"}`)
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
}

// TestProxyRejectsAnUpstreamThatIsNoBaseURL: New says what it wants
// before anything is served.
func TestProxyRejectsAnUpstreamThatIsNoBaseURL(t *testing.T) {
	tr := payer.NewTransport(payer.NewSigner(payerKey(t)))
	for _, up := range []string{"", "127.0.0.1:8402/v1", "ftp://seller.example/v1", "http:///v1"} {
		if _, err := proxy.New(proxy.Config{Upstream: up, Transport: tr}); err == nil || !strings.Contains(err.Error(), "base URL") {
			t.Errorf("upstream %q: %v, want a refusal asking for a base URL", up, err)
		}
	}
	if _, err := proxy.New(proxy.Config{Upstream: "http://127.0.0.1:8402/v1"}); err == nil {
		t.Error("a proxy without a paying transport was built")
	}
}
