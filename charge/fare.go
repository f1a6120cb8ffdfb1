package charge

import (
	"context"
	"encoding/json"
	"log/slog"
	"math/big"
	"net/http"
	"sync/atomic"

	"github.com/farebox/farebox/x402"
)

// Fare is one call's payment riding along its request. A free call's fare
// has no hold and costs nothing: every step below is then a step that
// moves nothing, so the call's code has one path. A paid fare is reserved
// when authorize returns it, then has exactly one outcome, recorded once
// by finish.
type Fare struct {
	product *Product
	payment *x402.Payment
	req     *x402.Requirement
	offer   *Offer    // what was asked for, for a refusal after settling
	hold    x402.Hold // the payment's hold, whatever its scheme; nil: free
	// chargesUse: the payment's scheme settles the actual use (metered),
	// not the amount it was verified for.
	chargesUse bool
	// escrow: the payment's scheme holds the funds before the model runs.
	escrow bool
	// unpaid: the transfer was refused for the payer's reasons after the
	// model started for it: the authorization is spent, the payer in debt.
	unpaid bool
	// amount is what the answer costs, set after it from the usage of a
	// per-token model paid with a metered scheme; nil: the requirement's
	// amount (per call, or the ceiling with exact).
	amount *big.Int

	// check is the chain's check of the payment still running alongside
	// the model (payments.chain.overlap); nil once passed or when it ran
	// before the model.
	check *pendingCheck

	// failedOnChain is the chain's refusal of a stream's transfer found
	// after it was broadcast, while the stream runs (see follow).
	failedOnChain atomic.Pointer[x402.Error]
	// paidBy is the transaction of another sender that paid the fare
	// when its own transfer failed for it (see paidElsewhere).
	paidBy atomic.Pointer[string]

	receipt *x402.Receipt // the settlement's receipt, once settled (or failed to)
	outcome Outcome       // Reserved until finish
}

// Outcome is where a paid call's charge ended.
type Outcome int

const (
	// Reserved: verified and held; no outcome yet.
	Reserved Outcome = iota
	// Settled: the money moved, or was submitted and may still move
	// (pending); the authorization is spent.
	Settled
	// Released: nothing was served and nothing moved; the client may use
	// the same authorization again.
	Released
	// Kept: the answer was served, or the model ran for it, but its
	// settlement failed: the authorization stays spent and the payer is in
	// debt for it.
	Kept
	// Replayed: the same authorization and body were paid for by an
	// earlier request: served again with that request's receipt, charged
	// nothing more.
	Replayed
)

func (o Outcome) String() string {
	return [...]string{"reserved", "settled", "released", "kept", "replayed"}[o]
}

// paid reports a fare with a payment (not a free call's).
func (f *Fare) paid() bool { return f.hold != nil }

// metered reports a payment that settles the actual use (a metered
// scheme), not the amount it was verified for.
func (f *Fare) metered() bool { return f.chargesUse }

// charged is what the answer costs (see amount).
func (f *Fare) charged() *big.Int {
	if f.amount != nil {
		return f.amount
	}
	if f.req == nil {
		return new(big.Int)
	}
	return f.req.Amount
}

// settleFailed reports a settlement that failed for good (not pending).
func (f *Fare) settleFailed() bool {
	return f.receipt != nil && !f.receipt.Success && !pending(f.receipt)
}

// settleReleased reports a settlement that failed on farebox's side
// (unexpected_settle_error): the authorization was released, nothing
// paid, so the same request with the same payment may be sent again.
func (f *Fare) settleReleased() bool {
	return f.settleFailed() && f.receipt.ErrorReason == x402.ReasonUnexpectedSettleError
}

// setReceipt sets the receipt header of the payment's version; a fare
// without a receipt (free, or not settled yet) sets none.
func (f *Fare) setReceipt(h http.Header) {
	if f.receipt == nil {
		return
	}
	name := x402.HeaderPaymentResponse
	if f.payment.Version == 1 {
		name = x402.HeaderXPaymentResponse
	}
	h.Set(name, x402.EncodeReceipt(f.receipt))
}

// receiptField is the in-band receipt of a fare: the "x402" field of the
// final response object, nil without a receipt.
func (f *Fare) receiptField() map[string]json.RawMessage {
	if f.receipt == nil {
		return nil
	}
	b, _ := json.Marshal(f.receipt)
	return map[string]json.RawMessage{"x402": b}
}

