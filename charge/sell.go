package charge

import (
	"context"
	"errors"
	"strings"

	"github.com/farebox/farebox/responses"
	"github.com/farebox/farebox/x402"
	"github.com/farebox/farebox/x402/settle"
)

// Call is one call to sell, as the wire adapter decoded it.
type Call struct {
	Product *Product
	// Request is the canonical request, parsed and within the product's
	// limits; a per-token price may still lower its max_output_tokens.
	Request *responses.Request
	// Body is the request's raw body: its hash makes the purchase (the
	// same authorization and body are the same purchase), and its length
	// is the documented input count of an upstream that reports none.
	Body     []byte
	Payment  Payment
	Resource string // the absolute URL of the call, the offer's resource
	// Caller is who a free call's end user is for the provider (the
	// connection's peer: "ip:ADDRESS"); a paid call's is its payer.
	Caller string
	// EndUser names the call's end user in the request for the provider
	// (the product's end-user policy); nil names none.
	EndUser func(req *responses.Request, who string)
}

// Availability is a model that knows before a call whether it can try to
// answer it at all (a pool whose every supplier's circuit is open cannot):
// Available's error is the call's answer.
type Availability interface {
	Available(ctx context.Context) error
}

// Sell sells one call: prices it, takes its payment (a free product is
// sold at price zero: no payment is asked), runs the model into out, and
// settles, releases or owes. It returns what became of the call (never
// nil) and, when the answer is not written, a typed error the adapter
// writes in its wire's shape: *Refusal (a 402 with its offer) or
// *responses.Error.
func (s *Seller) Sell(ctx context.Context, c *Call, out Output) (*Sale, error) {
	sale := &Sale{}
	p := c.Product
	if p.PerToken != nil {
		if err := p.PerToken.BoundOutput(c.Request, len(c.Body)); err != nil {
			return sale, err
		}
	}
	if a, ok := p.Model.(Availability); ok {
		// Asked before the payment is even read: a call no supplier will
		// try reserves, takes and settles nothing, whatever its scheme.
		if err := a.Available(ctx); err != nil {
			return sale, err
		}
	}
	f, err := s.fare(ctx, c)
	if err != nil {
		return sale, err
	}
	sale.Fare = f
	if err := s.escrowOnly(ctx, f, c.Request.Stream); err != nil {
		return sale, err
	}
	if a, ok := f.hold.(x402.AnsweredHold); ok {
		defer a.Keep(ctx, nil)
		if f.hold.Replay() {
			// Paid already: the answer it bought, not another model run.
			stored, err := a.Answer(ctx)
			switch {
			case errors.Is(err, settle.ErrNoAnswer):
				s.finish(ctx, f, Replayed)
				return sale, refuseNonceUsed(f.offer)
			case err != nil:
				return sale, err // the client left while the first request made the answer
			case stored != nil:
				return sale, s.replayAnswer(ctx, f, out, stored, responses.ResponseEcho(c.Request, p.Name))
			}
		}
	}
	if err := s.settleFirst(ctx, f, out); err != nil {
		return sale, err
	}
	return sale, s.run(ctx, c, f, out, sale)
}

// fare is the call's fare: at price zero a free one, otherwise the
// verified, reserved payment of its header. Either names the call's end
// user.
func (s *Seller) fare(ctx context.Context, c *Call) (*Fare, error) {
	who := c.Caller
	f := &Fare{product: c.Product}
	if !c.Product.Free() {
		var err error
		if f, err = s.authorize(ctx, c.Payment, c.Product, c.Resource, c.Body); err != nil {
			return nil, err
		}
		who = "payer:" + strings.ToLower(f.payment.Authorization.From.Hex())
	}
	if c.EndUser != nil {
		c.EndUser(c.Request, who)
	}
	return f, nil
}

// settleFirst settles a paid fare before its model runs under settle:
// before: whatever happens next, the answer must not be retried into a
// second payment. A free fare, or settle: after, settles nothing here.
func (s *Seller) settleFirst(ctx context.Context, f *Fare, out Output) error {
	if !s.Before || !f.paid() {
		return nil
	}
	out.Header().Set("X-Should-Retry", "false")
	s.settle(ctx, f, false)
	if f.settleFailed() {
		if f.settleReleased() {
			out.Header().Del("X-Should-Retry") // nothing was paid: a retry is safe
		}
		return refuseUnsettled(f)
	}
	f.setReceipt(out.Header())
	return nil
}

// attribute names, in f's purchase, the supplier of a pooled model that
// served the call, so the books count what it settles (mined before, while
// or after the model ran) under that supplier. A payment whose scheme
// keeps no journal entry (batch-settlement vouchers), or a free call, has
// nothing to name.
func (s *Seller) attribute(ctx context.Context, f *Fare, supplier string) {
	if supplier == "" {
		return
	}
	if h, ok := f.hold.(x402.ServedHold); ok {
		if err := h.Served(ctx, supplier); err != nil {
			s.Log.Warn("books: naming the supplier of a purchase failed; its revenue stays on the model", "supplier", supplier, "err", err)
		}
	}
}
