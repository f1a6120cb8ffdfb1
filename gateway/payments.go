package gateway

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math/big"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/farebox/farebox/books"
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
	channelParts
	timeout   time.Duration
	readiness []func(context.Context) error
	closers   []func()
	log       *slog.Logger

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

	outcomes [replayed + 1]atomic.Int64 // charges by outcome, once each

	events [settle.EventAttributed + 1]atomic.Int64 // the settlement engine's steps
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
			return nil, fmt.Errorf("payments.networks: unknown network %q (built in: base, base-sepolia; declare others in custom_networks)", name)
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

// requirements are a pure function of configuration, route and URL: any
// replica computes the same. The schemes are offered in the registry's
// order, the metered ones (per-token models only) first, at the ceiling:
// a client takes the first it speaks, and they charge the use where the
// others charge the ceiling.
func (p *payments) requirements(rt *route, resource string) *offer {
	if o := rt.offer.Load(); o != nil && o.resource == resource {
		return o
	}
	o := &offer{resource: resource, extensions: withExtensions(declaredExtensions, discoveryExtension(rt))}
	all := p.schemes.All()
	for _, n := range p.networks {
		o.bases = append(o.bases, &x402.Requirement{Network: n, Amount: rt.price, PayTo: p.payTo,
			MaxTimeoutSeconds: p.maxTimeout, Resource: resource,
			Description: rt.description, MimeType: "application/json"})
	}
	for _, b := range o.bases {
		for _, s := range all {
			if !s.Metered() {
				r := *b
				r.Scheme = s.Name()
				o.reqs = append(o.reqs, &r)
			}
		}
	}
	if rt.perToken != nil {
		for _, b := range o.bases {
			for _, s := range all {
				if !s.Metered() {
					continue
				}
				a := s.Accept(b)
				if a == nil {
					continue // known, not served
				}
				o.others = append(o.others, a)
				if e, ok := s.(x402.EscrowScheme); ok && e.Escrows() {
					o.escrow = append(o.escrow, a)
				}
				if e, ok := s.(x402.Extender); ok {
					o.extensions = withExtensions(o.extensions, e.Extensions())
				}
			}
		}
	}
	o.v1 = x402.V1Accepts(o.reqs)
	rt.offer.Store(o)
	return o
}

// withExtensions is base with add's extensions (base is not changed).
func withExtensions(base, add map[string]json.RawMessage) map[string]json.RawMessage {
	m := make(map[string]json.RawMessage, len(base)+len(add))
	for k, v := range base {
		m[k] = v
	}
	for k, v := range add {
		m[k] = v
	}
	return m
}

// offer is the requirements for one route at one URL, with the parts of the
// 402 answer that do not depend on the failure.
type offer struct {
	resource   string
	reqs       []*x402.Requirement // the schemes that are not metered (exact)
	bases      []*x402.Requirement // per network, of no scheme: what the others offer
	others     []json.RawMessage   // the metered schemes' accepts (per-token models)
	escrow     []json.RawMessage   // those of others whose scheme escrows the funds (channels)
	extensions map[string]json.RawMessage
	v1         []byte
	// refundOnly: the offer of a refund, whose 402 lists the refunding
	// scheme's accepts alone (reqs only find them by network).
	refundOnly bool
}

// requirement is the offer's requirement on network (CAIP-2 id or v1
// name) for scheme, nil when the network is not offered.
func (o *offer) requirement(network, scheme string) *x402.Requirement {
	on := func(r *x402.Requirement) bool {
		return r.Network.CAIP2 == network || (r.Network.V1Name != "" && r.Network.V1Name == network)
	}
	for _, r := range o.reqs {
		if r.Scheme == scheme && on(r) {
			return r
		}
	}
	for _, r := range o.bases {
		if on(r) {
			c := *r
			c.Scheme = scheme
			return &c
		}
	}
	return nil
}

// authorize turns the request's payment header into a reserved charge:
// the payment's scheme, asked of the registry, verifies and holds it. A
// request without one, or with one that does not pay, gets an error the
// writer answers with (a 402 offer, a 400 for a header that cannot be
// decoded, a 409 while the same purchase is in flight).
func (p *payments) authorize(ctx context.Context, h http.Header, rt *route, resource string, body []byte) (*charge, error) {
	o := p.requirements(rt, resource)
	hdr, version := h.Get(x402.HeaderPaymentSignature), 2
	if hdr == "" {
		hdr, version = h.Get(x402.HeaderXPayment), 1
	}
	if hdr == "" {
		return nil, refusePaymentRequired(o, rt)
	}
	pay, err := x402.DecodePayment(hdr, version)
	if err != nil {
		return nil, p.undecodable(o, err, version, "")
	}
	s := p.schemes.Lookup(pay.Scheme)
	if s == nil {
		xe := x402.Unsupported(pay, o.reqs)
		return nil, refuse(o, xe.Reason, "Payment refused: "+xe.Message)
	}
	req := o.requirement(pay.Network, pay.Scheme)
	if s.Metered() {
		ctx = gasFor(ctx, rt) // a channel's deposit is the relayer's transaction for this model
	}
	hold, err := s.Authorize(ctx, pay, req, x402.Facts{BodyHash: sha256.Sum256(body), PerToken: rt.perToken != nil, Model: rt.name})
	if err != nil {
		return nil, p.refusal(o, err, version, "Payment refused: ")
	}
	ch := &charge{route: rt, payment: pay, req: req, offer: o, pay: hold, chargesUse: s.Metered()}
	if e, ok := s.(x402.EscrowScheme); ok {
		ch.escrow = e.Escrows()
	}
	if c, ok := hold.(x402.CheckingHold); ok && c.Deferred() {
		ch.check = startCheck(ctx, c.Check)
	}
	return ch, nil
}

