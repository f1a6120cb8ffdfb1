package main

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
)

// `serve --check` asks the facilitator's /supported and fails in one line
// naming the network it does not settle; --offline asks nobody and passes.
func TestServeCheckProvesTheFacilitatorUnlessOffline(t *testing.T) {
	var asked atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		asked.Add(1)
		_ = json.NewEncoder(w).Encode(map[string]any{"kinds": []map[string]any{{"x402Version": 2, "scheme": "exact", "network": "eip155:84532"}},
			"extensions": []string{}, "signers": map[string]any{}})
	}))
	t.Cleanup(srv.Close)
	path := writeFile(t, "payments: {pay_to: \"0x2222222222222222222222222222222222222222\", networks: [base], settler: facilitator, facilitator: {url: \""+srv.URL+"\"}}\n"+
		"models:\n  - {name: m, upstream: scripted, price: \"0.001\", limits: {max_output_tokens: 256}}\n")
	code, _, stderr := farebox(t, exampleEnv(false), "serve", "--check", "--config", path)
	assertOneLineFailure(t, code, stderr, "eip155:8453", "exact", "--offline")
	if asked.Load() != 1 {
		t.Errorf("the facilitator was asked %d times, want 1", asked.Load())
	}
	code, stdout, stderr := farebox(t, exampleEnv(false), "serve", "--check", "--offline", "--config", path)
	if code != 0 || !strings.Contains(stdout, "ok") || asked.Load() != 1 {
		t.Fatalf("--offline: exit %d, asked %d\n%s%s", code, asked.Load(), stdout, stderr)
	}
}
