package gateway

import (
	"context"
	"log/slog"
	"math/big"
	"sync/atomic"

	"github.com/farebox/farebox/x402"
)

// charge is one verified payment riding along a request. It owns the
// payment's life within the request: reserved when authorize returns it,
// then exactly one outcome, recorded once by finish.
type charge struct {
	route   *route
	payment *x402.Payment
	req     *x402.Requirement
	offer   *offer    // what was asked for, for a refusal after settling
	pay     x402.Hold // the payment's hold, whatever its scheme
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
	// after it was broadcast, while the stream runs (see settleFirst).
	failedOnChain atomic.Pointer[x402.Error]
	// paidBy is the transaction of another sender that paid the charge
	// when its own transfer failed for it (see paidElsewhere).
	paidBy atomic.Pointer[string]

	receipt *x402.Receipt // the settlement's receipt, once settled (or failed to)
	outcome outcome       // reserved until finish
}

// outcome is where a charge ended.
type outcome int

const (
	// reserved: verified and held; no outcome yet.
	reserved outcome = iota
	// settled: the money moved, or was submitted and may still move
	// (pending); the authorization is spent.
	settled
	// released: nothing was served and nothing moved; the client may use
	// the same authorization again.
	released
	// kept: the answer was served, or the model ran for it, but its
	// settlement failed: the authorization stays spent and the payer is in
	// debt for it.
	kept
	// replayed: the same authorization and body were paid for by an
	// earlier request: served again with that request's receipt, charged
	// nothing more.
	replayed
)

func (o outcome) String() string {
	return [...]string{"reserved", "settled", "released", "kept", "replayed"}[o]
}

// delivery is what happened to the answer a charge pays for.
type delivery struct {
	produced   bool // the model produced output the client may see
	failed     bool // the model returned an error
	stream     bool // the answer is a stream (output reaches the client as it is made)
	clientGone bool // the client left before the end
	// committed: the model spent money for this request that cannot be
	// taken back (a reseller's upstream purchase) and ran to its end.
	committed bool
}

// due decides, from what happened, whether a charge settled after the
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

// settle settles the charge and records its outcome: settled when the
// money moved or may still move, else kept when the client got something
// (served) or the model ran unpaid for it (the engine spent the
// authorization), released otherwise.
func (p *payments) settle(ctx context.Context, ch *charge, served bool) {
	if ch.pay.Replay() {
		ch.receipt, _ = ch.pay.Settle(ctx, ch.charged()) // the stored receipt
		p.finish(ctx, ch, replayed)
		return
	}
	ch.receipt = p.settleReceipt(ctx, ch)
	switch {
	case ch.receipt.Success || pending(ch.receipt):
		p.finish(ctx, ch, settled)
	case served || ch.unpaid:
		p.finish(ctx, ch, kept)
	default:
		p.finish(ctx, ch, released)
	}
}

// finish records a charge's outcome, once. The settlement journal already
// holds a settled (or kept) authorization as spent; a released one is
// deleted from it, so the client may pay again with it.
func (p *payments) finish(ctx context.Context, ch *charge, o outcome) {
	if ch.outcome != reserved {
		return
	}
	ch.outcome = o
	p.counts.outcomes[o].Add(1)
	switch o {
	case settled:
		ch.route.charged.Add(ch.charged().Int64())
	case kept:
		// Served and not paid: the payer owes it and is refused until the
		// debt lapses or is forgiven, like a transfer that fails later.
		p.counts.kept.Add(1)
		if err := ch.pay.Owe(ctx, ch.receipt.ErrorReason); err != nil {
			p.log.Error("recording a debt failed", "err", err)
		}
	case released:
		p.counts.released.Add(1)
		if err := ch.pay.Release(ctx); err != nil {
			p.log.Error("releasing a purchase failed", "err", err)
		}
	}
}

// metered reports a payment that settles the actual use (a metered
// scheme), not the amount it was verified for.
func (ch *charge) metered() bool { return ch.chargesUse }

// escrowed reports a payment whose funds are held before the model runs.
func (ch *charge) escrowed() bool { return ch.escrow }

// charged is what the answer costs (see amount).
func (ch *charge) charged() *big.Int {
	if ch.amount != nil {
		return ch.amount
	}
	return ch.req.Amount
}

// settledFailed reports a settlement that failed for good (not pending).
func (ch *charge) settleFailed() bool {
	return ch.receipt != nil && !ch.receipt.Success && !pending(ch.receipt)
}

// logAttrs is what the call cost, for the access log: the outcome, the
// amount charged (zero unless it settled) and the transaction.
func (ch *charge) logAttrs() []slog.Attr {
	amount := "0"
	if ch.outcome == settled {
		amount = x402.FormatUSDC(ch.charged())
	}
	attrs := []slog.Attr{slog.String("charge", ch.outcome.String()), slog.String("cost_usdc", amount)}
	if ch.receipt != nil && ch.receipt.Transaction != "" {
		attrs = append(attrs, slog.String("transaction", ch.receipt.Transaction))
	}
	return attrs
}
