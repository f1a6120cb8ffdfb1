package gateway

import (
	"context"
	"fmt"
	"log/slog"
	"math/big"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/farebox/farebox/books"
	"github.com/farebox/farebox/charge"
	"github.com/farebox/farebox/store"
	"github.com/farebox/farebox/x402"
	"github.com/farebox/farebox/x402/settle"
)

// payments holds the payment side of the gateway: what is accepted, how it
// is verified, remembered and settled.
type payments struct {
	payTo      common.Address
	networks   []*x402.Network
	maxTimeout int64
	before     bool // settle before calling the model
	escrowOnly bool // streams are sold only against escrow (payments.streams)
	overlap    bool // the chain check runs alongside the model (payments.chain.overlap)
	verifier   *x402.Verifier
	settler    x402.Settler
	chain      chainSettler   // the settler when it is farebox's own relayer on a chain, else nil
	schemes    x402.Schemes   // the schemes taken, in offer order (see buildSchemes)
	refunder   x402.Refunder  // the scheme that serves refunds, nil when none does
	engine     *settle.Engine // the journal of every purchase: replay protection, holds, confirmation
	stores     store.Set      // where the journal, channels, books and circuits live (openStores)
	books      *books.Books   // revenue and cost, counted from the journal's events in its store
	ethPrice   *big.Int       // books.eth_price_usdc in atomic USDC per ETH, nil when unpriced
	replicas   bool           // the journal is shared (Redis): orphans of dead replicas are adopted
	adoptEvery time.Duration  // how often orphans are looked for
	channelParts
	timeout   time.Duration
	readiness []func(context.Context) error
	prove     func(context.Context) error // the settler's start-up proof, nil when none
	closers   []func()
	log       *slog.Logger

	// reader follows a facilitator's pending transfers on chain
	// (payments.chain.rpc_url), nil when no chain is read.
	reader settle.TransferReader

	// seller sells the calls with the parts above (see newSeller).
	seller *charge.Seller

	counts   paymentCounts
	inflight inflight // settlements running
	metrics  *metrics
	// schemeMetrics register the series of the schemes' own services.
	schemeMetrics []func(*metrics)
}

// inflight counts running settlements. Unlike a WaitGroup it may gain new
// members while close waits (a handler still finishing after Shutdown).
type inflight struct {
	mu   sync.Mutex
	n    int
	zero *sync.Cond
}

func (f *inflight) add(d int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.n += d
	if f.n == 0 && f.zero != nil {
		f.zero.Broadcast()
	}
}

func (f *inflight) count() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.n
}

func (f *inflight) wait() {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.zero == nil {
		f.zero = sync.NewCond(&f.mu)
	}
	for f.n > 0 {
		f.zero.Wait()
	}
}

// paymentCounts are the payment outcomes served on /metrics.
type paymentCounts struct {
	settled  atomic.Int64 // settlements that moved the money
	failed   atomic.Int64 // settlements that failed (after an answer: the operator's alarm)
	pending  atomic.Int64 // settlements submitted whose outcome is unknown
	released atomic.Int64 // authorizations released: nothing was served
	kept     atomic.Int64 // answers served whose settlement failed: the authorization stays spent
	refused  atomic.Int64 // payments refused (402) or malformed (400)

	outcomes [charge.Replayed + 1]atomic.Int64 // charges by outcome, once each

	events [settle.EventAdopted + 1]atomic.Int64 // the settlement engine's steps
}

// event counts one step of the settlement engine.
func (c *paymentCounts) event(ev settle.Event) {
	if ev.Kind >= 0 && int(ev.Kind) < len(c.events) {
		c.events[ev.Kind].Add(1)
	}
}

func (p *payments) enabled() bool { return p.payTo != (common.Address{}) && len(p.networks) > 0 }

// close waits for settlements in flight (each bounded by its own
// timeout: a served answer is still paid for during shutdown), then
// closes the settler's connections.
func (p *payments) close() {
	p.inflight.wait()
	for _, f := range p.closers {
		f()
	}
}

func (p *payments) ready(ctx context.Context) error {
	for _, f := range p.readiness {
		if err := f(ctx); err != nil {
			return err
		}
	}
	return nil
}

func newPayments(cfg Config, opts Options, log *slog.Logger) (*payments, error) {
	pc := cfg.Payments
	p := &payments{maxTimeout: pc.MaxTimeoutSeconds, log: log, timeout: pc.SettleTimeout.D(30 * time.Second), overlap: pc.Chain.Overlap}
	if opts.Ready != nil {
		p.readiness = append(p.readiness, opts.Ready)
	}
	var err error
	if p.ethPrice, err = cfg.Books.ethPrice(); err != nil {
		return nil, err
	}
	switch pc.Settle {
	case "after":
	case "before":
		p.before = true
	default:
		return nil, fmt.Errorf("payments.settle: want \"after\" or \"before\", got %q", pc.Settle)
	}
	switch pc.Streams {
	case "", "any":
	case "escrow_only":
		p.escrowOnly = true
	default:
		return nil, fmt.Errorf("payments.streams: want \"any\" or \"escrow_only\", got %q", pc.Streams)
	}
	if pc.PayTo != "" {
		if !common.IsHexAddress(pc.PayTo) {
			return nil, fmt.Errorf("payments.pay_to: %q is not an address", pc.PayTo)
		}
		p.payTo = common.HexToAddress(pc.PayTo)
	}
	reg, err := registry(pc, opts.Networks)
	if err != nil {
		return nil, err
	}
	for _, name := range pc.Networks {
		n := lookupNetwork(reg, name)
		if n == nil {
			return nil, fmt.Errorf("payments.networks: %s", x402.UnknownNetwork(name))
		}
		p.networks = append(p.networks, n)
	}
	if !p.enabled() {
		return p, nil
	}
	now := opts.Now
	if now == nil {
		now = time.Now
	}
	p.verifier = &x402.Verifier{Now: now, Checker: opts.Checker}
	p.settler = opts.Settler
	if p.settler == nil {
		if err := p.buildSettler(pc, opts.getenv()); err != nil {
			p.close()
			return nil, err
		}
	}
	if st, ok := p.settler.(chainSettler); ok {
		// Metered schemes need a facilitator that settles after the
		// answer: farebox's own relayer.
		p.chain = st
	}
	if err := p.buildEngine(cfg, reg); err != nil {
		p.close()
		return nil, err
	}
	metered := false
	for _, m := range cfg.Models {
		metered = metered || m.PricePerMTok != nil
	}
	if err := p.buildSchemes(pc, now, opts.getenv(), metered); err != nil {
		p.close()
		return nil, err
	}
	// Resumed once every scheme is registered: a journaled payment of a
	// scheme is completed and settled by its scheme.
	if err := p.resume(); err != nil {
		p.close()
		return nil, err
	}
	return p, nil
}
