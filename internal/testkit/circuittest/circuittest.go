// Package circuittest is the conformance suite of pool.Circuits: every
// store's circuits run through the same life of a supplier's circuit, as
// two pools (two replicas) sharing them see it.
package circuittest

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/farebox/farebox/internal/testkit/fakeupstream"
	"github.com/farebox/farebox/internal/testkit/upstreamtest"
	"github.com/farebox/farebox/responses"
	"github.com/farebox/farebox/upstream/chat"
	"github.com/farebox/farebox/upstream/pool"
	"github.com/farebox/farebox/upstream/upstreamhttp"
)

// fake is one fake upstream server for a test.
func fake(t *testing.T) *fakeupstream.Server {
	t.Helper()
	up, err := fakeupstream.Start(fakeupstream.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { up.Close() })
	return up
}

// supplier is a chat upstream at baseURL asking for model (the fake's
// behaviour).
func supplier(t *testing.T, name, baseURL, model string) pool.Supplier {
	t.Helper()
	m, err := chat.New(chat.Config{BaseURL: baseURL, Model: model,
		Timeouts: upstreamhttp.Timeouts{FirstByte: 300 * time.Millisecond}})
	if err != nil {
		t.Fatal(err)
	}
	return pool.Supplier{Name: name, Model: m}
}

func newPool(t *testing.T, cfg pool.Config) *pool.Pool {
	t.Helper()
	p, err := pool.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// call runs one request through p as the gateway does and returns the
// answer's text, whether output began, and the error.
func call(t *testing.T, p *pool.Pool, stream bool) (string, bool, error) {
	t.Helper()
	body := `{"model":"m","input":"hello pool"}`
	if stream {
		body = `{"model":"m","input":"hello pool","stream":true}`
	}
	req := upstreamtest.Parse(t, body)
	em := responses.NewEmitter(req, upstreamtest.Discard{}, upstreamtest.EmitterOptions("m"))
	err := p.Respond(context.Background(), req, em)
	if err != nil {
		return "", em.Started(), err
	}
	if err := em.Complete(nil); err != nil {
		t.Fatal(err)
	}
	return string(em.Response()), em.Started(), nil
}

// flaky is a supplier that fails while fail is set: a provider having an
// outage, then recovering.
type flaky struct {
	fail  atomic.Bool
	calls atomic.Int64
	next  responses.Model
}

func (f *flaky) Respond(ctx context.Context, req *responses.Request, out responses.Output) error {
	f.calls.Add(1)
	if f.fail.Load() {
		return upstreamhttp.FromStatus(500, nil, nil)
	}
	return f.next.Respond(ctx, req, out)
}

// clock is a settable time for the circuits.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time      { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) add(d time.Duration) { c.mu.Lock(); c.t = c.t.Add(d); c.mu.Unlock() }

// OpensAndCloses drives one circuit through its life: failures in a
// row open it, it is skipped during the cooldown, a failed probe opens it
// again, a good probe closes it.
func OpensAndCloses(t *testing.T, circuits func() pool.Circuits) {
	up := fake(t)
	first := &flaky{next: supplier(t, "", up.URL(), "echo").Model}
	first.fail.Store(true)
	clk := &clock{t: time.Unix(1_700_000_000, 0)}
	mk := func() *pool.Pool {
		return newPool(t, pool.Config{Model: t.Name(), Failures: 3, Cooldown: time.Minute, Now: clk.now, Circuits: circuits(),
			Suppliers: []pool.Supplier{{Name: "first", Model: first}, supplier(t, "second", up.URL(), "echo")}})
	}
	// Two pools on the same circuits: two replicas.
	a, b := mk(), mk()
	for i := range 20 {
		if _, _, err := call(t, []*pool.Pool{a, b}[i%2], false); err != nil {
			t.Fatal(err)
		}
	}
	if got := first.calls.Load(); got != 3 {
		t.Fatalf("the failing supplier got %d calls, want 3 (then its circuit is open)", got)
	}
	if !a.Open(context.Background())["first"] {
		t.Error("the circuit does not report open")
	}
	clk.add(time.Minute)
	call(t, b, false) // the probe: fails, the circuit opens again
	call(t, a, false)
	if got := first.calls.Load(); got != 4 {
		t.Fatalf("after the cooldown the supplier got %d calls, want 3 + one probe", got)
	}
	first.fail.Store(false)
	clk.add(time.Minute)
	for range 5 {
		call(t, a, false)
	}
	if got := first.calls.Load(); got != 9 {
		t.Errorf("after a good probe the supplier got %d calls, want 4 + 5 (closed again)", got)
	}
	if a.Open(context.Background())["first"] {
		t.Error("the circuit still reports open")
	}
}
