package gateway_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/farebox/farebox/gateway"
	"github.com/farebox/farebox/x402"
	oresponses "github.com/openai/openai-go/v3/responses"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// scrape reads /metrics on a fresh connection (a scrape must not hold a
// place under the connection cap) and parses it as Prometheus text.
func scrape(t testing.TB, url string, header ...string) map[string]*dto.MetricFamily {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, url, nil)
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	cl := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	res, err := cl.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if res.StatusCode != 200 {
		t.Fatalf("/metrics: %d", res.StatusCode)
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(res.Body)
	if err != nil {
		t.Fatalf("/metrics is not Prometheus text: %v", err)
	}
	return fams
}

// value is the sum of a family's samples whose labels include want
// (a counter's or gauge's value, a histogram's count); -1 when none match.
func value(fams map[string]*dto.MetricFamily, name string, want ...string) float64 {
	f, ok := fams[name]
	if !ok {
		return -1
	}
	sum, found := 0.0, false
	for _, m := range f.Metric {
		labels := map[string]string{}
		for _, l := range m.Label {
			labels[l.GetName()] = l.GetValue()
		}
		match := true
		for i := 0; i+1 < len(want); i += 2 {
			if labels[want[i]] != want[i+1] {
				match = false
			}
		}
		if !match {
			continue
		}
		found = true
		switch {
		case m.Counter != nil:
			sum += m.Counter.GetValue()
		case m.Gauge != nil:
			sum += m.Gauge.GetValue()
		case m.Histogram != nil:
			sum += float64(m.Histogram.GetSampleCount())
		case m.Untyped != nil:
			sum += m.Untyped.GetValue()
		}
	}
	if !found {
		return -1
	}
	return sum
}

// waitMetric scrapes root/metrics until name (with labels) reads want.
func waitMetric(t testing.TB, root, name string, want float64, labels ...string) map[string]*dto.MetricFamily {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		fams := scrape(t, root+"/metrics")
		got := value(fams, name, labels...)
		if got == want {
			return fams
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s%v is %v, want %v", name, labels, got, want)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// After paid calls (one plain, one streamed) /metrics parses as Prometheus
// text and carries the series an operator alarms on.
func TestMetricsAfterAPaidCall(t *testing.T) {
	ts, c := startPaid(t, "after")
	var receipts []*x402.Receipt
	cl := payingClient(t, ts, c, &receipts)
	if _, err := cl.Responses.New(context.Background(), oresponses.ResponseNewParams{Model: paid, Input: userText("count me")}); err != nil {
		t.Fatal(err)
	}
	collect(t, cl, oresponses.ResponseNewParams{Model: paid, Input: userText("count my stream")})
	root := strings.TrimSuffix(ts.URL, "/v1")
	fams := scrape(t, root+"/metrics")
	for _, s := range []struct {
		name   string
		labels []string
		min    float64
	}{
		{"farebox_http_requests_total", []string{"route", "/v1/responses", "model", paid, "status", "200"}, 2},
		{"farebox_http_requests_total", []string{"route", "/v1/responses", "model", paid, "status", "402"}, 2},
		{"farebox_http_request_duration_seconds", []string{"route", "/v1/responses"}, 4},
		{"farebox_http_time_to_first_byte_seconds", []string{"route", "/v1/responses"}, 4},
		{"farebox_upstream_duration_seconds", []string{"model", paid}, 2},
		{"farebox_payments_total", []string{"outcome", "offered"}, 2},
		{"farebox_payments_total", []string{"outcome", "settled"}, 2},
		{"farebox_settlement_duration_seconds", nil, 2},
		{"farebox_settlements_in_flight", nil, 0},
		{"farebox_open_streams", nil, 0},
		{"farebox_requests_in_flight", nil, 0},
		{"farebox_open_connections", nil, 1},
		{"farebox_settlements_total", nil, 2},
		{"farebox_settlement_failures_total", nil, 0},
		{"farebox_charges_total", []string{"outcome", "settled"}, 2},
		{"farebox_charges_total", []string{"outcome", "released"}, 0},
		{"go_goroutines", nil, 1},
		{"go_memstats_heap_alloc_bytes", nil, 1},
		{"process_resident_memory_bytes", nil, 1},
		{"process_open_fds", nil, 1},
	} {
		if got := value(fams, s.name, s.labels...); got < s.min {
			t.Errorf("%s%v = %v, want >= %v", s.name, s.labels, got, s.min)
		}
	}
	if got := value(fams, "farebox_open_streams"); got != 0 {
		t.Errorf("open streams after the stream ended: %v", got)
	}
}

// With metrics.addr, /metrics leaves the main listener for its own.
func TestMetricsOnTheirOwnAddress(t *testing.T) {
	cfg := freeConfig()
	cfg.Metrics.Addr = "127.0.0.1:0"
	cfg.Metrics.BearerTokenEnv = "TOKEN"
	ts := startServer(t, cfg, gateway.Options{Getenv: func(string) string { return "tok" }})
	res, err := http.Get(strings.TrimSuffix(ts.URL, "/v1") + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != 404 {
		t.Errorf("/metrics on the main listener: %d", res.StatusCode)
	}
	res, err = http.Get("http://" + ts.MetricsAddr() + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != 401 {
		t.Errorf("without the token: %d", res.StatusCode)
	}
	fams := scrape(t, "http://"+ts.MetricsAddr()+"/metrics", "Authorization", "Bearer tok")
	if value(fams, "go_goroutines") < 1 {
		t.Error("no runtime metrics")
	}
}
