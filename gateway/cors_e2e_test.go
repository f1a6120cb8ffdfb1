package gateway_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/farebox/farebox/gateway"
	"github.com/farebox/farebox/x402"
	"github.com/farebox/farebox/x402/evm"
)

// Browsers may read the payment headers: CORS exposes them to the origins
// cors.allowed_origins allows, and to no other.
func TestCORSExposesPaymentHeaders(t *testing.T) {
	c := devChain(t)
	st, err := evm.NewSettler(context.Background(), c.Client, c.RelayerKey)
	if err != nil {
		t.Fatal(err)
	}
	cfg := paidConfig(c, "after")
	cfg.CORS.AllowedOrigins = []string{"https://app.example"}
	ts := startServer(t, cfg, gateway.Options{Networks: []*x402.Network{c.Network}, Settler: st})
	call := func(origin string) *http.Response {
		req, _ := http.NewRequest(http.MethodPost, ts.URL+"/responses", strings.NewReader(`{"model":"`+paid+`","input":"hi"}`))
		req.Header.Set("Origin", origin)
		req.Header.Set("Content-Type", "application/json")
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		return res
	}
	res := call("https://app.example")
	if res.StatusCode != 402 || res.Header.Get("Access-Control-Allow-Origin") != "https://app.example" {
		t.Errorf("allowed origin: %d allow-origin %q", res.StatusCode, res.Header.Get("Access-Control-Allow-Origin"))
	}
	exposed := res.Header.Get("Access-Control-Expose-Headers")
	for _, h := range []string{"PAYMENT-REQUIRED", "PAYMENT-RESPONSE", "X-PAYMENT-RESPONSE", "X-Request-Id", "Retry-After"} {
		if !strings.Contains(exposed, h) {
			t.Errorf("%s not exposed: %q", h, exposed)
		}
	}
	if res := call("https://evil.example"); res.Header.Get("Access-Control-Allow-Origin") != "" || res.Header.Get("Access-Control-Expose-Headers") != "" {
		t.Errorf("another origin got CORS headers: %v", res.Header)
	}
	preflight := func(origin string) *http.Response {
		pre, _ := http.NewRequest(http.MethodOptions, ts.URL+"/responses", nil)
		pre.Header.Set("Origin", origin)
		pre.Header.Set("Access-Control-Request-Method", "POST")
		pre.Header.Set("Access-Control-Request-Headers", "payment-signature, content-type")
		res, err := http.DefaultClient.Do(pre)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		return res
	}
	if res := preflight("https://app.example"); res.StatusCode >= 300 || !strings.Contains(strings.ToLower(res.Header.Get("Access-Control-Allow-Headers")), "payment-signature") {
		t.Errorf("preflight: %d allow-headers %q", res.StatusCode, res.Header.Get("Access-Control-Allow-Headers"))
	}
	if res := preflight("https://evil.example"); res.Header.Get("Access-Control-Allow-Origin") != "" {
		t.Errorf("preflight from another origin allowed: %v", res.Header)
	}
	// Without cors.allowed_origins (farebox serve's default) no origin is.
	ts = startServer(t, freeConfig(), gateway.Options{})
	if res := preflight("https://app.example"); res.Header.Get("Access-Control-Allow-Origin") != "" || res.Header.Get("Access-Control-Allow-Headers") != "" {
		t.Errorf("preflight without a CORS policy: %v", res.Header)
	}
}
