package pool_test

import (
	"context"
	"errors"
	"net/http"
	"sync/atomic"
	"testing"

	"github.com/farebox/farebox/internal/testkit/upstreamtest"
	"github.com/farebox/farebox/responses"
	"github.com/farebox/farebox/upstream/pool"
	"github.com/farebox/farebox/upstream/upstreamhttp"
)

// modelFunc is a supplier made of a function; calls counts its calls.
type modelFunc struct {
	calls atomic.Int64
	f     func(ctx context.Context, req *responses.Request, out responses.Output) error
}

func (m *modelFunc) Respond(ctx context.Context, req *responses.Request, out responses.Output) error {
	m.calls.Add(1)
	return m.f(ctx, req, out)
}

func answers(text string) *modelFunc {
	return &modelFunc{f: func(_ context.Context, _ *responses.Request, out responses.Output) error { return out.Text(text) }}
}

// tooLarge is OpenAI's 429 for a request larger than the key's tokens per
// minute, mapped as every OpenAI-speaking upstream maps it.
func tooLarge() *modelFunc {
	body := []byte(`{"error":{"message":"Request too large for gpt-4o in organization org-x on tokens per min (TPM): Limit 30000, Requested 1000000. The input or output tokens must be reduced in order to run successfully.","type":"tokens","code":"rate_limit_exceeded"}}`)
	return &modelFunc{f: func(context.Context, *responses.Request, responses.Output) error {
		return upstreamhttp.FromStatus(http.StatusTooManyRequests, http.Header{}, body)
	}}
}

func respond(t *testing.T, ctx context.Context, p *pool.Pool, body string) error {
	t.Helper()
	req := upstreamtest.Parse(t, body)
	em := responses.NewEmitter(req, upstreamtest.Discard{}, upstreamtest.EmitterOptions("m"))
	return p.Respond(ctx, req, em)
}

// A request too large for every supplier's rate limit (OpenAI's 429
// "Request too large ... tokens per min") opens no circuit, however often
// it is sent: the honest call right after is served by the first supplier.
func TestHostileTooLargeRequestOpensNoCircuit(t *testing.T) {
	a, b := tooLarge(), tooLarge()
	p := newPool(t, pool.Config{Failures: 2, Suppliers: []pool.Supplier{{Name: "a", Model: a}, {Name: "b", Model: b}}})
	for range 5 {
		if err := respond(t, context.Background(), p, `{"model":"m","input":"huge"}`); err == nil {
			t.Fatal("a too-large request was answered")
		}
	}
	for name, open := range p.Open(context.Background()) {
		if open {
			t.Errorf("supplier %s's circuit opened on requests too large", name)
		}
	}
	if err := p.Available(context.Background()); err != nil {
		t.Errorf("Available: %v", err)
	}
}

// One payment sent again and again after its call failed counts once
// against a supplier: it cannot open the circuit (failures 2), while two
// payments do.
func TestHostileReplayedPaymentCountsOnce(t *testing.T) {
	failing := &modelFunc{f: func(context.Context, *responses.Request, responses.Output) error {
		return upstreamhttp.FromStatus(500, http.Header{}, []byte(`{"error":{"message":"boom"}}`))
	}}
	p := newPool(t, pool.Config{Failures: 2, Suppliers: []pool.Supplier{{Name: "a", Model: failing}}})
	ctx := pool.WithPayment(context.Background(), "payment-1")
	for range 4 {
		respond(t, ctx, p, `{"model":"m","input":"hi"}`)
	}
	if p.Open(ctx)["a"] {
		t.Fatal("one payment replayed opened the circuit")
	}
	respond(t, pool.WithPayment(context.Background(), "payment-2"), p, `{"model":"m","input":"hi"}`)
	if !p.Open(ctx)["a"] {
		t.Error("two payments' failures did not open the circuit")
	}
	if err := p.Available(ctx); err == nil {
		t.Error("Available with every circuit open")
	}
}

// A supplier that was paid (it committed: an x402 seller signing) and then
// failed ends the call: the next paid supplier is not bought from, and
// the circuit of the paid one opens at once, whatever its threshold.
func TestHostilePaidFailureEndsTheCall(t *testing.T) {
	paidThenFails := &modelFunc{f: func(ctx context.Context, _ *responses.Request, _ responses.Output) error {
		if err := responses.Commit(ctx); err != nil {
			return err
		}
		return &responses.Error{Status: 502, Type: "server_error", Code: "server_error", Message: "seller failed"}
	}}
	second := answers("second")
	p := newPool(t, pool.Config{Failures: 100, Suppliers: []pool.Supplier{{Name: "paid", Model: paidThenFails}, {Name: "second", Model: second}}})
	err := respond(t, context.Background(), p, `{"model":"m","input":"hi"}`)
	var e *responses.Error
	if !errors.As(err, &e) || e.Status != 502 {
		t.Fatalf("got %v, want the paid seller's 502", err)
	}
	if n := second.calls.Load(); n != 0 {
		t.Errorf("the second supplier was called %d times after the first was paid", n)
	}
	if !p.Open(context.Background())["paid"] {
		t.Error("a paid failure left the circuit closed")
	}
	if err := respond(t, context.Background(), p, `{"model":"m","input":"hi"}`); err != nil || second.calls.Load() != 1 {
		t.Errorf("the next call: %v, second called %d", err, second.calls.Load())
	}
}

// In a pool mixing providers, a supplier gets no reasoning item that
// another provider encrypted (it would refuse it with a 400): Anthropic's
// thinking is left out for OpenAI and OpenAI's for Anthropic.
func TestHostileForeignReasoningIsLeftOut(t *testing.T) {
	var got []string
	rec := func(ctx context.Context, req *responses.Request, out responses.Output) error {
		for _, it := range req.Input {
			if it.Type == responses.ItemReasoning {
				got = append(got, it.EncryptedContent)
			}
		}
		return out.Text("ok")
	}
	body := `{"model":"m","input":[{"role":"user","content":"hi"},` +
		`{"type":"reasoning","summary":[],"encrypted_content":"anthropic.thinking:sig"},` +
		`{"type":"reasoning","summary":[],"encrypted_content":"gAAAAopenai"},` +
		`{"type":"reasoning","summary":[],"encrypted_content":"gemini.thought:c2ln"},` +
		`{"role":"assistant","content":"hello"},{"role":"user","content":"again"}]}`
	for prov, want := range map[string]string{pool.ProviderOpenAI: "gAAAAopenai", pool.ProviderAnthropic: "anthropic.thinking:sig",
		pool.ProviderGemini: "gemini.thought:c2ln"} {
		got = nil
		p := newPool(t, pool.Config{Suppliers: []pool.Supplier{{Name: prov, Model: &modelFunc{f: rec}, Provider: prov}}})
		if err := respond(t, context.Background(), p, body); err != nil {
			t.Fatal(err)
		}
		if len(got) != 1 || got[0] != want {
			t.Errorf("%s got reasoning %q, want only %q", prov, got, want)
		}
	}
}
