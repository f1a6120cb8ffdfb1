package gateway_test

import (
	"bufio"
	"context"
	"github.com/farebox/farebox/upstream/scripted"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/farebox/farebox/gateway"
	"github.com/farebox/farebox/schemas"
	"github.com/tidwall/gjson"
)

// Every refusal, whoever makes it (a handler, echo's router, net/http
// itself, the limits), is an OpenAI error object with the right status.
func TestRefusalsAreOpenAIErrors(t *testing.T) {
	cfg := freeConfig()
	cfg.BodyLimit = 1024
	cfg.Limits.OtherBodyLimit = 64
	cfg.Limits.MaxHeaderBytes = 4096
	cfg.Metrics.BearerTokenEnv = "METRICS_TOKEN"
	ts := startServer(t, cfg, gateway.Options{Getenv: func(k string) string {
		return map[string]string{"METRICS_TOKEN": "s3cret"}[k]
	}})
	root := strings.TrimSuffix(ts.URL, "/v1")
	okBody := `{"model":"` + free + `","input":"hi"}`
	for _, c := range []struct {
		name, method, path, body string
		headers                  []string
		status                   int
		code                     string
	}{
		{"unknown URL", "POST", "/v1/completions", okBody, nil, 404, "unknown_url"},
		{"unknown model", "GET", "/v1/models/nope", "", nil, 404, "model_not_found"},
		{"GET on a POST route", "GET", "/v1/responses", "", nil, 405, "method_not_allowed"},
		{"body over body_limit", "POST", "/v1/responses", `{"input":"` + strings.Repeat("x", 2000) + `"}`, nil, 413, "request_too_large"},
		{"body on another route over other_body_limit", "GET", "/v1/models", strings.Repeat("x", 100), nil, 413, "request_too_large"},
		{"a page's text/plain", "POST", "/v1/responses", okBody, []string{"Content-Type", "text/plain;charset=UTF-8", "Origin", "https://a.example"}, 415, "unsupported_media_type"},
		{"a page's form", "POST", "/v1/responses", okBody, []string{"Content-Type", "application/x-www-form-urlencoded", "Origin", "https://a.example"}, 415, "unsupported_media_type"},
		{"a browser without a Content-Type", "POST", "/v1/responses", okBody, []string{"Content-Type", "", "Origin", "https://a.example"}, 415, "unsupported_media_type"},
		{"headers over max_header_bytes", "GET", "/healthz", "", []string{"X-Padding", strings.Repeat("p", 16<<10)}, 431, "request_headers_too_large"},
		{"metrics without the token", "GET", "/metrics", "", nil, 401, "invalid_api_key"},
		{"metrics with a wrong token", "GET", "/metrics", "", []string{"Authorization", "Bearer nope"}, 401, "invalid_api_key"},
	} {
		t.Run(c.name, func(t *testing.T) {
			req, _ := http.NewRequest(c.method, root+c.path, strings.NewReader(c.body))
			req.Header.Set("Content-Type", "application/json")
			for i := 0; i+1 < len(c.headers); i += 2 {
				if c.headers[i+1] == "" {
					req.Header.Del(c.headers[i])
				} else {
					req.Header.Set(c.headers[i], c.headers[i+1])
				}
			}
			res, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(res.Body)
			res.Body.Close()
			checkOpenAIError(t, res, body, c.status, c.code)
		})
	}
	t.Run("metrics with the token", func(t *testing.T) {
		req, _ := http.NewRequest("GET", root+"/metrics", nil)
		req.Header.Set("Authorization", "Bearer s3cret")
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != 200 {
			t.Errorf("status %d", res.StatusCode)
		}
	})
	t.Run("a request net/http refuses by itself", func(t *testing.T) {
		res, body := raw(t, root, "GET /healthz HTTP/1.1\r\n\r\n") // no Host
		checkOpenAIError(t, res, body, 400, "bad_http_request")
	})
}

// checkOpenAIError asserts an OpenAI error answer with status and code.
func checkOpenAIError(t *testing.T, res *http.Response, body []byte, status int, code string) {
	t.Helper()
	if res.StatusCode != status || !strings.HasPrefix(res.Header.Get("Content-Type"), "application/json") {
		t.Fatalf("status %d (%s), want %d: %s", res.StatusCode, res.Header.Get("Content-Type"), status, body)
	}
	if err := schemas.Validate("error_body", body); err != nil {
		t.Errorf("%v: %s", err, body)
	}
	if got := gjson.GetBytes(body, "error.code").String(); got != code {
		t.Errorf("code %q, want %q: %s", got, code, body)
	}
}

// raw sends bytes on a new connection and reads one answer.
func raw(t *testing.T, root, request string) (*http.Response, []byte) {
	t.Helper()
	c, err := net.Dial("tcp", strings.TrimPrefix(root, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := io.WriteString(c, request); err != nil {
		t.Fatal(err)
	}
	res, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	return res, body
}

// Over limits.max_in_flight a call gets 503 with Retry-After; probes are
// not counted and still answer.
func TestInFlightCapAnswers503(t *testing.T) {
	cfg := freeConfig()
	cfg.Models[0].UpstreamConfig = &scripted.Settings{Pace: gateway.Duration(200 * time.Millisecond)}
	cfg.Limits.MaxInFlight = 1
	ts := startServer(t, cfg, gateway.Options{})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, ts.URL+"/responses",
		strings.NewReader(`{"model":"`+free+`","stream":true,"input":"hold the only place for a while"}`))
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if _, err := res.Body.Read(make([]byte, 64)); err != nil { // the stream holds its place
		t.Fatal(err)
	}
	second, body := post(t, ts.URL+"/responses", `{"model":"`+free+`","input":"me too"}`)
	checkOpenAIError(t, second, body, 503, "server_overloaded")
	if second.Header.Get("Retry-After") == "" {
		t.Error("no Retry-After")
	}
	if h, err := http.Get(strings.TrimSuffix(ts.URL, "/v1") + "/healthz"); err != nil || h.StatusCode != 200 {
		t.Errorf("healthz while at the cap: %v %v", err, h)
	}
}

// Over limits.max_connections a new connection is answered 503 at once
// (not queued), while a probe on a new connection still answers.
func TestConnectionCap(t *testing.T) {
	cfg := freeConfig()
	cfg.Limits.MaxConnections = 4
	ts := startServer(t, cfg, gateway.Options{})
	root := strings.TrimSuffix(ts.URL, "/v1")
	addr := strings.TrimPrefix(root, "http://")
	for range 4 {
		c, err := net.Dial("tcp", addr) // idle connections hold their places
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
	}
	waitMetric(t, root, "farebox_open_connections", 4)
	res, body := raw(t, root, "POST /v1/responses HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}")
	checkOpenAIError(t, res, body, 503, "server_overloaded")
	if res.Header.Get("Retry-After") == "" {
		t.Error("no Retry-After")
	}
	res, body = raw(t, root, "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
	if res.StatusCode != 200 || gjson.GetBytes(body, "status").String() != "ok" {
		t.Errorf("healthz over the cap: %d %s", res.StatusCode, body)
	}
}
