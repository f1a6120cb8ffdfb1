package gateway

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/farebox/farebox/x402"
	"github.com/farebox/farebox/x402/channel"
	"github.com/farebox/farebox/x402/channel/service"
	"github.com/farebox/farebox/x402/eip712"
	"github.com/farebox/farebox/x402/settle"
	"github.com/farebox/farebox/x402/upto"
)

// chainSettler is a settler that is farebox's own relayer on a chain
// (evm.Settler): it broadcasts exact transfers, settles upto payments
// after the answer and sends the channels' transactions. Beside
// Broadcaster, the engine asks it for balances and, after a restart or a
// front-run, for the transaction that moved a payment (TransferTx, PaidBy).
type chainSettler interface {
	x402.Settler
	settle.Broadcaster
	settle.Balances
	upto.Chain
	service.Relayer
	TransferTx(ctx context.Context, p *x402.Payment, req *x402.Requirement) (common.Hash, error)
	PaidBy(ctx context.Context, p *x402.Payment, req *x402.Requirement) (common.Hash, time.Time, error)
}

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
	chain      chainSettler     // the settler when it is farebox's own relayer on a chain, else nil
	schemes    x402.Schemes     // the schemes besides exact that journal their payments (upto)
	upto       *upto.Server     // nil unless settled by farebox's own chain settler
	channelSvc *service.Service // batch-settlement, with upto
	chanStore  service.Store    // the channels' store, beside the settlement journal
	engine     *settle.Engine   // the journal of every purchase: replay protection, holds, confirmation
	timeout    time.Duration
	readiness  []func(context.Context) error
	closers    []func()
	log        *slog.Logger

	counts   paymentCounts
	inflight inflight // settlements running
	metrics  *metrics
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

	events [settle.EventUnresolved + 1]atomic.Int64 // the settlement engine's steps
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
		p.upto = upto.NewServer(st, now)
		p.schemes.Register(p.upto)
	}
	if err := p.buildEngine(cfg, reg); err != nil {
		p.close()
		return nil, err
	}
	metered := false
	for _, m := range cfg.Models {
		metered = metered || m.PricePerMTok != nil
	}
	if err := p.buildChannels(pc, now, opts.getenv(), metered); err != nil {
		p.close()
		return nil, err
	}
	return p, nil
}

// requirements are a pure function of configuration, route and URL: any
// replica computes the same.
func (p *payments) requirements(rt *route, resource string) *offer {
	if o := rt.offer.Load(); o != nil && o.resource == resource {
		return o
	}
	o := &offer{resource: resource, extensions: declaredExtensions}
	for _, n := range p.networks {
		o.reqs = append(o.reqs, &x402.Requirement{
			Scheme: "exact", Network: n, Amount: rt.price, PayTo: p.payTo,
			MaxTimeoutSeconds: p.maxTimeout, Resource: resource,
			Description: rt.description, MimeType: "application/json",
		})
	}
	if rt.perToken != nil && p.channelSvc != nil {
		// Metered schemes first, at the ceiling: a client takes the first
		// it speaks, and they charge the use where exact charges the ceiling.
		for _, r := range o.reqs {
			o.others = append(o.others, channel.Accept(r, p.channelSvc.Terms(), nil))
			if p.upto != nil {
				o.others = append(o.others, p.upto.Accept(r))
			}
		}
		if p.upto != nil {
			o.extensions = meteredExtensions
		}
	}
	o.v1 = x402.V1Accepts(o.reqs)
	rt.offer.Store(o)
	return o
}

// meteredExtensions are a per-token model's offer's extensions: upto's
// EIP-2612 gas sponsoring, so a payer with no ETH who never approved
// Permit2 can pay.
var meteredExtensions = map[string]json.RawMessage{"payment-identifier": x402.PaymentIdentifierExtension,
	"eip2612GasSponsoring": eip712.GasSponsoringDeclaration()}

