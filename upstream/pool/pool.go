// Package pool is a model served by several suppliers: one responses.Model
// over many, so the gateway still sees one model and charges one payment
// whichever supplier answered. The pool picks suppliers by a strategy,
// moves a call to the next supplier only while the client has received
// nothing of the answer, and keeps a circuit per supplier so that one that
// keeps failing is left alone for a while.
package pool

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/big"
	"math/rand/v2"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/farebox/farebox/responses"
)

// Supplier is one upstream of a pool.
type Supplier struct {
	// Name names it in logs, metrics and circuit keys.
	Name string
	// Model answers the calls.
	Model responses.Model
	// Weight is its share under Weighted (0 counts as 1).
	Weight float64
	// Cost is what one call costs the operator in atomic USDC (nil:
	// unknown), for Cheapest and the spend metric.
	Cost *big.Int
	// Offer, when set, tells the price the supplier asks now (an x402
	// seller's 402): it ranks the supplier under Cheapest instead of Cost.
	Offer Offerer
	// Provider is whose encrypted reasoning the supplier takes back
	// (ProviderAnthropic, ProviderOpenAI); "" is unknown: it gets every
	// reasoning item.
	Provider string
}

// Offerer is a supplier whose price per call changes: an x402 seller.
type Offerer interface {
	// Offer is the price of one call now, in atomic USDC, from a cache
	// or the seller's 402.
	Offer(ctx context.Context) (*big.Int, error)
}

// Strategy is how a pool orders its suppliers for a call.
type Strategy int

// The strategies.
const (
	// Ordered tries the suppliers in the order they are listed.
	Ordered Strategy = iota
	// Weighted draws the order at random, by weight.
	Weighted
	// Cheapest tries the supplier that costs least first.
	Cheapest
	// Fastest tries the supplier with the shortest time to first token
	// (a moving average) first; suppliers not yet measured come first.
	Fastest
)

// Config describes a pool.
type Config struct {
	// Model is the public model name (circuit keys, logs).
	Model     string
	Suppliers []Supplier
	Strategy  Strategy
	// MaxAttempts bounds the suppliers one call tries (0: all of them).
	MaxAttempts int
	// Failures in a row open a supplier's circuit for Cooldown.
	Failures int
	Cooldown time.Duration
	// Circuits holds the circuits' state (default: in this process).
	Circuits Circuits
	// Observer receives each attempt's outcome (default: none).
	Observer Observer
	// Log receives one line per attempt (default: discard).
	Log *slog.Logger
	// Now is the clock of the circuits (default time.Now).
	Now func() time.Time
}

// Pool is a model served by suppliers; it implements responses.Model.
type Pool struct {
	cfg Config

	mu   sync.Mutex
	ttft []time.Duration // per supplier: moving average of time to first token, 0 = not measured
	seen []seen          // per supplier: what this process saw of it (Health)
	// blamed: circuit key and payer of the failures counted since the
	// supplier last answered (firstFrom).
	blamed map[string]map[string]struct{}
}

var _ responses.Model = (*Pool)(nil)

