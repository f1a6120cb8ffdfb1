package gateway_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/farebox/farebox/gateway"
)

// TestAdminCookieIsNotTheToken: the dashboard's cookie is a session, not
// the admin token: it never holds the token, and it is no bearer token.
func TestAdminCookieIsNotTheToken(t *testing.T) {
	root := startAdmin(t)
	status, h, _ := do(t, "POST", root+"/admin", strings.NewReader("token="+adminToken), "Content-Type", "application/x-www-form-urlencoded")
	cookie := h.Get("Set-Cookie")
	if status != http.StatusSeeOther || cookie == "" {
		t.Fatalf("login: %d, cookie %q", status, cookie)
	}
	cv := strings.SplitN(cookie, ";", 2)[0]
	if strings.Contains(cookie, adminToken) {
		t.Errorf("the cookie holds the admin token: %q", cookie)
	}
	if status, _, _ := do(t, "GET", root+"/admin/api/summary", nil, "Cookie", cv); status != http.StatusOK {
		t.Errorf("summary with the session cookie: %d", status)
	}
	session := strings.TrimPrefix(cv, "farebox_admin=")
	if status, _, _ := do(t, "GET", root+"/admin/api/summary", nil, "Authorization", "Bearer "+session); status != http.StatusUnauthorized {
		t.Errorf("the session as a bearer token: %d, want 401", status)
	}
	forged := session[:len(session)-1] + string("0123456789abcdef"[(strings.IndexByte("0123456789abcdef", session[len(session)-1])+1)%16])
	if status, _, _ := do(t, "GET", root+"/admin/api/summary", nil, "Cookie", "farebox_admin="+forged); status != http.StatusUnauthorized {
		t.Errorf("an altered session: %d, want 401", status)
	}
	if status, _, _ := do(t, "GET", root+"/admin/api/summary", nil, "Cookie", "farebox_admin=1."+strings.Repeat("0", 32)+"."+strings.Repeat("0", 64)); status != http.StatusUnauthorized {
		t.Errorf("a made-up session: %d, want 401", status)
	}
}

// TestAdminAnswersNoPreflight: under a CORS policy that lets any page call
// the API (farebox dev's), the books, the admin actions and /metrics
// answer no preflight and carry no CORS header.
func TestAdminAnswersNoPreflight(t *testing.T) {
	cfg := freeConfig()
	cfg.Admin.TokenEnv = "FAREBOX_ADMIN_TOKEN"
	cfg.CORS.AllowedOrigins = []string{"*"}
	ts := startServer(t, cfg, gateway.Options{Getenv: func(n string) string {
		if n == "FAREBOX_ADMIN_TOKEN" {
			return adminToken
		}
		return ""
	}})
	root := strings.TrimSuffix(ts.URL, "/v1")
	pre := []string{"Origin", "https://evil.example", "Access-Control-Request-Method", "POST", "Access-Control-Request-Headers", "authorization"}
	for _, p := range []string{"/admin/api/summary", "/admin/api/debts/0x1111111111111111111111111111111111111111/forgive", "/admin", "/metrics"} {
		_, h, _ := do(t, "OPTIONS", root+p, nil, pre...)
		if v := h.Get("Access-Control-Allow-Origin"); v != "" {
			t.Errorf("OPTIONS %s: Access-Control-Allow-Origin %q", p, v)
		}
	}
	if _, h, _ := do(t, "OPTIONS", root+"/v1/responses", nil, pre...); h.Get("Access-Control-Allow-Origin") == "" {
		t.Errorf("the API's own preflight lost its CORS headers")
	}
}

// TestMetricsAreTheOperators: /metrics on the main listener is closed
// unless opened, takes the admin token when there is one, and the
// metrics token when there is that.
func TestMetricsAreTheOperators(t *testing.T) {
	getenv := func(n string) string {
		return map[string]string{"FAREBOX_ADMIN_TOKEN": adminToken, "METRICS_TOKEN": "metrics-token-0123456789"}[n]
	}
	cases := []struct {
		name       string
		metrics    gateway.MetricsConfig
		adminEnv   string
		auth       string
		wantStatus int
	}{
		{"nothing configured", gateway.MetricsConfig{}, "", "", http.StatusForbidden},
		{"opened", gateway.MetricsConfig{Public: true}, "", "", http.StatusOK},
		{"admin token, none sent", gateway.MetricsConfig{}, "FAREBOX_ADMIN_TOKEN", "", http.StatusUnauthorized},
		{"admin token sent", gateway.MetricsConfig{}, "FAREBOX_ADMIN_TOKEN", "Bearer " + adminToken, http.StatusOK},
		{"metrics token, admin's sent", gateway.MetricsConfig{BearerTokenEnv: "METRICS_TOKEN"}, "FAREBOX_ADMIN_TOKEN", "Bearer " + adminToken, http.StatusUnauthorized},
		{"metrics token sent", gateway.MetricsConfig{BearerTokenEnv: "METRICS_TOKEN"}, "", "Bearer metrics-token-0123456789", http.StatusOK},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cfg := freeConfig()
			cfg.Metrics = tc.metrics
			cfg.Admin.TokenEnv = tc.adminEnv
			ts := startServerAsIs(t, cfg, gateway.Options{Getenv: getenv})
			status, _, b := do(t, "GET", strings.TrimSuffix(ts.URL, "/v1")+"/metrics", nil, "Authorization", tc.auth)
			if status != tc.wantStatus {
				t.Errorf("status %d, want %d: %.200s", status, tc.wantStatus, b)
			}
			if status != http.StatusOK && (openAIError(b) == nil || strings.Contains(string(b), "farebox_")) {
				t.Errorf("a refusal that is no error object, or that shows metrics: %.300s", b)
			}
		})
	}
}