// networkName is the receipt's network as the payment's version names it.
func (f *Fare) networkName() string {
	if f.payment.Version == 1 && f.req.Network.V1Name != "" {
		return f.req.Network.V1Name
	}
	return f.req.Network.CAIP2
}

// LogAttrs is what the call cost, for the access log: the outcome, the
// amount charged (zero unless it settled) and the transaction; nothing
// for a free call.
func (f *Fare) LogAttrs() []slog.Attr {
	if f == nil || !f.paid() {
		return nil
	}
	amount := "0"
	if f.outcome == Settled {
		amount = x402.FormatUSDC(f.charged())
	}
	attrs := []slog.Attr{slog.String("charge", f.outcome.String()), slog.String("cost_usdc", amount)}
	if f.receipt != nil && f.receipt.Transaction != "" {
		attrs = append(attrs, slog.String("transaction", f.receipt.Transaction))
	}
	return attrs
}

// delivery is what happened to the answer a fare pays for.
type delivery struct {
	produced   bool // the model produced output the client may see
	failed     bool // the model returned an error
	stream     bool // the answer is a stream (output reaches the client as it is made)
	clientGone bool // the client left before the end
	// committed: the model spent money for this request that cannot be
	// taken back (a reseller's upstream purchase) and ran to its end.
	committed bool
}

// due decides, from what happened, whether a fare settled after the
// answer is owed: the one rule for "is this call charged".
//   - Nothing produced (the model failed first, or only produced calls the
//     client may not get): not owed.
//   - A non-streaming answer that failed, or whose client left before the
//     model committed (responses.Commit), was never received: not owed.
//     Once committed, it is owed whole, and kept for the client's retry.
//   - A stream the upstream broke while the client listened is not whole:
//     not owed.
//   - Otherwise output reached the client (whole, or in part before it
//     left): owed.
func due(d delivery) bool {
	switch {
	case !d.produced:
		return false
	case !d.stream:
		return !d.failed && (!d.clientGone || d.committed)
	case d.failed && !d.clientGone:
		return false
	}
	return true
}

// decide decides a fare's outcome from what happened to the answer: the
// one place a call is charged. A fare settled before the model ran
// already has its outcome; a free fare has none to decide.
func (s *Seller) decide(ctx context.Context, f *Fare, d delivery) {
	switch {
	case !f.paid() || f.outcome != Reserved:
	case due(d) || f.hold.Replay():
		s.settle(ctx, f, d.stream)
	default:
		s.finish(ctx, f, Released)
	}
}

// settle settles the fare and records its outcome: settled when the
// money moved or may still move, else kept when the client got something
// (served) or the model ran unpaid for it (the engine spent the
// authorization), released otherwise.
func (s *Seller) settle(ctx context.Context, f *Fare, served bool) {
	if f.hold.Replay() {
		f.receipt, _ = f.hold.Settle(ctx, f.charged()) // the stored receipt
		s.finish(ctx, f, Replayed)
		return
	}
	f.receipt = s.settleReceipt(ctx, f)
	switch {
	case f.receipt.Success || pending(f.receipt):
		s.finish(ctx, f, Settled)
	case served || f.unpaid:
		s.finish(ctx, f, Kept)
	default:
		s.finish(ctx, f, Released)
	}
}

// finish records a fare's outcome, once. The settlement journal already
// holds a settled (or kept) authorization as spent; a released one is
// deleted from it, so the client may pay again with it.
func (s *Seller) finish(ctx context.Context, f *Fare, o Outcome) {
	if f.outcome != Reserved {
		return
	}
	f.outcome = o
	s.Meters.Outcome(o)
	switch o {
	case Settled:
		f.product.charged.Add(f.charged().Int64())
	case Kept:
		// Served and not paid: the payer owes it and is refused until the
		// debt lapses or is forgiven, like a transfer that fails later.
		if err := f.hold.Owe(ctx, f.receipt.ErrorReason); err != nil {
			s.Log.Error("recording a debt failed", "err", err)
		}
	case Released:
		if err := f.hold.Release(ctx); err != nil {
			s.Log.Error("releasing a purchase failed", "err", err)
		}
	}
}

// pending reports a settlement that was submitted but whose outcome is
// unknown: it may still move the money, so the client gets its answer.
func pending(r *x402.Receipt) bool {
	return !r.Success && r.ErrorReason == x402.ReasonSettlementPending
}
