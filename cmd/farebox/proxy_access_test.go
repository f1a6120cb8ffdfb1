package main

import (
	"bytes"
	"context"
	"math/big"
	"net/http"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/farebox/farebox/x402"
	"github.com/farebox/farebox/x402/payer/payertest"
	"github.com/tidwall/gjson"
)

// proxyDo sends one request to the proxy m with the given Host and
// headers, and returns the answer with its body read.
func proxyDo(t *testing.T, m *ProxyMain, method, path, host string, header map[string]string, body string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(method, strings.TrimSuffix(m.BaseURL, "/v1")+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if host != "" {
		req.Host = host
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	res, err := http.DefaultTransport.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var b bytes.Buffer
	_, _ = b.ReadFrom(res.Body)
	return res, b.String()
}

const paidBody = `{"model":"farebox-scripted","input":"pay me"}`

// TestProxyAnswersOnlyThisMachinesPrograms: a web page cannot drive the
// proxy. A request naming a foreign Host (DNS rebinding: evil.example
// resolving to 127.0.0.1) or carrying a foreign Origin (a page's fetch, a
// CORS preflight) is refused and nothing is forwarded or signed; the
// remote's CORS headers (farebox dev allows every origin) never come
// through; --allow-host and --allow-origin widen it knowingly. Judged on
// chain: the payer's balance moves only for the allowed requests.
func TestProxyAnswersOnlyThisMachinesPrograms(t *testing.T) {
	d := startProxyDev(t)
	before := d.balance(t, d.payer)
	m, _ := startProxy(t, d, "--scheme", "exact")
	port := m.BaseURL[strings.LastIndex(m.BaseURL, ":")+1 : len(m.BaseURL)-len("/v1")]
	json := map[string]string{"Content-Type": "application/json"}

	res, body := proxyDo(t, m, http.MethodPost, "/v1/responses", "evil.example:"+port, json, paidBody)
	if res.StatusCode != http.StatusMisdirectedRequest || gjson.Get(body, "error.code").String() != "host_not_allowed" {
		t.Errorf("foreign Host: %d %s", res.StatusCode, body)
	}
	res, body = proxyDo(t, m, http.MethodOptions, "/v1/responses", "", map[string]string{"Origin": "https://evil.example",
		"Access-Control-Request-Method": "POST", "Access-Control-Request-Headers": "content-type"}, "")
	if res.StatusCode != http.StatusForbidden || res.Header.Get("Access-Control-Allow-Origin") != "" {
		t.Errorf("foreign preflight: %d, Access-Control-Allow-Origin %q: %s", res.StatusCode, res.Header.Get("Access-Control-Allow-Origin"), body)
	}
	res, body = proxyDo(t, m, http.MethodPost, "/v1/responses", "", map[string]string{"Origin": "https://evil.example", "Content-Type": "text/plain"}, paidBody)
	if res.StatusCode != http.StatusForbidden || gjson.Get(body, "error.code").String() != "origin_not_allowed" {
		t.Errorf("foreign Origin: %d %s", res.StatusCode, body)
	}
	res, body = proxyDo(t, m, http.MethodGet, "/v1/models", "", nil, "")
	if res.StatusCode != http.StatusOK || !strings.Contains(body, "farebox-scripted") {
		t.Fatalf("GET /v1/models from this machine: %d %s", res.StatusCode, body)
	}
	for k := range res.Header {
		if strings.HasPrefix(k, "Access-Control-") {
			t.Errorf("the remote's %s: %q came through", k, res.Header.Get(k))
		}
	}
	if s := m.Proxy.Signed(); s.Sign() != 0 {
		t.Fatalf("the proxy signed %s for refused requests", s)
	}
	if spent := new(big.Int).Sub(before, d.balance(t, d.payer)); spent.Sign() != 0 {
		t.Fatalf("the payer lost %s to refused requests", spent)
	}

	// Widened knowingly: a name and a page the user allowed are served.
	wide, _ := startProxy(t, d, "--scheme", "exact", "--allow-host", "mybox", "--allow-origin", "http://localhost:3000")
	wport := wide.BaseURL[strings.LastIndex(wide.BaseURL, ":")+1 : len(wide.BaseURL)-len("/v1")]
	if res, body := proxyDo(t, wide, http.MethodPost, "/v1/responses", "mybox:"+wport, json, paidBody); res.StatusCode != http.StatusOK {
		t.Errorf("--allow-host mybox: %d %s", res.StatusCode, body)
	}
	res, _ = proxyDo(t, wide, http.MethodOptions, "/v1/responses", "", map[string]string{"Origin": "http://localhost:3000",
		"Access-Control-Request-Method": "POST", "Access-Control-Request-Headers": "content-type"}, "")
	if res.StatusCode != http.StatusNoContent || res.Header.Get("Access-Control-Allow-Origin") != "http://localhost:3000" {
		t.Errorf("allowed preflight: %d, Access-Control-Allow-Origin %q", res.StatusCode, res.Header.Get("Access-Control-Allow-Origin"))
	}
	if spent := new(big.Int).Sub(before, d.balance(t, d.payer)); spent.Int64() != 1000 {
		t.Errorf("the payer spent %s, want the one allowed call (1000)", spent)
	}
}

// TestProxyPaysOnlyPOST: a GET to the paid route (what an <img> tag or a
// link sends; farebox's refund route answers it with a channel offer) is
// forwarded unpaid and its 402 comes back as it came; a path that climbs
// out of /v1 is cleaned, not forwarded. Nothing is signed, on chain.
func TestProxyPaysOnlyPOST(t *testing.T) {
	d := startProxyDev(t)
	before := d.balance(t, d.payer)
	m, _ := startProxy(t, d)
	res, body := proxyDo(t, m, http.MethodGet, "/v1/responses", "", nil, "")
	if res.StatusCode != http.StatusPaymentRequired || res.Header.Get(x402.HeaderPaymentRequired) == "" {
		t.Errorf("GET /v1/responses: %d (PAYMENT-REQUIRED %q) %s, want the remote's 402", res.StatusCode, res.Header.Get(x402.HeaderPaymentRequired), body)
	}
	res, body = proxyDo(t, m, http.MethodPost, "/v1/../responses", "", map[string]string{"Content-Type": "application/json"}, paidBody)
	if res.StatusCode != http.StatusNotFound || gjson.Get(body, "error.code").String() != "unknown_url" {
		t.Errorf("POST /v1/../responses: %d %s, want the cleaned path refused", res.StatusCode, body)
	}
	if s := m.Proxy.Signed(); s.Sign() != 0 {
		t.Fatalf("the proxy signed %s for a GET", s)
	}
	if spent := new(big.Int).Sub(before, d.balance(t, d.payer)); spent.Sign() != 0 {
		t.Fatalf("the payer lost %s to a GET", spent)
	}
}

// TestProxyDefaultBudget: a proxy run signs at most 1 USDC unless told
// otherwise, says so in its banner, and --budget none lifts it.
func TestProxyDefaultBudget(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want *big.Int
	}{
		{nil, big.NewInt(1_000_000)},
		{[]string{"--budget", "0.5"}, big.NewInt(500_000)},
		{[]string{"--budget", "none"}, nil},
	} {
		m := NewProxyMain(&syncBuffer{}, &syncBuffer{}, func(string) string { return "" })
		if err := m.ParseFlags(tc.args); err != nil {
			t.Fatal(err)
		}
		if (m.budget == nil) != (tc.want == nil) || (m.budget != nil && m.budget.Cmp(tc.want) != 0) {
			t.Errorf("%v: budget %v, want %v", tc.args, m.budget, tc.want)
		}
	}
	d := startProxyDev(t)
	out := &syncBuffer{}
	m := NewProxyMain(out, &syncBuffer{}, func(name string) string {
		if name == "FAREBOX_PAYER_KEY" {
			return d.keyHex
		}
		return ""
	})
	if err := m.ParseFlags([]string{"--upstream", d.base, "--addr", "127.0.0.1:0"}); err != nil {
		t.Fatal(err)
	}
	if err := m.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	if !strings.Contains(out.String(), "budget  1 USDC signed at most this run") || !strings.Contains(out.String(), "--budget none lifts it") {
		t.Errorf("banner does not give the default budget:\n%s", out.String())
	}
}

// forged is a seller's receipt text: an escape sequence and a forged log
// line.
const forged = "\x1b[2J\x1b[31mok\nfarebox proxy: receipt 99: total=0 USDC\u202e"

// TestCallTrustsNoSellerNetwork: `farebox call` pays a seller's token
// only where its terms are known. A seller naming another token on Base
// (a built-in network) or a token on a chain whose decimals nobody read
// gets nothing signed, and the command says why; the dev chain's test
// dollars are paid, and the receipt's forged text is printed escaped.
func TestCallTrustsNoSellerNetwork(t *testing.T) {
	other := common.HexToAddress("0x00000000000000000000000000000000000b0b01")
	for _, tc := range []struct {
		name string
		net  *x402.Network
		says string
	}{
		{"Base redefined", x402.NewNetwork("eip155:8453", "", big.NewInt(8453), other, "USD Coin", "2"), "a seller cannot redefine it"},
		{"unknown decimals", x402.NewNetwork("eip155:999", "", big.NewInt(999), other, "Token18", "1"), "decimals and EIP-712 domain of token"},
		{"dev chain", x402.NewNetwork("eip155:1337", "", big.NewInt(1337), other, "USDC", "2"), ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			shop, seller := payertest.NewShop(t, tc.net, 1000, payertest.Charges(1000))
			shop.Schemes, shop.ReceiptText = []string{x402.SchemeExact}, forged
			var out, errOut syncBuffer
			err := run(context.Background(), []string{"call", "--base-url", seller.URL + "/v1", "--channels", t.TempDir(), "hi"}, &out, &errOut,
				func(string) string { return "" })
			paid := len(shop.Seen())
			if tc.says != "" {
				if err == nil || paid != 0 || !strings.Contains(errOut.String(), tc.says) {
					t.Fatalf("err %v, %d payments, stderr:\n%s\nwant nothing paid and %q", err, paid, errOut.String(), tc.says)
				}
				return
			}
			if err != nil || paid != 1 {
				t.Fatalf("err %v, %d payments; stderr:\n%s", err, paid, errOut.String())
			}
			if strings.ContainsAny(out.String(), "\x1b\u202e") || !strings.Contains(out.String(), `transaction=\u001b[2J`) {
				t.Errorf("the receipt is printed raw:\n%q", out.String())
			}
		})
	}
}