// refusal is the client's view of a payment its scheme refused (err, from
// Authorize or Refund): a 402 whose message is prefix and the reason's
// (with the scheme's corrective accepts), a 400 for a header no offer can
// make valid, a 409 while the same purchase is in flight.
func (p *payments) refusal(o *offer, err error, version int, prefix string) error {
	if errors.Is(err, settle.ErrInvalidPaymentID) {
		p.counts.refused.Add(1)
		return errBadPaymentID()
	}
	if e := p.beginError(o, err); e != nil {
		return e
	}
	var ce *x402.Corrective
	if errors.As(err, &ce) {
		c := *o
		c.others = ce.Accepts
		return refuse(&c, ce.Refusal.Reason, prefix+ce.Refusal.Message)
	}
	var xe *x402.Error
	if errors.As(err, &xe) {
		return p.undecodable(o, xe, version, prefix)
	}
	return errPaymentsUnavailable(err)
}

// undecodable is the client's view of a payment that did not decode: a
// 400, counted as malformed, when no offer can make it valid (err is an
// *x402.Error marked Malformed), otherwise a 402 refusal whose message is
// prefix and the reason's.
func (p *payments) undecodable(o *offer, err error, version int, prefix string) error {
	xe := x402.AsError(err, x402.ReasonInvalidPayload)
	if !xe.Malformed {
		return refuse(o, xe.Reason, prefix+xe.Message)
	}
	p.counts.refused.Add(1)
	p.metrics.payment("malformed", xe.Reason)
	return errMalformedPayment(xe, version)
}

// beginError is the client's view of a purchase the engine would not
// begin, nil when err is not the engine's refusal.
func (p *payments) beginError(o *offer, err error) error {
	switch {
	case errors.Is(err, settle.ErrInProgress):
		return errPaymentInProgress()
	case errors.Is(err, settle.ErrIdempotencyConflict):
		return errIdempotencyConflict()
	case errors.Is(err, settle.ErrNonceUsed):
		return refuseNonceUsed(o)
	case errors.Is(err, settle.ErrPayerInDebt):
		return refuse(o, x402.ReasonInsufficientFunds, "Payment refused: an earlier payment of this payer failed on chain after it was served. Settle it with the operator before paying again.")
	case errors.Is(err, settle.ErrInsufficientFunds):
		return refuse(o, x402.ReasonInsufficientFunds, "Payment refused: the payer's balance, less its payments still in flight, does not cover this call.")
	}
	return nil
}

// settleReceipt runs the settler on a context of its own (a client that
// disconnects does not stop a settlement that is due) and returns the
// receipt the client gets, counting the result.
func (p *payments) settleReceipt(ctx context.Context, ch *charge) *x402.Receipt {
	p.inflight.add(1)
	defer p.inflight.add(-1)
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), p.timeout)
	defer cancel()
	if ch.chargesUse {
		ctx = gasFor(ctx, ch.route) // an upto settlement is the relayer's transaction for this model
	}
	start := time.Now()
	r, err := ch.pay.Settle(ctx, ch.charged())
	p.metrics.settling.Observe(time.Since(start).Seconds())
	ch.unpaid = errors.Is(err, settle.ErrUnpaidRun)
	if r == nil {
		r = &x402.Receipt{}
	} else {
		c := *r // the journal keeps the settler's receipt: this one is the client's
		r = &c
	}
	if err != nil {
		r.Success = false
		if r.ErrorReason == "" {
			r.ErrorReason = x402.AsError(err, x402.ReasonUnexpectedSettleError).Reason
		}
		if errors.Is(err, x402.ErrSettlementPending) || errors.Is(err, context.DeadlineExceeded) {
			// Submitted, outcome unknown: the money may still move.
			r.ErrorReason = x402.ReasonSettlementPending
		}
	}
	// A v1 client reads its receipt's network by v1 name ("base-sepolia");
	// settlers answer with the CAIP-2 id.
	if r.Network == "" || (ch.payment.Version == 1 && r.Network == ch.req.Network.CAIP2) {
		r.Network = networkName(ch)
	}
	if r.Payer == "" {
		r.Payer = ch.payment.Authorization.From.Hex()
	}
	switch {
	case r.Success:
		p.counts.settled.Add(1)
		p.metrics.payment("settled", "")
	case pending(r):
		p.counts.pending.Add(1)
		p.metrics.payment("pending", r.ErrorReason)
		p.log.Warn("settlement pending", "payer", r.Payer, "network", r.Network, "transaction", r.Transaction, "err", err)
	default:
		p.counts.failed.Add(1)
		p.metrics.payment("failed", r.ErrorReason)
		p.log.Error("settlement failed", "payer", r.Payer, "network", r.Network, "reason", r.ErrorReason, "err", err)
	}
	return r
}

// pending reports a settlement that was submitted but whose outcome is
// unknown: it may still move the money, so the client gets its answer.
func pending(r *x402.Receipt) bool {
	return !r.Success && r.ErrorReason == x402.ReasonSettlementPending
}

// receiptHeader sets the receipt header of the payment's version.
func receiptHeader(h http.Header, ch *charge) {
	name := x402.HeaderPaymentResponse
	if ch.payment.Version == 1 {
		name = x402.HeaderXPaymentResponse
	}
	h.Set(name, x402.EncodeReceipt(ch.receipt))
}

func networkName(ch *charge) string {
	if ch.payment.Version == 1 && ch.req.Network.V1Name != "" {
		return ch.req.Network.V1Name
	}
	return ch.req.Network.CAIP2
}

func headerParam(version int) string {
	if version == 1 {
		return "header:X-PAYMENT"
	}
	return "header:PAYMENT-SIGNATURE"
}
