// Package charge is the paid call: it prices one call (per call or per
// token; a free model is the same call at price zero), offers it (the
// x402 requirements), decodes and verifies its payment through the
// scheme registry, reserves it, runs the model into the adapter's output,
// settles (before or after), releases or owes, writes the receipt, keeps
// the answer for a paid retry, and tells the books who served it.
//
// It knows no web framework and no client wire: a wire adapter decodes
// its wire into a responses.Request, hands it to Seller.Sell with an
// Output (headers, a stream of the emitter's events or one object), and
// writes the typed errors Sell returns (*responses.Error, *Refusal) in its
// own error shape.
package charge

import (
	"log/slog"
	"math/big"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/farebox/farebox/responses"
	"github.com/farebox/farebox/x402"
	"github.com/farebox/farebox/x402/settle"
)

// Seller sells paid calls: what is accepted, how it is verified and
// settled. Its fields are set once, by the composition root, before the
// first call; it is safe for concurrent use afterwards.
type Seller struct {
	PayTo      common.Address
	Networks   []*x402.Network
	MaxTimeout int64 // the requirements' maxTimeoutSeconds
	// Before settles a call before its model runs (payments.settle: before).
	Before bool
	// EscrowOnly sells streams only against escrow (payments.streams).
	EscrowOnly bool
	// Schemes are the schemes taken, in offer order.
	Schemes *x402.Schemes
	// Refunder is the scheme that serves refunds, nil when none does.
	Refunder x402.Refunder
	// SettleTimeout bounds one settlement, which runs on a context of its
	// own (a client that leaves does not stop a settlement that is due).
	SettleTimeout time.Duration
	// Follows: a broadcast transfer can be followed on chain while the
	// model runs (farebox's own relayer settles).
	Follows bool
	// KeepAlive is the interval of a stream's keep-alives.
	KeepAlive time.Duration
	// InFlight counts settlements and refunds running (+1, -1), so that a
	// shutdown waits for them.
	InFlight func(delta int)
	Meters   Meters
	Log      *slog.Logger
}

// Meters are the operator's counts of paid calls (for alerting); the
// books, not these, are the accounts.
type Meters interface {
	// Payment counts a payment's step: "malformed", "settled", "pending",
	// "failed" or "refunded", with the x402 reason where there is one.
	Payment(step, reason string)
	// Refused counts a payment refused without a 402 (a malformed payment
	// identifier).
	Refused()
	// Settling observes the time one settlement took.
	Settling(time.Duration)
	// Outcome counts a paid call's outcome, once per call.
	Outcome(Outcome)
	// Upstream observes the time the model of product took.
	Upstream(product string, took time.Duration)
	// Streams counts the streams open (+1, -1).
	Streams(delta int)
	// KeepAlive counts one keep-alive written.
	KeepAlive()
}

// Sale is what became of one call, for the access log and the books: the
// fare (nil for a free call), whether the model was reached and how soon
// it answered, what it used and which supplier served it.
type Sale struct {
	Fare *Fare
	// Reached: the model was called; TTFT is then its time to first item
	// (zero when it produced none).
	Reached bool
	TTFT    time.Duration
	// Usage is what the model's answer used (reported, else counted).
	Usage    responses.Usage
	Supplier string // the pool's supplier that served, "" for one upstream
}

// Payer is the address that paid (the receipt's, else the
// authorization's), "" for a free call.
func (s *Sale) Payer() string {
	f := s.Fare
	switch {
	case f == nil || f.hold == nil:
		return ""
	case f.receipt != nil && f.receipt.Payer != "":
		return f.receipt.Payer
	}
	return f.payment.Authorization.From.Hex()
}

// Entry names the settlement journal's entry of the call's payment, ""
// for a free call or a payment the journal does not hold (a channel's
// voucher): the books count the call once under it.
func (s *Sale) Entry() string {
	if s.Fare == nil {
		return ""
	}
	if h, ok := s.Fare.hold.(interface{ Purchase() *settle.Purchase }); ok && h.Purchase() != nil {
		return h.Purchase().Entry().Name()
	}
	return ""
}

// Charged is what the call settled, nil when it settled nothing.
func (s *Sale) Charged() *big.Int {
	if s.Fare == nil || s.Fare.outcome != Settled {
		return nil
	}
	return s.Fare.charged()
}
