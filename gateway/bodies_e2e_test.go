package gateway_test

import (
	"bufio"
	"bytes"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/farebox/farebox/gateway"
	"github.com/tidwall/gjson"
)

// openBody dials addr and sends the headers of a POST /v1/responses that
// declares length bytes, then sent bytes of its body, and stops there.
func openBody(t *testing.T, addr string, length, sent int) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	head := "POST /v1/responses HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: " + strconv.Itoa(length) + "\r\n\r\n"
	if _, err := io.WriteString(c, head); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Write(bytes.Repeat([]byte(" "), sent)); err != nil {
		t.Fatal(err)
	}
	return c
}

// awaitGauge polls a gauge until cond holds (bounded, so a server that
// never gets there fails instead of hanging).
func awaitGauge(t *testing.T, root, name string, cond func(float64) bool) float64 {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		got := value(scrape(t, root+"/metrics"), name)
		if cond(got) {
			return got
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s stayed at %v", name, got)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Sixteen clients send most of a large body at once and then idle: the
// bytes they sent buy them no time, so each is cut off with a 408 after
// one window without progress and closed, and the bytes they pinned are
// released; while they hang, an honest call is answered.
func TestHostileBodiesSentThenIdleAreCut(t *testing.T) {
	const conns, sent = 16, 1 << 20
	cfg := freeConfig()
	cfg.LogLevel = "error"
	cfg.Limits.BodyRateWindow = gateway.Duration(3 * time.Second)
	ts := startServer(t, cfg, gateway.Options{})
	root := strings.TrimSuffix(ts.URL, "/v1")
	addr := strings.TrimPrefix(root, "http://")

	var cs []net.Conn
	for range conns {
		cs = append(cs, openBody(t, addr, sent+1, sent))
	}
	held := awaitGauge(t, root, "farebox_request_body_bytes", func(v float64) bool { return v >= conns*sent/2 })
	if res, body := post(t, ts.URL+"/responses", `{"model":"`+free+`","input":"still here"}`); res.StatusCode != 200 {
		t.Errorf("an honest call while they hang: %d %s", res.StatusCode, body)
	}
	for i, c := range cs {
		// Bounded: on a server that lets sent bytes buy time, this is where
		// the connection would hang for the better part of an hour.
		c.SetReadDeadline(time.Now().Add(60 * time.Second))
		status, err := bufio.NewReader(c).ReadString('\n')
		if err != nil || !strings.Contains(status, " 408 ") {
			t.Fatalf("connection %d: %q %v, want a 408", i, status, err)
		}
		if _, err := io.Copy(io.Discard, c); err != nil {
			t.Fatalf("connection %d was not closed by the server: %v", i, err)
		}
	}
	waitMetric(t, root, "farebox_request_body_bytes", 0)
	t.Logf("%d idle senders held %.1f MiB of bodies at most %s each, then were cut", conns, held/(1<<20), time.Duration(cfg.Limits.BodyRateWindow))
}

// limits.max_body_bytes bounds the bytes of all bodies in flight: a body
// that would pass it gets an OpenAI-shaped 503 with Retry-After, and once
// the body pinning the bytes is gone the same call is served.
func TestHostileBodiesOverTheCapAre503(t *testing.T) {
	const budget = 2 << 20
	cfg := freeConfig()
	cfg.LogLevel = "error"
	cfg.Limits.MaxBodyBytes = budget
	cfg.Limits.BodyTimeout = gateway.Duration(time.Minute) // the hog is not cut while the test runs
	cfg.Limits.BodyRateWindow = gateway.Duration(time.Minute)
	ts := startServer(t, cfg, gateway.Options{})
	root := strings.TrimSuffix(ts.URL, "/v1")
	addr := strings.TrimPrefix(root, "http://")

	hog := openBody(t, addr, budget+(1<<20), budget-1024)
	waitMetric(t, root, "farebox_request_body_bytes", budget-1024)
	honest := `{"model":"` + free + `","input":"` + strings.Repeat("x", 4096) + `"}`
	res, body := post(t, ts.URL+"/responses", honest)
	if res.StatusCode != http.StatusServiceUnavailable || gjson.GetBytes(body, "error.code").String() != "server_overloaded" ||
		res.Header.Get("Retry-After") == "" {
		t.Fatalf("over the cap: %d %s (Retry-After %q), want 503 server_overloaded", res.StatusCode, body, res.Header.Get("Retry-After"))
	}
	hog.Close()
	waitMetric(t, root, "farebox_request_body_bytes", 0)
	if res, body := post(t, ts.URL+"/responses", honest); res.StatusCode != 200 {
		t.Fatalf("after the hog left: %d %s", res.StatusCode, body)
	}
}
