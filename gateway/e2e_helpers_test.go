package gateway_test

import (
	"bytes"
	"context"
	"github.com/farebox/farebox/upstream"
	"github.com/farebox/farebox/upstream/chat"
	upopenai "github.com/farebox/farebox/upstream/openai"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/farebox/farebox/gateway"
	"github.com/farebox/farebox/schemas"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/tidwall/gjson"
)

// testServer is a real farebox on a loopback port.
type testServer struct {
	*gateway.Server
	URL  string // base URL, with /v1
	logs *lockedWriter
}

func freeConfig() gateway.Config {
	return gateway.Config{
		Models: []gateway.ModelConfig{
			{Name: "farebox-scripted-free", Upstream: "scripted", Price: "0"},
		},
	}
}

// startServer runs farebox with cfg until the test ends.
func startServer(t testing.TB, cfg gateway.Config, opts gateway.Options) *testServer {
	t.Helper()
	if cfg.Metrics == (gateway.MetricsConfig{}) {
		cfg.Metrics.Public = true // the tests scrape /metrics as an operator who opened it
	}
	return startServerAsIs(t, cfg, opts)
}

// startServerAsIs is startServer without opening /metrics.
func startServerAsIs(t testing.TB, cfg gateway.Config, opts gateway.Options) *testServer {
	t.Helper()
	logs := &lockedWriter{w: &bytes.Buffer{}}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.NewJSONHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	srv, err := gateway.New(cfg, opts)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve(ln)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		srv.Shutdown(ctx)
	})
	return &testServer{Server: srv, URL: "http://" + ln.Addr().String() + "/v1", logs: logs}
}

// client is openai-go pointed at the test server; every raw JSON body it
// receives is validated against schemas/ by a middleware.
func (ts *testServer) client(t testing.TB, opts ...option.RequestOption) *openai.Client {
	base := []option.RequestOption{
		option.WithBaseURL(ts.URL + "/"),
		option.WithAPIKey("unused"),
		option.WithMaxRetries(0),
		option.WithMiddleware(schemaCheck(t)),
	}
	c := openai.NewClient(append(base, opts...)...)
	return &c
}

// schemaCheck validates every response body (each SSE event, or the JSON
// object) farebox sends against the embedded schemas.
func schemaCheck(t testing.TB) option.Middleware {
	return func(req *http.Request, next option.MiddlewareNext) (*http.Response, error) {
		res, err := next(req)
		if err != nil || !strings.HasSuffix(req.URL.Path, "/responses") {
			return res, err
		}
		body, rerr := io.ReadAll(res.Body)
		res.Body.Close()
		if rerr != nil {
			return nil, rerr
		}
		res.Body = io.NopCloser(bytes.NewReader(body))
		validateBody(t, res, body)
		return res, nil
	}
}

func validateBody(t testing.TB, res *http.Response, body []byte) {
	t.Helper()
	switch {
	case strings.HasPrefix(res.Header.Get("Content-Type"), "text/event-stream"):
		for _, line := range strings.Split(string(body), "\n") {
			data, ok := strings.CutPrefix(line, "data: ")
			if !ok || data == "[DONE]" {
				continue
			}
			if err := schemas.ValidateEvent([]byte(data)); err != nil {
				t.Errorf("event fails its schema: %v\n%s", err, data)
			}
		}
	case res.StatusCode == http.StatusOK:
		if err := schemas.Validate("response", body); err != nil {
			t.Errorf("response fails its schema: %v\n%s", err, body)
		}
	default:
		if err := schemas.Validate("error_body", body); err != nil {
			t.Errorf("error body fails its schema: %v\n%s", err, body)
		}
		if !gjson.GetBytes(body, "error").IsObject() {
			t.Errorf("error body without an error object: %s", body)
		}
	}
}

// post sends a raw request and returns status, headers and body.
func post(t testing.TB, url string, body string, headers ...string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return res, b
}

// lockedWriter lets the test read logs the server is still writing.
type lockedWriter struct {
	mu sync.Mutex
	w  *bytes.Buffer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func (l *lockedWriter) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.String()
}

// waitLog waits for the server's first "request" log line match accepts.
func waitLog(t testing.TB, ts *testServer, match func(gjson.Result) bool) gjson.Result {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		for _, l := range strings.Split(ts.logs.String(), "\n") {
			if line := gjson.Parse(l); line.Get("msg").String() == "request" && match(line) {
				return line
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no such log line in:\n%s", ts.logs.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// endpoint is the keys of an HTTP upstream of kind (openai or chat) at
// baseURL, asking it for model (within timeouts, when given).
func endpoint(kind, baseURL, model string, timeouts ...gateway.UpstreamTimeouts) upstream.Config {
	e := upstream.Endpoint{BaseURL: baseURL, UpstreamModel: model}
	for _, t := range timeouts {
		e.Timeouts = t
	}
	if kind == chat.Kind {
		return &chat.Settings{Endpoint: e}
	}
	return &upopenai.Settings{Endpoint: e}
}
