package service

import (
	"context"
	"math/big"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/farebox/farebox/x402"
	"github.com/farebox/farebox/x402/settle"
)

var _ settle.Channels = (*Scheme)(nil)

// ChannelsOverview is every stored channel with its balance, what was
// charged and is still unclaimed, and when the claimer claims next and why.
func (s *Scheme) ChannelsOverview(ctx context.Context) (*settle.ChannelsOverview, error) {
	svc := s.svc
	recs, err := svc.cfg.Store.List(ctx)
	if err != nil {
		return nil, err
	}
	next := svc.NextClaimOf(recs)
	o := &settle.ChannelsOverview{Channels: []settle.ChannelView{}, Unclaimed: new(big.Int),
		ClaimInterval: svc.cfg.Policy.Interval, ClaimWithdrawLead: svc.cfg.Policy.WithdrawLead,
		ThresholdLeft: next.ThresholdLeft, LastClaim: svc.LastClaim()}
	for _, r := range recs {
		if r.State == nil {
			continue
		}
		o.Unclaimed.Add(o.Unclaimed, r.State.Unclaimed())
		o.Channels = append(o.Channels, channelView(r, next))
	}
	if !next.At.IsZero() {
		o.NextClaimAt, o.NextClaimReason = next.At, next.Reason
		o.NextClaimAmount, o.NextClaimChannels = next.Unclaimed, next.Channels
	}
	return o, nil
}

// channelView is one stored channel as the admin API shows it, with the
// claim that will collect it.
func channelView(r *Record, next *NextClaim) settle.ChannelView {
	st := r.State
	id := common.Hash(st.ChannelID)
	ch := settle.ChannelView{ID: id.Hex(), Payer: strings.ToLower(st.Config.Payer.Hex()), Balance: x402.FormatUSDC(st.Balance),
		Charged: x402.FormatUSDC(st.Charged), Claimed: x402.FormatUSDC(st.TotalClaimed), Unclaimed: x402.FormatUSDC(st.Unclaimed())}
	if st.WithdrawRequestedAt != 0 {
		t := time.Unix(int64(st.WithdrawRequestedAt), 0).UTC()
		ch.WithdrawStarted = &t
	}
	if q := r.Quarantine; q != nil {
		ch.Quarantined = q.Reason
	}
	if !st.LastRequestAt.IsZero() {
		t := st.LastRequestAt
		ch.LastRequest = &t
	}
	if r.Deposit != nil {
		ch.PendingDeposit = r.Deposit.Tx.Hex()
	}
	if why, left := next.Left[st.ChannelID]; left {
		ch.NotClaimed = why
	} else if st.Unclaimed().Sign() > 0 && !next.At.IsZero() {
		at := next.At.UTC()
		ch.NextClaimAt, ch.NextClaimReason = &at, next.Reason
	}
	if w, ok := next.Withdrawals[st.ChannelID]; ok {
		due, fin := w.ClaimDue.UTC(), w.Finalizable.UTC()
		ch.ClaimDue, ch.WithdrawFinalizable = &due, &fin
	}
	return ch
}

// ClaimChannels claims every channel's unclaimed vouchers now.
func (s *Scheme) ClaimChannels(ctx context.Context) (*settle.ChannelClaim, error) {
	res, err := s.svc.ClaimNow(ctx)
	if err != nil {
		return nil, err
	}
	return &settle.ChannelClaim{Channels: res.Channels, Claimed: res.Claimed, Txs: res.Txs}, nil
}

// ChannelHoldings is what the channels hold unclaimed, from one read of
// the store; a quarantined channel's charges will never be claimed: not at
// risk, lost, so they are counted apart.
func (s *Scheme) ChannelHoldings(ctx context.Context) (*settle.ChannelHoldings, error) {
	recs, err := s.svc.cfg.Store.List(ctx)
	if err != nil {
		return nil, err
	}
	h := &settle.ChannelHoldings{Unclaimed: new(big.Int), Channels: len(recs)}
	for _, r := range recs {
		if r.Quarantine != nil {
			h.Quarantined++
			continue
		}
		h.Unclaimed.Add(h.Unclaimed, r.State.Unclaimed())
	}
	return h, nil
}

// ChannelStats are the service's counters.
func (s *Scheme) ChannelStats() settle.ChannelStats { return s.svc.Stats() }
