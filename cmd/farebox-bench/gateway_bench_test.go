package main

import (
	"context"
	"github.com/farebox/farebox/internal/testkit/inprocess"
	fbupstream "github.com/farebox/farebox/upstream"
	upopenai "github.com/farebox/farebox/upstream/openai"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/farebox/farebox/gateway"
	"github.com/farebox/farebox/internal/testkit/fakeupstream"
	"github.com/farebox/farebox/responses"
	"github.com/farebox/farebox/x402"
	"github.com/farebox/farebox/x402/payer"
)

// These benchmarks drive farebox's handler in process (no client socket)
// so a CPU profile shows farebox's own work per call:
//
//	go test ./cmd/farebox-bench -run '^$' -bench Gateway -cpuprofile cpu.prof
//	go tool pprof -top -cum cpu.prof
//
// The openai variants call the fake upstream over loopback HTTP with
// farebox's real upstream client; the inprocess variants use a model that
// emits the same text with no I/O, isolating the gateway from its client.
// Paid calls settle through the harness's stand-in (see standin.go).

// fixedModel answers with the fake upstream's text, word by word, in process.
type fixedModel struct{}

func (fixedModel) Respond(_ context.Context, _ *responses.Request, out responses.Output) error {
	for _, w := range strings.SplitAfter(fakeupstream.DefaultText, " ") {
		if err := out.Text(w); err != nil {
			return err
		}
	}
	out.SetUsage(responses.Usage{InputTokens: 10, OutputTokens: 9})
	return nil
}

type benchGateway struct {
	h       http.Handler
	pool    *payPool
	standIn *settleStandIn
}

func newBenchGateway(tb testing.TB, upstream string) *benchGateway {
	tb.Helper()
	fake, err := fakeupstream.Start(fakeupstream.Options{KeepRecords: 1})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { fake.Close() })
	st, err := startSettleStandIn()
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(st.close)
	mc := func(name, price string) gateway.ModelConfig {
		m := gateway.ModelConfig{Name: name, Upstream: upstream, Price: price, UpstreamConfig: inprocess.Use(fixedModel{})}
		if upstream != inprocess.Kind {
			m.UpstreamConfig = &upopenai.Settings{Endpoint: fbupstream.Endpoint{UpstreamModel: "anything", BaseURL: fake.URL()}}
		}
		return m
	}
	cfg := gateway.Config{
		Payments: gateway.PaymentsConfig{
			PayTo: "0x000000000000000000000000000000000000bEEF", Networks: []string{benchNetwork.CAIP2},
			MaxTimeoutSeconds: 3600, Settle: "after", Settler: "facilitator",
			Facilitator: gateway.FacilitatorConfig{URL: st.URL()},
		},
		Models: []gateway.ModelConfig{mc("bench-free", "0"), mc("bench-paid", "0.001")},
	}
	srv, err := gateway.New(cfg, gateway.Options{
		Logger:   slog.New(slog.NewJSONHandler(io.Discard, &slog.HandlerOptions{Level: slog.LevelInfo})),
		Networks: []*x402.Network{benchNetwork},
	})
	if err != nil {
		tb.Fatal(err)
	}
	g := &benchGateway{h: srv.Handler(), standIn: st}
	// The offer, read the way a client reads it: from a 402.
	rec := g.post("bench-paid", "", "")
	if rec.Code != http.StatusPaymentRequired {
		tb.Fatalf("unpaid call: %d %s", rec.Code, rec.Body)
	}
	offers, err := x402.DecodePaymentRequired(rec.Header().Get(x402.HeaderPaymentRequired))
	if err != nil {
		tb.Fatal(err)
	}
	reg, _ := x402.NewRegistry(benchNetwork)
	req, err := offers[0].Requirement(reg)
	if err != nil {
		tb.Fatal(err)
	}
	pp, err := newSigner()
	if err != nil {
		tb.Fatal(err)
	}
	g.pool = &payPool{req: req, signers: []*payer.Signer{pp}, paid: map[common.Address]int{}}
	return g
}

func (g *benchGateway) post(model, hdr, value string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(http.MethodPost, "http://127.0.0.1:8402/v1/responses", strings.NewReader(`{"model":"`+model+`","input":"Say hello."}`))
	req.Header.Set("Content-Type", "application/json")
	if hdr != "" {
		req.Header.Set(hdr, value)
	}
	rec := httptest.NewRecorder()
	g.h.ServeHTTP(rec, req)
	return rec
}

func benchGatewayCalls(b *testing.B, upstream string, paid bool) {
	g := newBenchGateway(b, upstream)
	model := "bench-free"
	if paid {
		model = "bench-paid"
		if err := g.pool.fill(b.N); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		var name, value string
		if paid {
			sp := g.pool.take()
			name, value = sp.name, sp.value
		}
		rec := g.post(model, name, value)
		if rec.Code != http.StatusOK {
			b.Fatalf("call %d: %d %s", i, rec.Code, rec.Body)
		}
	}
}

func BenchmarkGatewayFreeOpenAI(b *testing.B)    { benchGatewayCalls(b, "openai", false) }
func BenchmarkGatewayPaidOpenAI(b *testing.B)    { benchGatewayCalls(b, "openai", true) }
func BenchmarkGatewayFreeInprocess(b *testing.B) { benchGatewayCalls(b, "inprocess", false) }
func BenchmarkGatewayPaidInprocess(b *testing.B) { benchGatewayCalls(b, "inprocess", true) }

// TestBenchGatewayPaysAndAnswers checks the benchmark's setup serves what
// it claims: a paid call with a pre-signed header gets the text and a
// successful receipt; the same header on the same body is an idempotent
// retry (served again, settled once), on another body it is refused.
func TestBenchGatewayPaysAndAnswers(t *testing.T) {
	for _, up := range []string{"openai", "inprocess"} {
		g := newBenchGateway(t, up)
		sp := g.pool.take()
		name, value := sp.name, sp.value
		rec := g.post("bench-paid", name, value)
		if rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), fakeupstream.DefaultText) {
			t.Fatalf("%s: %d %s", up, rec.Code, rec.Body)
		}
		r, err := x402.DecodeReceipt(rec.Header().Get(x402.HeaderPaymentResponse))
		if err != nil || !r.Success {
			t.Fatalf("%s: receipt %+v, %v", up, r, err)
		}
		if again := g.post("bench-paid", name, value); again.Code != http.StatusOK {
			t.Errorf("%s: retried call answered %d %s", up, again.Code, again.Body)
		}
		if n := g.standIn.calls.Load(); n != 1 {
			t.Errorf("%s: %d settlements for one authorization", up, n)
		}
		req := httptest.NewRequest(http.MethodPost, "http://127.0.0.1:8402/v1/responses", strings.NewReader(`{"model":"bench-paid","input":"Something else."}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set(name, value)
		other := httptest.NewRecorder()
		g.h.ServeHTTP(other, req)
		if other.Code == http.StatusOK {
			t.Errorf("%s: the authorization paid for another body too", up)
		}
	}
}
