package service

import (
	"context"
	"errors"
	"math/big"

	"github.com/farebox/farebox/x402"
	"github.com/farebox/farebox/x402/channel"
	"github.com/farebox/farebox/x402/evm/contracts"
)

var settlementABI = contracts.NewBatchSettlement()

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
			amount, err = refundAmount(p, st)
		}
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
	op := RefundOp{Payload: p, Requirement: req, Accepted: channel.Accept(req, &s.terms, nil), State: st, Amount: amount}
	tx, err := s.cfg.Backend.Refund(ctx, op)
	if err != nil {
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
		err = s.save(ctx, rec, &Record{State: after})
	}
	if err != nil {
		s.log.Warn("channel: recording a refund", "channel", channelKey(st.ChannelID), "err", err)
	}
	return after.RefundReceipt(req.Network.CAIP2, tx.Hex(), amount), nil
}

// refundAmount is VerifyRefund's amount for a payload whose signature the
// chain had to check.
func refundAmount(p *channel.Payload, st *channel.State) (*big.Int, error) {
	left := st.Refundable()
	if left.Sign() == 0 {
		return nil, &channel.Error{Reason: channel.ReasonRefundNoBalance, Message: "nothing is left to refund"}
	}
	if p.RefundAmount != nil && p.RefundAmount.Cmp(left) < 0 {
		return new(big.Int).Set(p.RefundAmount), nil
	}
	return left, nil
}
