package charge

import (
	"context"
	"errors"

	"github.com/farebox/farebox/responses"
	"github.com/farebox/farebox/x402"
)

// An exact payment moves its whole price or nothing, so under settle:
// after its transfer is sent as the model starts, alongside it, not once
// the model answered: a payer who moves its funds while the model runs
// (a JSON answer as much as a stream) would otherwise have every call in
// flight for free. The answer waits for the transfer (a stream's first
// event, a JSON answer's whole object): a transfer refused stops the model
// at once and is a 402 with nothing written; one broadcast but then failed
// on chain stops the model when its block shows it. A refusal for the
// payer's own reasons (its balance, its nonce) spends the authorization
// and puts the payer in debt (settle.Purchase.Running): the operator ran
// the model for it.

// settlesAlongside reports whether ch's transfer is sent as its model
// starts: a payment of a scheme that is not metered (exact), not a replay,
// under settle: after.
func (s *Seller) settlesAlongside(ch *Fare) bool {
	return ch.paid() && !s.Before && !ch.metered() && !ch.hold.Replay()
}

// running tells ch's payment that the model starts for it: a settlement
// refused for the payer's reasons from now on (exact's transfer alongside
// the model, a metered charge after the answer) spends the payment and
// puts the payer in debt, so that a replay runs nothing.
func running(ch *Fare) {
	if r, ok := ch.hold.(x402.RunningHold); ok && !ch.hold.Replay() {
		r.Running()
	}
}

// transfer is a fare's settlement running alongside its model.
type transfer struct {
	ch   *Fare
	done chan struct{}
}

// startTransfer sends ch's transfer while the model starts (after the
// chain's check of the payment, when one overlaps the model: a refused
// check releases the payment instead, see passed). A transfer refused
// stops the model (stop) at once; one broadcast is followed on chain and
// stops the model if it fails while the model runs (ctx: the model's).
func (s *Seller) startTransfer(ctx context.Context, ch *Fare, stop context.CancelFunc) *transfer {
	t := &transfer{ch: ch, done: make(chan struct{})}
	check := ch.check
	go func() {
		defer close(t.done)
		if check != nil {
			if <-check.done; check.err != nil {
				return // refused before the transfer: passed releases the payment
			}
		}
		s.settle(ctx, ch, false)
		if ch.settleFailed() {
			stop()
			return
		}
		s.follow(ctx, ch, stop)
	}()
	return t
}

// paidCommit is ctx whose responses.Commit (a reseller about to buy its
// answer) first starts the client's transfer and waits for the node to
// accept it: a refused transfer gives the purchase up before anything is
// spent, and a resold call that fails before buying costs nobody anything.
func paidCommit(ctx context.Context, start func() *transfer) context.Context {
	inner := ctx
	return responses.WithCommit(ctx, func() error {
		t := start()
		if err := t.refusal(); err != nil {
			return err
		}
		if t.ch.receipt == nil {
			return errors.New("the payment was refused before its transfer") // the chain's check: passed answers it
		}
		return responses.Commit(inner)
	})
}

// refusal waits for the transfer and is what the client gets when it did
// not pay: nil when it paid (or may still: pending), or when the chain's
// check refused the payment first (passed answers that).
func (t *transfer) refusal() error {
	<-t.done
	ch := t.ch
	switch {
	case ch.receipt == nil:
		return nil
	case ch.unpaid:
		return refuseUnpaidRun(ch)
	case ch.settleFailed():
		return refuseUnsettled(ch)
	}
	return nil
}

// follow watches a broadcast transfer of ch until its block while the
// model runs (ctx): a transfer the chain fails stops the model (stop),
// and the engine records the payer's debt.
func (s *Seller) follow(ctx context.Context, ch *Fare, stop context.CancelFunc) {
	f, ok := ch.hold.(x402.FollowedHold)
	if !ok || !s.Follows || ch.receipt == nil || ch.receipt.Transaction == "" || !ch.receipt.Success {
		return
	}
	r := ch.receipt
	go func() {
		// Bounded by the model's run: once it has ended the engine alone
		// follows the transfer.
		paidBy, xe := f.Follow(ctx, r)
		switch {
		case xe != nil:
			ch.failedOnChain.Store(xe)
			stop()
		case paidBy != "":
			ch.paidBy.Store(&paidBy)
			s.Log.Info("a transfer was paid by another sender's transaction", "payer", r.Payer, "transaction", paidBy)
		}
	}()
}

// paidElsewhere names, in f's receipt, the transaction of another sender
// that paid f in full when f's own transfer failed for it (a front-run
// found while the model ran); call it once the model returned.
func (f *Fare) paidElsewhere() {
	if tx := f.paidBy.Load(); tx != nil && f.receipt != nil {
		r := *f.receipt
		r.Transaction = *tx
		f.receipt = &r
	}
}

// chainRefusal is the error of an answer whose transfer failed on chain
// after it was broadcast, nil when it did not.
func (f *Fare) chainRefusal() *responses.Error {
	xe := f.failedOnChain.Load()
	if xe == nil {
		return nil
	}
	return errSettleFailedAfterAnswer(xe.Reason)
}
