package main

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/farebox/farebox/internal/testkit/fakeupstream"
)

func TestQuantileAndSpread(t *testing.T) {
	var s []time.Duration
	for i := 100; i >= 1; i-- {
		s = append(s, time.Duration(i)*time.Microsecond)
	}
	sorted := sortedCopy(s)
	if s[0] != 100*time.Microsecond {
		t.Fatal("sortedCopy changed its input")
	}
	for _, c := range []struct {
		q    float64
		want time.Duration
	}{{0.5, 50 * time.Microsecond}, {0.99, 99 * time.Microsecond}, {1, 100 * time.Microsecond}, {0, time.Microsecond}} {
		if got := quantile(sorted, c.q); got != c.want {
			t.Errorf("quantile(%v) = %v, want %v", c.q, got, c.want)
		}
	}
	if quantile(nil, .5) != 0 {
		t.Error("quantile of nothing is not 0")
	}
	sp := spreadOf([]float64{5, 1, 3, 9})
	if sp.Median != 4 || sp.Min != 1 || sp.Max != 9 || sp.Rounds != 4 {
		t.Errorf("spreadOf = %+v", sp)
	}
	if ratio(1, 0) != 0 || ratio(3, 2) != 1.5 {
		t.Error("ratio")
	}
}

func TestProcReaders(t *testing.T) {
	c0, err := cpuTime(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(60 * time.Millisecond)
	n := 0
	for time.Now().Before(deadline) {
		n++
	}
	c1, err := cpuTime(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	if c1 < c0 || n == 0 {
		t.Errorf("cpu time went from %v to %v", c0, c1)
	}
	if schedTime(os.Getpid()) <= 0 {
		t.Error("schedstat shows no CPU time for a running process")
	}
	rss, err := rssKiB(os.Getpid())
	if err != nil || rss <= 0 {
		t.Errorf("rss = %d, %v", rss, err)
	}
}

func TestBareProxyStreamsEveryDeltaAndTheStandInSettles(t *testing.T) {
	fake, err := fakeupstream.Start(fakeupstream.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer fake.Close()
	h, err := bareProxy(strings.TrimSuffix(fake.URL(), "/v1"))
	if err != nil {
		t.Fatal(err)
	}
	px := httptest.NewServer(h)
	defer px.Close()
	c := newClient()
	for _, a := range []*arm{
		{name: armDirect, url: fake.URL() + "/responses", model: "anything"},
		{name: armBare, url: px.URL + "/v1/responses", model: "anything"},
	} {
		if _, err := callOnce(context.Background(), c, a); err != nil {
			t.Fatal(err)
		}
		run, err := readStream(context.Background(), c, a, "anything+gap=1ms")
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Join(run.deltas, ""); got != fakeupstream.DefaultText {
			t.Errorf("%s: deltas join to %q", a.name, got)
		}
		if len(run.deltas) < 5 || len(run.gaps) != len(run.deltas)-1 {
			t.Errorf("%s: %d deltas, %d gaps", a.name, len(run.deltas), len(run.gaps))
		}
	}

	s, err := startSettleStandIn()
	if err != nil {
		t.Fatal(err)
	}
	defer s.close()
	body := `{"x402Version":2,"paymentPayload":{"payload":{"authorization":{"from":"0xabc"}}},"paymentRequirements":{"network":"eip155:1337"}}`
	res, err := http.Post(s.URL()+"/settle", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var out struct {
		Success     bool   `json:"success"`
		Payer       string `json:"payer"`
		Transaction string `json:"transaction"`
		Network     string `json:"network"`
	}
	if err := json.NewDecoder(res.Body).Decode(&out); err != nil {
		t.Fatal(err)
	}
	if !out.Success || out.Payer != "0xabc" || len(out.Transaction) != 66 || out.Network != "eip155:1337" || s.calls.Load() != 1 {
		t.Errorf("stand-in answered %+v after %d calls", out, s.calls.Load())
	}
}

func TestReportTableAndChart(t *testing.T) {
	r := &Report{Generated: "now", Setup: Setup{Rounds: 1, P99LimitMs: 20}}
	for i, name := range []string{armDirect, armBare, armFree, armPaid} {
		l := &LatencyResult{Arm: name, P50us: Spread{Median: float64(100 * (i + 1))}, P99us: Spread{Median: float64(200 * (i + 1))}}
		for k := 1; k <= 100; k++ {
			l.all = append(l.all, time.Duration((i+1)*k)*time.Microsecond)
		}
		r.Latency = append(r.Latency, l)
	}
	r.CPU = []*CPUResult{{Arm: armBare, PerCallUs: Spread{Median: 50}}, {Arm: armFree, PerCallUs: Spread{Median: 80}}, {Arm: armPaid, PerCallUs: Spread{Median: 130}}}
	r.derive()
	var paidBudget *Budget
	for i := range r.Budgets {
		if strings.HasPrefix(r.Budgets[i].Name, "gateway CPU") {
			paidBudget = &r.Budgets[i]
		}
	}
	if paidBudget == nil || paidBudget.Measured != 130 || paidBudget.Met {
		t.Errorf("CPU budget line = %+v", paidBudget)
	}
	var table bytes.Buffer
	r.writeTable(&table)
	for _, want := range []string{"| farebox-paid | 400", "cpu per call farebox-paid / bare proxy | 2.60x"} {
		if !strings.Contains(table.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, table.String())
		}
	}
	var svg bytes.Buffer
	if err := writeLatencySVG(&svg, r.Latency, "t <&> t", "note"); err != nil {
		t.Fatal(err)
	}
	dec := xml.NewDecoder(bytes.NewReader(svg.Bytes()))
	lines := 0
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("chart is not well-formed XML: %v", err)
		}
		if se, ok := tok.(xml.StartElement); ok && se.Name.Local == "polyline" {
			lines++
		}
	}
	if lines != 4 {
		t.Errorf("chart has %d curves, want 4", lines)
	}
}