// offer is the requirements for one route at one URL, with the parts of the
// 402 answer that do not depend on the failure.
type offer struct {
	resource   string
	reqs       []*x402.Requirement // exact
	others     []json.RawMessage   // batch-settlement and upto accepts (per-token models)
	extensions map[string]json.RawMessage
	v1         []byte
	// refundOnly: the offer of a refund, whose 402 lists the
	// batch-settlement accepts alone (reqs only find them by network).
	refundOnly bool
}

// requirement is the offer's requirement on network (CAIP-2 id or v1
// name) for scheme, nil when the network is not offered.
func (o *offer) requirement(network, scheme string) *x402.Requirement {
	for _, r := range o.reqs {
		if r.Network.CAIP2 == network || (r.Network.V1Name != "" && r.Network.V1Name == network) {
			c := *r
			c.Scheme = scheme
			return &c
		}
	}
	return nil
}

// authorize turns the request's payment header into a reserved charge. A
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
	switch pay.Scheme {
	case x402.SchemeExact:
	case upto.Scheme:
		return p.authorizeUpto(ctx, pay, rt, o, body, version)
	case channel.Scheme:
		return p.authorizeChannel(ctx, pay, rt, o, version)
	}
	id, err := paymentID(pay)
	if err != nil {
		p.counts.refused.Add(1)
		return nil, err
	}
	req, err := p.verifier.VerifyLocal(ctx, pay, o.reqs)
	if err != nil {
		xe := x402.AsError(err, x402.ReasonUnexpectedVerifyError)
		return nil, refuse(o, xe.Reason, "Payment refused: "+xe.Message)
	}
	pu, err := p.engine.BeginWait(ctx, settle.Purchase{Payment: pay, Requirement: req, BodyHash: sha256.Sum256(body), PaymentID: id})
	if err != nil {
		return nil, p.beginError(o, err)
	}
	// The chain is asked once the journal knows the purchase: a paid one
	// is served again even though its nonce is used on chain.
	ch := &charge{route: rt, payment: pay, req: req, offer: o, pay: journaled{pu: pu}}
	// A contract wallet's signature (longer than 65 bytes) was not checked
	// locally at all: it is checked before the model starts, or anyone
	// could run the model for nothing by sending junk.
	if !pu.Replay() && p.overlap && !p.before && p.verifier.Checker != nil && len(pay.Signature) <= 65 {
		ch.check = startCheck(ctx, p.verifier, pay, req)
		return ch, nil
	}
	if !pu.Replay() {
		if err := p.verifier.Check(ctx, pay, req); err != nil {
			if rerr := pu.Release(ctx); rerr != nil {
				p.log.Error("releasing a purchase the chain refused", "err", rerr)
			}
			xe := x402.AsError(err, x402.ReasonUnexpectedVerifyError)
			return nil, refuse(o, xe.Reason, "Payment refused: "+xe.Message)
		}
	}
	return ch, nil
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

// beginError is the client's view of a purchase the engine would not begin.
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
	return errPaymentsUnavailable(err)
}

// paymentID is the payment-identifier extension's id of pay ("" when it
// carries none); a malformed id is a 400.
func paymentID(pay *x402.Payment) (string, error) {
	id := settle.PaymentIDOf(pay.Raw)
	if id != "" && !settle.ValidPaymentID(id) {
		return "", errBadPaymentID()
	}
	return id, nil
}

// settleReceipt runs the settler on a context of its own (a client that
// disconnects does not stop a settlement that is due) and returns the
// receipt the client gets, counting the result.
func (p *payments) settleReceipt(ctx context.Context, ch *charge) *x402.Receipt {
	p.inflight.add(1)
	defer p.inflight.add(-1)
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), p.timeout)
	defer cancel()
	start := time.Now()
	r, err := ch.pay.settle(ctx, ch.charged())
	p.metrics.settling.Observe(time.Since(start).Seconds())
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