// New builds a pool.
func New(cfg Config) (*Pool, error) {
	if len(cfg.Suppliers) == 0 {
		return nil, errors.New("pool: no suppliers")
	}
	if cfg.MaxAttempts <= 0 || cfg.MaxAttempts > len(cfg.Suppliers) {
		cfg.MaxAttempts = len(cfg.Suppliers)
	}
	if cfg.Failures <= 0 {
		cfg.Failures = 5
	}
	if cfg.Cooldown <= 0 {
		cfg.Cooldown = 30 * time.Second
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Circuits == nil {
		cfg.Circuits = NewMemoryCircuits()
	}
	if cfg.Observer == nil {
		cfg.Observer = nopObserver{}
	}
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	for i := range cfg.Suppliers {
		if cfg.Suppliers[i].Model == nil {
			return nil, fmt.Errorf("pool: supplier %q has no model", cfg.Suppliers[i].Name)
		}
	}
	return &Pool{cfg: cfg, ttft: make([]time.Duration, len(cfg.Suppliers)), seen: make([]seen, len(cfg.Suppliers))}, nil
}

// Suppliers lists the pool's suppliers.
func (p *Pool) Suppliers() []Supplier { return p.cfg.Suppliers }

// CodeNoSupplier is the code of the answer when every supplier's circuit
// is open.
const CodeNoSupplier = "no_supplier_available"

// errNoSupplier is the answer when every supplier's circuit is open.
func errNoSupplier() *responses.Error {
	return &responses.Error{Status: http.StatusServiceUnavailable, Type: "server_error", Code: CodeNoSupplier,
		Message: "Every supplier of this model is failing right now; retry shortly.", RetryAfter: time.Second}
}

// Respond tries the suppliers in the strategy's order, skipping open
// circuits, until one answers or MaxAttempts were tried. A call moves on
// only while nothing of the answer reached out; a client error (400) is
// the client's to fix and is not retried.
func (p *Pool) Respond(ctx context.Context, req *responses.Request, out responses.Output) error {
	var last error
	tried := 0
	for _, i := range p.order(ctx) {
		if tried == p.cfg.MaxAttempts {
			break
		}
		key := circuitKey(p.cfg.Model, p.cfg.Suppliers[i].Name)
		if !p.cfg.Circuits.Allow(ctx, key, p.cfg.Now(), p.cfg.Failures, p.cfg.Cooldown) {
			continue
		}
		tried++
		if served, ok := ctx.Value(servedKey{}).(func(string)); ok {
			served(p.cfg.Suppliers[i].Name)
		}
		retry, err := p.attempt(ctx, i, key, p.forSupplier(i, req), out)
		if err == nil || !retry {
			return err
		}
		last = err
	}
	if last == nil {
		return errNoSupplier()
	}
	return last
}

// attempt runs one supplier and reports whether the call may move on.
func (p *Pool) attempt(ctx context.Context, i int, key string, req *responses.Request, out responses.Output) (retry bool, err error) {
	s := &p.cfg.Suppliers[i]
	start := p.cfg.Now()
	g := &guard{Output: out}
	g.first = func() {
		g.ttft = p.cfg.Now().Sub(start)
		p.measured(i, g.ttft)
	}
	var commit atomic.Bool
	err = s.Model.Respond(committed(ctx, &commit), req, g)
	paid := commit.Load()
	took := p.cfg.Now().Sub(start)
	kind := Classify(ctx, err)
	switch {
	case err == nil:
		g.flush()
		p.cfg.Circuits.Success(ctx, key)
		p.forgive(key)
	case paid && kind != KindAbandoned:
		// It was paid and did not answer: whether broken or hostile, it is
		// left alone for a whole cooldown, however often it answers in
		// between (a seller failing three calls in four would otherwise
		// never reach the threshold of failures in a row).
		p.trip(ctx, key)
		kind = KindPaidFailure
	case kind.SuppliersFault() && p.firstFrom(ctx, key): // the client's own error, or a client that left, leaves it as it was
		p.cfg.Circuits.Failure(ctx, key, p.cfg.Now(), p.cfg.Failures, p.cfg.Cooldown)
	}
	if err != nil && g.started {
		kind = KindBroken // the answer began: it ends here, as a single upstream's would
	}
	p.saw(i, kind, err)
	attrs := []any{"supplier", s.Name, "took", took, "outcome", string(kind)}
	if err != nil {
		attrs = append(attrs, "err", err)
	}
	p.cfg.Log.Info("supplier call", attrs...)
	var cost *big.Int
	if err == nil || paid {
		cost = price(ctx, *s)
	}
	p.cfg.Observer.Attempt(p.cfg.Model, s.Name, kind, g.ttft, cost)
	// Once a supplier was paid, another paid one would be paid again for
	// the same call: the call ends with this supplier's answer or error.
	return err != nil && !g.started && !paid && kind.Retried(), err
}

// committed is ctx under which the supplier's responses.Commit (an x402
// seller about to sign its payment) is passed on and remembered in paid.
func committed(ctx context.Context, paid *atomic.Bool) context.Context {
	return responses.WithCommit(ctx, func() error {
		if err := responses.Commit(ctx); err != nil {
			return err
		}
		paid.Store(true) // the payer's hook may run on the transport's goroutine
		return nil
	})
}

// trip opens key's circuit at once: as many failures as the threshold, the
// one way every Circuits implementation (memory, bolt, Redis) knows.
func (p *Pool) trip(ctx context.Context, key string) {
	for range p.cfg.Failures {
		p.cfg.Circuits.Failure(ctx, key, p.cfg.Now(), p.cfg.Failures, p.cfg.Cooldown)
	}
}

// measured folds one time to first token into supplier i's average.
func (p *Pool) measured(i int, d time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ttft[i] == 0 {
		p.ttft[i] = d
		return
	}
	p.ttft[i] = (p.ttft[i]*4 + d) / 5 // a fifth of the weight on the newest
}

// draw is a random number in [0,1) for Weighted.
var draw = rand.Float64

// Open reports, per supplier, whether its circuit is open now.
func (p *Pool) Open(ctx context.Context) map[string]bool {
	out := make(map[string]bool, len(p.cfg.Suppliers))
	for _, s := range p.cfg.Suppliers {
		out[s.Name] = p.cfg.Circuits.Open(ctx, circuitKey(p.cfg.Model, s.Name), p.cfg.Now(), p.cfg.Failures)
	}
	return out
}

type servedKey struct{}

// WithServed returns a context under which a pool reports each supplier it
// calls to served, the last one being the supplier that answered (or
// failed last): the gateway names it in the call's log line.
func WithServed(ctx context.Context, served func(supplier string)) context.Context {
	return context.WithValue(ctx, servedKey{}, served)
}

// Available reports, before a call is paid for, whether any supplier may
// take it: errNoSupplier (503) when every circuit is open, so the payment
// is released instead of taken for an answer nobody will try to make. A
// circuit that opens between this check and the call still ends in that
// 503, after the payment was taken for some schemes; the check keeps
// that to the calls in flight as the last circuit opens.
func (p *Pool) Available(ctx context.Context) error {
	for _, s := range p.cfg.Suppliers {
		if !p.cfg.Circuits.Open(ctx, circuitKey(p.cfg.Model, s.Name), p.cfg.Now(), p.cfg.Failures) {
			return nil
		}
	}
	return errNoSupplier()
}
