package gateway_test

import (
	"context"
	"encoding/base64"
	"net/http"
	"strings"
	"testing"

	"github.com/farebox/farebox/gateway"
	"github.com/farebox/farebox/x402"
	"github.com/farebox/farebox/x402/evm"
	"github.com/tidwall/gjson"
)

// TestOfferNamesNoClientsHost: without public_url the resource of the 402
// (and so what the facilitator and its catalogue are told) is not the
// Host a client sends; a Host the operator lists in public_hosts, or a
// loopback one, is named.
func TestOfferNamesNoClientsHost(t *testing.T) {
	ts, c := startPaid(t, "before")
	cfg := paidConfig(c, "before")
	cfg.PublicHosts = []string{"Shop.Example"}
	st, err := evm.NewSettler(context.Background(), c.Client, c.RelayerKey)
	if err != nil {
		t.Fatal(err)
	}
	listed := startServer(t, cfg, gateway.Options{Networks: []*x402.Network{c.Network}, Settler: st, Ready: st.Ready})
	cases := []struct {
		name, url, host, want, never string
	}{
		{"a stranger's Host", ts.URL, "attacker.example", "http://127.0.0.1:8402/v1/responses", "attacker"},
		{"loopback", ts.URL, "", strings.TrimSuffix(ts.URL, "/v1") + "/v1/responses", "attacker"},
		{"listed", listed.URL, "shop.example", "http://shop.example/v1/responses", "attacker"},
		{"a stranger's Host, listed elsewhere", listed.URL, "attacker.example:443", "http://127.0.0.1:8402/v1/responses", "attacker"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			req, err := http.NewRequest(http.MethodPost, tc.url+"/responses", strings.NewReader(`{"model":"`+paid+`","input":"hi"}`))
			if err != nil {
				t.Fatal(err)
			}
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("X-Forwarded-Proto", "javascript")
			if tc.host != "" {
				req.Host = tc.host
			}
			res, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			res.Body.Close()
			if res.StatusCode != http.StatusPaymentRequired {
				t.Fatalf("status %d, want 402", res.StatusCode)
			}
			raw, err := base64.StdEncoding.DecodeString(res.Header.Get("PAYMENT-REQUIRED"))
			if err != nil {
				t.Fatal(err)
			}
			got := gjson.GetBytes(raw, "resource.url").String()
			if got != tc.want || strings.Contains(string(raw), tc.never) {
				t.Errorf("resource %q, want %q; offer %s", got, tc.want, raw)
			}
		})
	}
}
