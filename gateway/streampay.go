package gateway

import (
	"context"

	"github.com/farebox/farebox/responses"
	"github.com/farebox/farebox/x402"
)

// An exact payment moves its whole price or nothing, so a stream paid with
// it under settle: after would otherwise be read to its end before the
// transfer is tried, and a payer who moved its funds after the first delta
// would have its answer for free. Such a stream settles when its first
// event is ready, before a byte of content leaves: a payment that no
// longer pays is refused with a 402 (nothing written), and one that pays
// is in the chain's hands before the client sees anything.

// settlesFirst reports whether ch's stream settles before its first
// event: a payment of a scheme that is not metered (exact), not a replay,
// under settle: after.
func (s *Server) settlesFirst(ch *charge, stream bool) bool {
	return stream && ch != nil && !s.pay.before && !ch.metered() && !ch.pay.Replay()
}

// settleFirst settles ch before the stream's first event and reports the
// refusal the client gets when it did not settle (the purchase is then
// released: nothing was written). A transfer that was broadcast but then
// fails on chain stops the model (stop) while the stream runs: no further
// content, and the engine records the payer's debt for what was sent.
func (s *Server) settleFirst(ctx context.Context, ch *charge, stop context.CancelFunc) error {
	s.pay.settle(ctx, ch, false)
	if ch.settleFailed() {
		return refuseUnsettled(ch)
	}
	f, ok := ch.pay.(x402.FollowedHold)
	if !ok || s.pay.chain == nil || ch.receipt == nil || ch.receipt.Transaction == "" || !ch.receipt.Success {
		return nil
	}
	r := ch.receipt
	go func() {
		// Bounded by the stream: once it has ended the engine alone follows
		// the transfer.
		if xe := f.Follow(ctx, r); xe != nil {
			ch.failedOnChain.Store(xe)
			stop()
		}
	}()
	return nil
}

// chainRefusal is the in-band error of a stream whose transfer failed on
// chain after it was broadcast, nil when it did not.
func (ch *charge) chainRefusal() *responses.Error {
	if ch == nil {
		return nil
	}
	xe := ch.failedOnChain.Load()
	if xe == nil {
		return nil
	}
	return errSettleFailedAfterAnswer(xe.Reason)
}

// escrowOnly refuses an exact payment for a stream when payments.streams
// is escrow_only: its 402 offers only the escrow schemes (channels and
// upto hold the funds before the first byte), and the exact authorization
// is released, unspent.
func (s *Server) escrowOnly(ctx context.Context, ch *charge, stream bool) error {
	if !stream || !s.pay.escrowOnly || ch.metered() || ch.pay.Replay() {
		return nil
	}
	s.pay.finish(ctx, ch, released)
	o := ch.offer
	escrow := &offer{resource: o.resource, others: o.others, extensions: o.extensions, v1: []byte("[]")}
	msg := "Payment refused: this server sells streams only against escrow (batch-settlement or upto, where offered); exact pays for calls with stream: false."
	return refuse(escrow, x402.ReasonUnsupportedScheme, msg)
}
