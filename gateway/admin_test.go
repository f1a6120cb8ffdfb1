package gateway_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/farebox/farebox/gateway"
	"github.com/farebox/farebox/x402"
	"github.com/farebox/farebox/x402/evm"
)

const adminToken = "test-admin-token-0123456789"

// startAdmin runs a free farebox with the admin API on.
func startAdmin(t *testing.T) (root string) {
	t.Helper()
	cfg := freeConfig()
	cfg.Admin.TokenEnv = "FAREBOX_ADMIN_TOKEN"
	ts := startServer(t, cfg, gateway.Options{Getenv: func(n string) string {
		if n == "FAREBOX_ADMIN_TOKEN" {
			return adminToken
		}
		return ""
	}})
	return strings.TrimSuffix(ts.URL, "/v1")
}

// do sends one request with header pairs and returns status, headers, body.
func do(t *testing.T, method, u string, body io.Reader, headers ...string) (int, http.Header, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, u, body)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	cl := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	res, err := cl.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, res.Header, b
}

// openAIError decodes an OpenAI-shaped error body, nil when it is not one.
func openAIError(b []byte) map[string]any {
	var e struct {
		Error map[string]any `json:"error"`
	}
	if json.Unmarshal(b, &e) != nil || e.Error == nil || e.Error["message"] == "" {
		return nil
	}
	return e.Error
}

// TestAdminAPIAuth: every admin route refuses a missing or wrong token with
// a 401 error object, takes the bearer token or the page's cookie, and
// refuses browsers on other origins.
func TestAdminAPIAuth(t *testing.T) {
	root := startAdmin(t)
	routes := []struct{ method, path string }{
		{"GET", "/admin/api/summary"}, {"GET", "/admin/api/payers"}, {"GET", "/admin/api/settlements?state=pending"},
		{"GET", "/admin/api/channels"}, {"GET", "/admin/api/suppliers"}, {"POST", "/admin/api/debts/0x1111111111111111111111111111111111111111/forgive"},
		{"POST", "/admin/api/channels/claim"}, {"GET", "/admin/api/export.csv"}, {"GET", "/admin"},
	}
	for _, r := range routes {
		for _, auth := range []string{"", "Bearer wrong-token-0123456789abcdef", "Basic " + adminToken, "Bearer " + adminToken + "x"} {
			status, h, b := do(t, r.method, root+r.path, nil, "Authorization", auth)
			if status != http.StatusUnauthorized || openAIError(b) == nil {
				t.Errorf("%s %s with %q: %d %s, want a 401 error object", r.method, r.path, auth, status, b)
			}
			if !strings.Contains(h.Get("WWW-Authenticate"), "Bearer") {
				t.Errorf("%s %s: no WWW-Authenticate: Bearer", r.method, r.path)
			}
		}
	}
	bearer := []string{"Authorization", "Bearer " + adminToken}
	if status, _, b := do(t, "GET", root+"/admin/api/summary", nil, bearer...); status != http.StatusOK {
		t.Fatalf("summary with the token: %d %s", status, b)
	}
	// Another site's page may not use the operator's browser: refused even
	// with a valid token, and no CORS header lets it read the answer.
	for _, h := range [][]string{{"Origin", "https://evil.example"}, {"Sec-Fetch-Site", "cross-site"}, {"Sec-Fetch-Site", "same-site"}} {
		status, hdr, b := do(t, "GET", root+"/admin/api/summary", nil, append(bearer, h...)...)
		if status != http.StatusForbidden || openAIError(b) == nil || hdr.Get("Access-Control-Allow-Origin") != "" {
			t.Errorf("summary with %v: %d %v %s, want a 403 error object without CORS", h, status, hdr, b)
		}
	}
	u, _ := url.Parse(root)
	if status, _, b := do(t, "GET", root+"/admin/api/summary", nil, append(bearer, "Origin", "http://"+u.Host, "Sec-Fetch-Site", "same-origin")...); status != http.StatusOK {
		t.Errorf("the page's own fetch: %d %s", status, b)
	}
	// The page: a login form for a browser without the token; the token
	// (header or form) sets an HttpOnly, SameSite=Strict cookie that the
	// page's fetches carry.
	status, _, b := do(t, "GET", root+"/admin", nil, "Accept", "text/html")
	if status != http.StatusUnauthorized || !strings.Contains(string(b), `name="token"`) {
		t.Errorf("/admin from a browser without a token: %d, want the login form", status)
	}
	status, h, _ := do(t, "POST", root+"/admin", strings.NewReader("token="+adminToken), "Content-Type", "application/x-www-form-urlencoded",
		"Origin", "http://"+u.Host, "Sec-Fetch-Site", "same-origin")
	cookie := h.Get("Set-Cookie")
	if status != http.StatusSeeOther || !strings.Contains(cookie, "HttpOnly") || !strings.Contains(cookie, "SameSite=Strict") {
		t.Fatalf("login: %d, cookie %q", status, cookie)
	}
	if status, _, _ := do(t, "POST", root+"/admin", strings.NewReader("token=nope"), "Content-Type", "application/x-www-form-urlencoded"); status != http.StatusUnauthorized {
		t.Errorf("login with a wrong token: %d", status)
	}
	cv := strings.SplitN(cookie, ";", 2)[0]
	if status, _, b := do(t, "GET", root+"/admin/api/summary", nil, "Cookie", cv); status != http.StatusOK {
		t.Errorf("summary with the cookie: %d %s", status, b)
	}
	status, h, b = do(t, "GET", root+"/admin", nil, bearer...)
	if status != http.StatusOK || !strings.Contains(string(b), `fetch("/admin/api/"`) || !strings.Contains(h.Get("Content-Security-Policy"), "default-src 'none'") {
		t.Errorf("/admin with the token: %d, CSP %q", status, h.Get("Content-Security-Policy"))
	}
}

