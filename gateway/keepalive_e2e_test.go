package gateway_test

import (
	"context"
	"github.com/farebox/farebox/upstream/scripted"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/farebox/farebox/gateway"
	oresponses "github.com/openai/openai-go/v3/responses"
	"github.com/tidwall/gjson"
)

// While a stream waits between deltas, farebox writes SSE comment lines;
// each sits between two whole events, and openai-go still reads the stream
// to its end.
func TestKeepAliveCommentsWhileAStreamWaits(t *testing.T) {
	cfg := freeConfig()
	cfg.Models[0].UpstreamConfig = &scripted.Settings{Pace: gateway.Duration(300 * time.Millisecond)}
	cfg.Keepalive = gateway.Duration(40 * time.Millisecond)
	ts := startServer(t, cfg, gateway.Options{})
	input := "a slow answer with pauses"

	res, body := post(t, ts.URL+"/responses", `{"model":"`+free+`","stream":true,"input":"`+input+`"}`)
	if res.StatusCode != 200 {
		t.Fatalf("%d %s", res.StatusCode, body)
	}
	comments := 0
	for _, frame := range strings.Split(strings.TrimSuffix(string(body), "\n\n"), "\n\n") {
		switch {
		case frame == ": keep-alive":
			comments++
		case strings.HasPrefix(frame, "event: "):
			_, data, ok := strings.Cut(frame, "\ndata: ")
			if !ok || !gjson.Valid(data) {
				t.Errorf("a broken event frame: %q", frame)
			}
		case frame == "data: [DONE]":
		default:
			t.Errorf("unexpected frame %q", frame)
		}
	}
	if comments == 0 {
		t.Errorf("no keep-alive comment in a stream with 300 ms pauses:\n%s", body)
	}

	stream := ts.client(t).Responses.NewStreaming(context.Background(), oresponses.ResponseNewParams{Model: free, Input: userText(input)})
	var final oresponses.Response
	for stream.Next() {
		if ev := stream.Current(); ev.Type == "response.completed" {
			final = ev.Response
		}
	}
	if err := stream.Err(); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(final.OutputText(), input) {
		t.Errorf("the SDK's final response: %q", final.OutputText())
	}
	if n := value(scrape(t, strings.TrimSuffix(ts.URL, "/v1")+"/metrics"), "farebox_sse_keepalives_total"); n < float64(comments) {
		t.Errorf("keep-alives counted %v, seen %d", n, comments)
	}
}

// A client that leaves a stream is logged (and counted) as 499.
func TestClientGoneIsLogged499(t *testing.T) {
	cfg := freeConfig()
	cfg.Models[0].UpstreamConfig = &scripted.Settings{Pace: gateway.Duration(100 * time.Millisecond)}
	ts := startServer(t, cfg, gateway.Options{})
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, ts.URL+"/responses",
		strings.NewReader(`{"model":"`+free+`","stream":true,"input":"long enough to leave in the middle of it"}`))
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := res.Body.Read(make([]byte, 64)); err != nil {
		t.Fatal(err)
	}
	cancel()
	io.Copy(io.Discard, res.Body)
	res.Body.Close()
	line := waitLog(t, ts, func(l gjson.Result) bool { return l.Get("path").String() == "/v1/responses" })
	if line.Get("status").Int() != 499 || line.Get("model").String() != free || line.Get("charge").Exists() {
		t.Errorf("access log: %s", line.Raw)
	}
	waitMetric(t, strings.TrimSuffix(ts.URL, "/v1"), "farebox_http_requests_total", 1, "route", "/v1/responses", "status", "499")
}
