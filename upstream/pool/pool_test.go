package pool_test

import (
	"context"
	"errors"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/farebox/farebox/internal/testkit/circuittest"
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
	if cfg.Model == "" {
		cfg.Model = "m"
	}
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

// received counts the requests up got for model.
func received(up *fakeupstream.Server, model string) int {
	n := 0
	for _, r := range up.Records() {
		if r.Model == model {
			n++
		}
	}
	return n
}

// Every way a supplier fails before its first byte moves the call to the
// next supplier, and the client sees only the second's answer.
func TestFailsOverBeforeTheFirstByte(t *testing.T) {
	up := fake(t)
	refusing, err := fakeupstream.RefusingURL()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ name, url, model string }{
		{"500", up.URL(), "status:500"},
		{"429 with Retry-After", up.URL(), "status:429+retry_after=7"},
		{"refused connection", refusing, "echo"},
		{"hangs before the first byte", up.URL(), "status:timeout"},
		{"402 unpaid", up.URL(), "status:402"},
	} {
		for _, stream := range []bool{false, true} {
			t.Run(tc.name, func(t *testing.T) {
				p := newPool(t, pool.Config{Suppliers: []pool.Supplier{
					supplier(t, "first", tc.url, tc.model), supplier(t, "second", up.URL(), "echo")}})
				out, _, err := call(t, p, stream)
				if err != nil {
					t.Fatal(err)
				}
				if !strings.Contains(out, "hello pool") {
					t.Errorf("answer %s is not the second supplier's echo", out)
				}
			})
		}
	}
}

// A 400 for the request itself is the client's to fix: the next supplier
// would refuse it too, so it is not asked.
func TestClientErrorIsNotRetried(t *testing.T) {
	up := fake(t)
	p := newPool(t, pool.Config{Suppliers: []pool.Supplier{
		supplier(t, "first", up.URL(), "status:400"), supplier(t, "second", up.URL(), "echo")}})
	_, _, err := call(t, p, false)
	var e *responses.Error
	if !errors.As(err, &e) || e.Status != 400 {
		t.Fatalf("got %v, want the upstream's 400", err)
	}
	if n := received(up, "echo"); n != 0 {
		t.Errorf("the second supplier received %d requests", n)
	}
}

// Once output began, a supplier that breaks ends the answer: nothing the
// client received is taken back or repeated by another supplier.
func TestNoFailoverAfterTheFirstByte(t *testing.T) {
	up := fake(t)
	p := newPool(t, pool.Config{Suppliers: []pool.Supplier{
		supplier(t, "first", up.URL(), "anything+cut"), supplier(t, "second", up.URL(), "echo")}})
	_, started, err := call(t, p, true)
	if err == nil || !started {
		t.Fatalf("err %v, started %v: want a failure after output began", err, started)
	}
	if n := received(up, "echo"); n != 0 {
		t.Errorf("the second supplier received %d requests after the first had written", n)
	}
}

// max_attempts bounds the suppliers one call tries.
func TestMaxAttemptsBoundsTheTries(t *testing.T) {
	up := fake(t)
	p := newPool(t, pool.Config{MaxAttempts: 2, Suppliers: []pool.Supplier{
		supplier(t, "a", up.URL(), "status:500"), supplier(t, "b", up.URL(), "status:503"), supplier(t, "c", up.URL(), "echo")}})
	if _, _, err := call(t, p, false); err == nil {
		t.Fatal("the third supplier answered past max_attempts 2")
	}
	if n := received(up, "echo"); n != 0 {
		t.Errorf("the third supplier received %d requests", n)
	}
}

func TestCircuitOpensAndCloses(t *testing.T) {
	circuittest.OpensAndCloses(t, func() pool.Circuits { return sharedMemory })
}

var sharedMemory = pool.NewMemoryCircuits()

// cheapest tries the supplier that costs least first, whatever the order
// of the list; an offer (an x402 seller's 402) outranks a configured cost.
func TestCheapestTriesTheCheapestFirst(t *testing.T) {
	up := fake(t)
	dear := supplier(t, "dear", up.URL(), "echo+dear")
	dear.Cost = big.NewInt(2000)
	cheap := supplier(t, "cheap", up.URL(), "echo+cheap")
	cheap.Cost = big.NewInt(5000)
	cheap.Offer = offer(1000)
	p := newPool(t, pool.Config{Strategy: pool.Cheapest, Suppliers: []pool.Supplier{dear, cheap}})
	for range 3 {
		if _, _, err := call(t, p, false); err != nil {
			t.Fatal(err)
		}
	}
	if got := received(up, "echo+cheap"); got != 3 {
		t.Errorf("the cheaper supplier got %d of 3 calls", got)
	}
}

type offer int64

func (o offer) Offer(context.Context) (*big.Int, error) { return big.NewInt(int64(o)), nil }

// weighted sends calls to suppliers by weight.
func TestWeightedFollowsTheWeights(t *testing.T) {
	up := fake(t)
	light := supplier(t, "light", up.URL(), "echo+light")
	light.Weight = 1
	heavy := supplier(t, "heavy", up.URL(), "echo+heavy")
	heavy.Weight = 1000
	p := newPool(t, pool.Config{Strategy: pool.Weighted, Suppliers: []pool.Supplier{light, heavy}})
	for range 20 {
		if _, _, err := call(t, p, false); err != nil {
			t.Fatal(err)
		}
	}
	// With weights 1:1000 the light supplier is first about once in 50,000
	// draws of 20 calls.
	if got := received(up, "echo+heavy"); got < 19 {
		t.Errorf("the heavy supplier got %d of 20 calls", got)
	}
}

// fastest measures every supplier once, then prefers the quickest.
func TestFastestPrefersTheQuickest(t *testing.T) {
	up := fake(t)
	p := newPool(t, pool.Config{Strategy: pool.Fastest, Suppliers: []pool.Supplier{
		supplier(t, "slow", up.URL(), "echo+ttfb=150ms"), supplier(t, "quick", up.URL(), "echo+quick")}})
	for range 6 {
		if _, _, err := call(t, p, true); err != nil {
			t.Fatal(err)
		}
	}
	if got := received(up, "echo+ttfb=150ms"); got != 1 {
		t.Errorf("the slow supplier got %d calls, want only its measuring one", got)
	}
}

// When every supplier's circuit is open the client is told to retry
// shortly, and no supplier is called.
func TestEverySupplierOpenIs503(t *testing.T) {
	up := fake(t)
	p := newPool(t, pool.Config{Failures: 1, Cooldown: time.Hour, Suppliers: []pool.Supplier{
		supplier(t, "a", up.URL(), "status:500"), supplier(t, "b", up.URL(), "status:502")}})
	call(t, p, false) // opens both
	before := len(up.Records())
	_, _, err := call(t, p, false)
	var e *responses.Error
	if !errors.As(err, &e) || e.Status != 503 || e.Code != pool.CodeNoSupplier || e.RetryAfter <= 0 {
		t.Fatalf("got %v, want 503 %s with Retry-After", err, pool.CodeNoSupplier)
	}
	if got := len(up.Records()); got != before {
		t.Errorf("%d suppliers called with every circuit open", got-before)
	}
}