// TestAdminAPIAnswers: the summary counts a free call per model; bad
// parameters are 400 error objects naming the parameter.
func TestAdminAPIAnswers(t *testing.T) {
	root := startAdmin(t)
	if res, _ := post(t, root+"/v1/responses", `{"model":"farebox-scripted-free","input":"hi"}`); res.StatusCode != http.StatusOK {
		t.Fatalf("free call: %d", res.StatusCode)
	}
	if res, _ := post(t, root+"/v1/responses", `{"model":"farebox-scripted-free","input":`); res.StatusCode != http.StatusBadRequest {
		t.Fatalf("malformed call: %d", res.StatusCode)
	}
	bearer := []string{"Authorization", "Bearer " + adminToken}
	status, _, b := do(t, "GET", root+"/admin/api/summary", nil, bearer...)
	var sum struct {
		Models map[string]struct {
			Calls     int64            `json:"calls"`
			FreeCalls int64            `json:"free_calls"`
			Settled   string           `json:"settled"`
			Refusals  map[string]int64 `json:"refusals"`
		} `json:"models"`
		Totals struct {
			Refusals map[string]int64 `json:"refusals"`
		} `json:"totals"`
	}
	if status != http.StatusOK || json.Unmarshal(b, &sum) != nil {
		t.Fatalf("summary: %d %s", status, b)
	}
	if f := sum.Models["farebox-scripted-free"]; f.Calls != 1 || f.FreeCalls != 1 || f.Settled != "0" {
		t.Errorf("summary of the free model: %+v, want one free call, nothing settled (%s)", f, b)
	}
	if len(sum.Models) != 1 || sum.Totals.Refusals["400:invalid_json"] != 1 {
		t.Errorf("the malformed call: models %v, refusals %v; want it in the totals' refusals only", sum.Models, sum.Totals.Refusals)
	}
	for _, c := range []struct{ path, param string }{
		{"/admin/api/summary?from=yesterday", "from"}, {"/admin/api/summary?model=nope", "model"},
		{"/admin/api/summary?from=2026-01-02&to=2026-01-01", "from"}, {"/admin/api/settlements?state=lost", "state"},
		{"/admin/api/payers?limit=0", "limit"},
	} {
		status, _, b := do(t, "GET", root+c.path, nil, bearer...)
		if e := openAIError(b); status != http.StatusBadRequest || e == nil || e["param"] != c.param {
			t.Errorf("%s: %d %s, want a 400 naming %s", c.path, status, b, c.param)
		}
	}
	if status, _, b := do(t, "POST", root+"/admin/api/debts/not-an-address/forgive", nil, bearer...); status != http.StatusBadRequest || openAIError(b) == nil {
		t.Errorf("forgive a non-address: %d %s", status, b)
	}
	status, h, b := do(t, "GET", root+"/admin/api/export.csv", nil, bearer...)
	if status != http.StatusOK || !strings.HasPrefix(h.Get("Content-Type"), "text/csv") || !strings.Contains(string(b), "farebox-scripted-free") {
		t.Errorf("export: %d %s\n%s", status, h.Get("Content-Type"), b)
	}
}

// TestAdminOffWithoutToken: without admin.token_env nothing is served
// under /admin; a short token is refused at start.
func TestAdminOffWithoutToken(t *testing.T) {
	ts := startServer(t, freeConfig(), gateway.Options{})
	root := strings.TrimSuffix(ts.URL, "/v1")
	if status, _, _ := do(t, "GET", root+"/admin/api/summary", nil, "Authorization", "Bearer "+adminToken); status != http.StatusNotFound {
		t.Errorf("admin API without a token configured: %d, want 404", status)
	}
	cfg := freeConfig()
	cfg.Admin.TokenEnv = "T"
	if _, err := gateway.New(cfg, gateway.Options{Getenv: func(string) string { return "short" }}); err == nil || !strings.Contains(err.Error(), "admin.token_env") {
		t.Errorf("a 5-character admin token: %v, want refused", err)
	}
}

