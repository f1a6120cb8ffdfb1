package service

import (
	"context"
	"errors"
	"math/big"
	"time"

	"github.com/farebox/farebox/x402"
	"github.com/farebox/farebox/x402/channel"
)

// Refund answers a cooperative refund payload (no resource is served): it
// verifies the zero-charge voucher, then in one transaction claims what
// the channel was charged, refunds the requested amount (all that is left
// when the payload names none) and sweeps the claimed funds to the
// receiver; it mirrors the chain and returns the refund receipt. A full
// refund deletes the channel's record. Refusals are as Begin's.
func (s *Service) Refund(ctx context.Context, p *channel.Payload, req *x402.Requirement) (*channel.Receipt, error) {
	if p.Type != channel.TypeRefund {
		return nil, &channel.Error{Reason: channel.ReasonPayloadType, Message: "not a refund payload"}
	}
	unlock, err := s.lock(ctx, p.Voucher.ChannelID)
	if err != nil {
		return nil, err
	}
	defer unlock()
	rec, err := s.load(ctx, p)
	if err != nil {
		return nil, err
	}
	if rec.Quarantine != nil {
		return nil, quarantined(rec)
	}
	st := rec.State
	if !st.Fresh(s.cfg.Now(), s.cfg.MaxStaleness) {
		if st, err = s.mirror(ctx, st); err != nil {
			return nil, err
		}
	}
	amount, err := s.verifier.VerifyRefund(p, req, &s.terms, st)
	remote := true
	if errors.Is(err, channel.ErrNeedsChain) {
		if err, remote = s.verifyOnChain(ctx, p, req), false; err == nil {
			amount, err = s.verifier.RefundAmount(p, st)
		}
	}
	if err == nil {
		err = s.refundAllowed(rec, st, amount)
	}
	var ce *channel.Error
	if errors.As(err, &ce) && ce.Reason == channel.ReasonCumulativeAmountMismatch {
		s.stats.mismatches.Add(1)
		return nil, &MismatchError{Refusal: ce, State: st}
	}
	if err != nil {
		return nil, err
	}
	if rv, ok := s.cfg.Backend.(RemoteVerifier); ok && remote {
		// The spec: a server that delegates always asks /verify about a refund.
		if _, err := rv.VerifyRemote(ctx, p, channel.Accept(req, &s.terms, nil)); err != nil {
			return nil, err
		}
	}
	// Recorded before the transaction: a replay of this refund while it
	// is mined, or after, is refused without one.
	before := rec.RefundedAt
	refunded := rec.with(st)
	refunded.RefundedAt = s.cfg.Now().UnixMilli()
	if err := s.save(ctx, rec, refunded); err != nil {
		return nil, &channel.Error{Reason: channel.ReasonVerificationStateUnavailable, Message: "channel state is unavailable"}
	}
	rec = refunded
	op := RefundOp{Payload: p, Requirement: req, Accepted: channel.Accept(req, &s.terms, nil), State: st, Amount: amount}
	tx, err := s.cfg.Backend.Refund(ctx, op)
	if err != nil {
		if sg, _ := stage(err); errors.As(err, &ce) || sg == StageSimulate || sg == StageSend {
			// Nothing was sent: the refund may be asked again at once.
			restored := rec.with(st)
			restored.RefundedAt = before
			_ = s.save(ctx, rec, restored)
		}
		if errors.As(err, &ce) {
			return nil, err
		}
		switch st, tx := stage(err); st {
		case StageSimulate:
			return nil, &channel.Error{Reason: channel.ReasonRefundSimulationFailed, Message: "the refund would revert"}
		case StageSend:
			return nil, &channel.Error{Reason: channel.ReasonRefundTransactionFailed, Message: "the refund could not be sent"}
		case StageMined:
			return nil, &channel.Error{Reason: channel.ReasonRefundTransactionFailed, Message: "refund transaction " + tx.Hex() + " reverted"}
		default:
			return nil, &channel.Error{Reason: channel.ReasonWaitForReceiptFailed, Message: "refund " + tx.Hex() + " not mined in time"}
		}
	}
	s.stats.refunds.Add(1)
	after, err := s.mirror(ctx, st)
	if err != nil {
		return nil, err
	}
	if after.Refundable().Sign() == 0 {
		err = s.save(ctx, rec, nil)
	} else {
		err = s.save(ctx, rec, rec.with(after))
	}
	if err != nil {
		s.log.Warn("channel: recording a refund", "channel", channelKey(st.ChannelID), "err", err)
	}
	return after.RefundReceipt(req.Network.CAIP2, tx.Hex(), amount), nil
}

// refundAllowed refuses a partial refund that would cost a transaction
// for too little: below MinRefund, or within RefundInterval of the
// channel's last refund. A refund of everything left is always served (a
// replay of it finds nothing left and is refused without a transaction). The refund voucher does not sign the amount and
// stays valid while nothing is charged, so without these a payer could
// replay one voucher for a transaction each time.
func (s *Service) refundAllowed(rec *Record, st *channel.State, amount *big.Int) error {
	if amount.Cmp(st.Refundable()) >= 0 {
		return nil // everything left: the last refund this balance can have
	}
	if rec.RefundedAt != 0 && s.cfg.RefundInterval > 0 {
		next := time.UnixMilli(rec.RefundedAt).Add(s.cfg.RefundInterval)
		if s.cfg.Now().Before(next) {
			s.stats.refundsRefused.Add(1)
			return &channel.Error{Reason: channel.ReasonRefundTooSoon,
				Message: "this channel was refunded less than " + s.cfg.RefundInterval.String() + " ago; ask again after " + next.UTC().Format(time.RFC3339)}
		}
	}
	if s.cfg.MinRefund != nil && amount.Cmp(s.cfg.MinRefund) < 0 {
		s.stats.refundsRefused.Add(1)
		return &channel.Error{Reason: channel.ReasonRefundAmountInvalid,
			Message: "a partial refund must be at least " + s.cfg.MinRefund.String() + " (or omit the amount to refund everything left)"}
	}
	return nil
}
