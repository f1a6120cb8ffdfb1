package gateway_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/farebox/farebox/gateway"
	"github.com/farebox/farebox/internal/testkit/fakeupstream"
)

// The operator asks "which of my suppliers is failing, and why": after a
// pool's first supplier fails (a 500) until its circuit opens and the
// second answers every call, GET /admin/api/suppliers shows the first one
// open with its failures, their kind and words, and the second closed with
// every call answered and its time to first token; a missing token is a
// 401.
func TestAdminSuppliersShowsEachSuppliersHealth(t *testing.T) {
	up, err := fakeupstream.Start(fakeupstream.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer up.Close()
	const failures, calls = 2, 5
	cfg := gateway.Config{Models: []gateway.ModelConfig{{Name: pooled, Price: "0",
		Suppliers: []gateway.SupplierConfig{
			{Name: "failing", Upstream: "chat", UpstreamConfig: endpoint("chat", up.URL(), "status:500")},
			{Name: "healthy", Upstream: "openai", UpstreamConfig: endpoint("openai", up.URL(), "echo")},
		},
		Routing: gateway.RoutingConfig{Strategy: "ordered", Circuit: gateway.CircuitConfig{Failures: failures, Cooldown: gateway.Duration(time.Hour)}}}}}
	cfg.Admin.TokenEnv = "FAREBOX_ADMIN_TOKEN"
	ts := startServer(t, cfg, gateway.Options{Getenv: func(n string) string {
		if n == "FAREBOX_ADMIN_TOKEN" {
			return adminToken
		}
		return ""
	}})
	root := strings.TrimSuffix(ts.URL, "/v1")
	for i := range calls {
		if res, body := post(t, ts.URL+"/responses", `{"model":"`+pooled+`","input":"hello"}`); res.StatusCode != http.StatusOK {
			t.Fatalf("call %d: %d %s", i, res.StatusCode, body)
		}
	}
	if status, _, b := do(t, "GET", root+"/admin/api/suppliers", nil); status != http.StatusUnauthorized || openAIError(b) == nil {
		t.Errorf("without the token: %d %s", status, b)
	}
	status, _, b := do(t, "GET", root+"/admin/api/suppliers", nil, "Authorization", "Bearer "+adminToken)
	if status != http.StatusOK {
		t.Fatalf("suppliers: %d %s", status, b)
	}
	var got struct {
		Pools []struct {
			Model     string `json:"model"`
			Strategy  string `json:"strategy"`
			Failures  int    `json:"circuit_failures"`
			Available int    `json:"available"`
			Suppliers []struct {
				Name            string           `json:"name"`
				Circuit         string           `json:"circuit"`
				Attempts        map[string]int64 `json:"attempts"`
				OK              int64            `json:"ok"`
				Failed          int64            `json:"failed"`
				LastOK          *time.Time       `json:"last_ok"`
				LastFailure     *time.Time       `json:"last_failure"`
				LastFailureKind string           `json:"last_failure_kind"`
				LastError       string           `json:"last_error"`
				TTFTms          *int64           `json:"ttft_ms"`
			} `json:"suppliers"`
		} `json:"pools"`
	}
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatalf("%v: %s", err, b)
	}
	if len(got.Pools) != 1 || got.Pools[0].Model != pooled || got.Pools[0].Strategy != "ordered" ||
		got.Pools[0].Failures != failures || got.Pools[0].Available != 1 || len(got.Pools[0].Suppliers) != 2 {
		t.Fatalf("pools: %s", b)
	}
	bad, good := got.Pools[0].Suppliers[0], got.Pools[0].Suppliers[1]
	if bad.Name != "failing" || bad.Circuit != "open" || bad.Failed != failures || bad.Attempts["upstream_error"] != failures ||
		bad.OK != 0 || bad.LastOK != nil || bad.LastFailure == nil || bad.LastFailureKind != "upstream_error" || !strings.Contains(bad.LastError, "500") {
		t.Errorf("the failing supplier: %+v", bad)
	}
	if good.Name != "healthy" || good.Circuit != "closed" || good.OK != calls || good.Failed != 0 || good.LastOK == nil ||
		good.LastFailure != nil || good.TTFTms == nil {
		t.Errorf("the healthy supplier: %+v", good)
	}
}
