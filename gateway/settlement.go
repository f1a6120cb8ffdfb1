package gateway

import (
	"context"
	"math/big"

	"github.com/farebox/farebox/x402"
	"github.com/farebox/farebox/x402/settle"
)

// settlement is a charge's hold on its payment, whatever the scheme: an
// exact authorization or an upto Permit2 ceiling in the settlement journal
// (journaled), a batch-settlement voucher on a channel (an adapter of the
// channel service: Begin's call, Commit as settle, Abort as release). It
// ends with exactly one settle or release, and owe after a failed settle
// whose answer was served.
type settlement interface {
	// replay reports a payment an earlier identical request already paid:
	// the answer is served again, settle returns that request's receipt and
	// moves nothing.
	replay() bool
	// settle charges amount after the answer: at most the ceiling the
	// payment covers (exact moves the ceiling whatever amount says). It
	// returns the receipt the client gets; on failure, a receipt with the
	// reason and an error (wrapping x402.ErrSettlementPending when the
	// money may still move).
	settle(ctx context.Context, amount *big.Int) (*x402.Receipt, error)
	// release gives up a payment that served nothing: the client may use
	// it again.
	release(ctx context.Context) error
	// owe records that the answer was served but its settlement failed for
	// good: the payer is refused until the debt is settled.
	owe(ctx context.Context, reason string) error
}

// journaled is a payment in the settlement journal (exact, upto).
type journaled struct {
	pu *settle.Purchase
	// metered: the payment settles the charge, not the ceiling (upto).
	metered bool
}

func (j journaled) replay() bool { return j.pu.Replay() }

func (j journaled) settle(ctx context.Context, amount *big.Int) (*x402.Receipt, error) {
	if j.metered && !j.pu.Replay() {
		j.pu.Charge = amount
	}
	return j.pu.Settle(ctx)
}

func (j journaled) release(ctx context.Context) error { return j.pu.Release(ctx) }

func (j journaled) owe(ctx context.Context, reason string) error { return j.pu.Owe(ctx, reason) }

// answered is a settlement that keeps the answer it paid for, so a paid
// retry gets that answer without running the model again (journaled
// payments: exact, upto).
type answered interface {
	// answer is the stored answer of a replay (nil: none, run the model
	// and keep its answer); it waits while the first request makes it.
	answer(ctx context.Context) ([]byte, error)
	// keep stores the answer this request made (nil: nothing to store)
	// and wakes the requests waiting for it; later calls do nothing.
	keep(ctx context.Context, answer []byte)
}

func (j journaled) answer(ctx context.Context) ([]byte, error) { return j.pu.Answer(ctx) }

func (j journaled) keep(ctx context.Context, answer []byte) { j.pu.Keep(ctx, answer) }
