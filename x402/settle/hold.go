package settle

import (
	"context"
	"math/big"

	"github.com/farebox/farebox/x402"
)

// Hold is a purchase in the journal as a scheme's x402.Hold: the schemes
// whose payments the journal holds (exact, upto) reserve with Reserve.
// Replays, stored answers, holds on the payer's balance and debts are
// the journal's.
type Hold struct {
	pu *Purchase
	// metered: Settle charges the amount it is given (upto), not the
	// requirement's (exact).
	metered bool
}

var (
	_ x402.AnsweredHold = Hold{}
	_ x402.RunningHold  = Hold{}
)

// PaymentID is the payment-identifier id of pay ("" when it carries
// none), or ErrInvalidPaymentID.
func PaymentID(pay *x402.Payment) (string, error) {
	id := PaymentIDOf(pay.Raw)
	if id != "" && !ValidPaymentID(id) {
		return "", ErrInvalidPaymentID
	}
	return id, nil
}

// Reserve begins p (waiting out an identical request in flight, see
// BeginWait) and holds it; metered holds settle the charge, not the
// ceiling.
func (e *Engine) Reserve(ctx context.Context, p Purchase, metered bool) (Hold, error) {
	pu, err := e.BeginWait(ctx, p)
	if err != nil {
		return Hold{}, err
	}
	return Hold{pu: pu, metered: metered}, nil
}

// Purchase is the journal's purchase.
func (h Hold) Purchase() *Purchase { return h.pu }

func (h Hold) Replay() bool { return h.pu.Replay() }

// Settle settles the purchase: for amount when metered (a replay moves
// nothing and returns the stored receipt).
func (h Hold) Settle(ctx context.Context, amount *big.Int) (*x402.Receipt, error) {
	if h.metered && !h.pu.Replay() {
		h.pu.Charge = amount
	}
	return h.pu.Settle(ctx)
}

// Running tells the purchase its model started (see Purchase.Running).
func (h Hold) Running() { h.pu.Running() }

func (h Hold) Release(ctx context.Context) error { return h.pu.Release(ctx) }

func (h Hold) Owe(ctx context.Context, reason string) error { return h.pu.Owe(ctx, reason) }

func (h Hold) Answer(ctx context.Context) ([]byte, error) { return h.pu.Answer(ctx) }

func (h Hold) Keep(ctx context.Context, answer []byte) { h.pu.Keep(ctx, answer) }