// TestAdminConfigIsValidated: `farebox serve --check` names the admin
// config's problems: a listener without a token, a token variable that is
// empty or too short.
func TestAdminConfigIsValidated(t *testing.T) {
	for _, c := range []struct {
		admin gateway.AdminConfig
		env   string
		want  string
	}{
		{gateway.AdminConfig{Addr: "127.0.0.1:0"}, "", "admin.addr"},
		{gateway.AdminConfig{TokenEnv: "T"}, "", "admin.token_env: $T is empty"},
		{gateway.AdminConfig{TokenEnv: "T"}, "short", "at least 16 characters"},
		{gateway.AdminConfig{TokenEnv: "T"}, "two words of sixteen characters", "one word"},
	} {
		cfg := freeConfig()
		cfg.Admin = c.admin
		err := cfg.Validate(func(string) string { return c.env })
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v with %q: %v, want %q", c.admin, c.env, err, c.want)
		}
	}
	cfg := freeConfig()
	cfg.Admin.TokenEnv = "T"
	if err := cfg.Validate(func(string) string { return adminToken }); err != nil {
		t.Errorf("a good admin config: %v", err)
	}
}

// TestBooksEthPriceIsValidated: books.eth_price_usdc is a positive USDC
// decimal; serve --check names the key otherwise.
func TestBooksEthPriceIsValidated(t *testing.T) {
	for _, bad := range []string{"-3000", "3,000", "0", "1e3", "3000.1234567"} {
		cfg := freeConfig()
		cfg.Books.EthPriceUSDC = bad
		if err := cfg.Validate(nil); err == nil || !strings.Contains(err.Error(), "books.eth_price_usdc") {
			t.Errorf("eth_price_usdc %q: %v, want an error naming books.eth_price_usdc", bad, err)
		}
		if _, err := gateway.New(cfg, gateway.Options{}); err == nil || !strings.Contains(err.Error(), "books.eth_price_usdc") {
			t.Errorf("gateway.New with eth_price_usdc %q: %v", bad, err)
		}
	}
	cfg := freeConfig()
	cfg.Books.EthPriceUSDC = "3120.55"
	if err := cfg.Validate(nil); err != nil {
		t.Errorf("a good price: %v", err)
	}
}

// TestAdminChannelsAndClaim: with batch-settlement served, the channels
// view says so, with the claim policy (interval, threshold and what is
// left to reach it) and no claim scheduled while nothing is unclaimed;
// "claim now" answers what it claimed (nothing, with no channel open);
// forgiving a payer without debts forgives 0.
func TestAdminChannelsAndClaim(t *testing.T) {
	c := devChain(t)
	st, err := evm.NewSettler(context.Background(), c.Client, c.RelayerKey)
	if err != nil {
		t.Fatal(err)
	}
	cfg := paidConfig(c, "after")
	cfg.Admin.TokenEnv = "FAREBOX_ADMIN_TOKEN"
	cfg.Payments.BatchSettlement.ClaimThreshold = "0.5"
	ts := startServer(t, cfg, gateway.Options{Networks: []*x402.Network{c.Network}, Settler: st, Ready: st.Ready,
		Getenv: func(n string) string { return map[string]string{"FAREBOX_ADMIN_TOKEN": adminToken}[n] }})
	root := strings.TrimSuffix(ts.URL, "/v1")
	bearer := []string{"Authorization", "Bearer " + adminToken}
	status, _, b := do(t, "GET", root+"/admin/api/channels", nil, bearer...)
	var chans struct {
		Served        bool              `json:"served"`
		Channels      []json.RawMessage `json:"channels"`
		Unclaimed     string            `json:"unclaimed"`
		Interval      int64             `json:"claim_interval_seconds"`
		Threshold     string            `json:"claim_threshold"`
		ThresholdLeft string            `json:"claim_threshold_left"`
		NextClaimAt   *string           `json:"next_claim_at"`
	}
	if status != http.StatusOK || json.Unmarshal(b, &chans) != nil || !chans.Served || len(chans.Channels) != 0 || chans.Unclaimed != "0" ||
		chans.Interval != 3600 || chans.Threshold != "0.5" || chans.ThresholdLeft != "0.5" || chans.NextClaimAt != nil {
		t.Errorf("channels: %d %s, want none, the hour's interval, the whole threshold to go and no claim scheduled", status, b)
	}
	status, _, b = do(t, "POST", root+"/admin/api/channels/claim", nil, bearer...)
	if status != http.StatusOK || !strings.Contains(string(b), `"claimed":"0"`) {
		t.Errorf("claim now: %d %s", status, b)
	}
	status, _, b = do(t, "POST", root+"/admin/api/debts/0x1111111111111111111111111111111111111111/forgive", nil, bearer...)
	if status != http.StatusOK || !strings.Contains(string(b), `"forgiven":"0"`) {
		t.Errorf("forgive: %d %s", status, b)
	}
}
