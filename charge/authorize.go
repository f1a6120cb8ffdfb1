package charge

import (
	"context"
	"crypto/sha256"
	"errors"
	"time"

	"github.com/farebox/farebox/x402"
	"github.com/farebox/farebox/x402/settle"
)

// Payment is a call's payment header: PAYMENT-SIGNATURE (v2) or X-PAYMENT
// (v1), as the client sent it ("" when absent).
type Payment struct {
	V2, V1 string
}

// authorize turns the call's payment header into a reserved fare: the
// payment's scheme, asked of the registry, verifies and holds it. A call
// without one, or with one that does not pay, gets an error the adapter
// answers with (a 402 offer, a 400 for a header that cannot be decoded, a
// 409 while the same purchase is in flight).
func (s *Seller) authorize(ctx context.Context, h Payment, p *Product, resource string, body []byte) (*Fare, error) {
	o := s.Offer(p, resource)
	hdr, version := h.V2, 2
	if hdr == "" {
		hdr, version = h.V1, 1
	}
	if hdr == "" {
		return nil, refusePaymentRequired(o, p)
	}
	pay, err := x402.DecodePayment(hdr, version)
	if err != nil {
		return nil, s.undecodable(o, err, version, "")
	}
	sc := s.Schemes.Lookup(pay.Scheme)
	if sc == nil {
		xe := x402.Unsupported(pay, o.reqs)
		return nil, refuse(o, xe.Reason, "Payment refused: "+xe.Message)
	}
	req := o.requirement(pay.Network, pay.Scheme)
	if sc.Metered() {
		ctx = gasFor(ctx, p) // a channel's deposit is the relayer's transaction for this model
	}
	hold, err := sc.Authorize(ctx, pay, req, x402.Facts{BodyHash: sha256.Sum256(body), PerToken: p.PerToken != nil, Model: p.Name})
	if err != nil {
		return nil, s.refusal(o, err, version, "Payment refused: ")
	}
	f := &Fare{product: p, payment: pay, req: req, offer: o, hold: hold, chargesUse: sc.Metered()}
	if e, ok := sc.(x402.EscrowScheme); ok {
		f.escrow = e.Escrows()
	}
	if c, ok := hold.(x402.CheckingHold); ok && c.Deferred() {
		f.check = startCheck(ctx, c.Check)
	}
	return f, nil
}

// refusal is the client's view of a payment its scheme refused (err, from
// Authorize or Refund): a 402 whose message is prefix and the reason's
// (with the scheme's corrective accepts), a 400 for a header no offer can
// make valid, a 409 while the same purchase is in flight.
func (s *Seller) refusal(o *Offer, err error, version int, prefix string) error {
	if errors.Is(err, settle.ErrInvalidPaymentID) {
		s.Meters.Refused()
		return errBadPaymentID()
	}
	if e := beginError(o, err); e != nil {
		return e
	}
	var ce *x402.Corrective
	if errors.As(err, &ce) {
		c := *o
		c.others = ce.Accepts
		return refuse(&c, ce.Refusal.Reason, prefix+ce.Refusal.Message)
	}
	var xe *x402.Error
	if errors.As(err, &xe) && !unchecked(xe) {
		return s.undecodable(o, xe, version, prefix)
	}
	return errPaymentsUnavailable(err)
}

// unchecked reports a payment that could not be checked at all (the chain
// or the facilitator did not answer): nothing is wrong with it, so the
// client gets a 503 to retry, never a 402 that has it sign again.
func unchecked(xe *x402.Error) bool {
	return xe.Reason == x402.ReasonUnexpectedVerifyError
}

// undecodable is the client's view of a payment that did not decode: a
// 400, counted as malformed, when no offer can make it valid (err is an
// *x402.Error marked Malformed), otherwise a 402 refusal whose message is
// prefix and the reason's.
func (s *Seller) undecodable(o *Offer, err error, version int, prefix string) error {
	xe := x402.AsError(err, x402.ReasonInvalidPayload)
	if !xe.Malformed {
		return refuse(o, xe.Reason, prefix+xe.Message)
	}
	s.Meters.Payment("malformed", xe.Reason)
	return errMalformedPayment(xe, version)
}

// beginError is the client's view of a purchase the engine would not
// begin, nil when err is not the engine's refusal.
func beginError(o *Offer, err error) error {
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

// gasFor labels ctx with p's model for the relayer's calls made under it
// (a deposit, a metered settlement), so their gas is booked under it.
func gasFor(ctx context.Context, p *Product) context.Context {
	return settle.WithGasLabel(ctx, p.Name)
}

// settleReceipt runs the settler on a context of its own (a client that
// disconnects does not stop a settlement that is due) and returns the
// receipt the client gets, counting the result.
func (s *Seller) settleReceipt(ctx context.Context, f *Fare) *x402.Receipt {
	s.InFlight(1)
	defer s.InFlight(-1)
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), s.SettleTimeout)
	defer cancel()
	if f.chargesUse {
		ctx = gasFor(ctx, f.product) // an upto settlement is the relayer's transaction for this model
	}
	start := time.Now()
	r, err := f.hold.Settle(ctx, f.charged())
	s.Meters.Settling(time.Since(start))
	f.unpaid = errors.Is(err, settle.ErrUnpaidRun)
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
	if r.Network == "" || (f.payment.Version == 1 && r.Network == f.req.Network.CAIP2) {
		r.Network = f.networkName()
	}
	if r.Payer == "" {
		r.Payer = f.payment.Authorization.From.Hex()
	}
	switch {
	case r.Success:
		s.Meters.Payment("settled", "")
	case pending(r):
		s.Meters.Payment("pending", r.ErrorReason)
		s.Log.Warn("settlement pending", "payer", r.Payer, "network", r.Network, "transaction", r.Transaction, "err", err)
	default:
		s.Meters.Payment("failed", r.ErrorReason)
		s.Log.Error("settlement failed", "payer", r.Payer, "network", r.Network, "reason", r.ErrorReason, "err", err)
	}
	return r
}

// escrowOnly refuses a payment for a stream that does not hold the funds
// before the first byte when payments.streams is escrow_only: exact, and
// upto too (a Permit2 authorization holds nothing: the payer may revoke
// its allowance or empty its wallet before the charge is settled). Its
// 402 offers only the escrow schemes (batch-settlement channels, whose
// deposit is on chain before the model runs), and the payment is
// released, unspent.
func (s *Seller) escrowOnly(ctx context.Context, f *Fare, stream bool) error {
	if !stream || !s.EscrowOnly || !f.paid() || f.escrow || f.hold.Replay() {
		return nil
	}
	s.finish(ctx, f, Released)
	o := f.offer
	escrow := &Offer{resource: o.resource, others: o.escrow, extensions: o.extensions, v1: []byte("[]")}
	msg := "Payment refused: this server sells streams only against escrow (batch-settlement, where offered); exact and upto pay for calls with stream: false."
	return refuse(escrow, x402.ReasonUnsupportedScheme, msg)
}
