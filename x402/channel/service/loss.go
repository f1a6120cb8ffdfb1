package service

import (
	"context"
	"errors"
	"time"

	"github.com/farebox/farebox/x402/channel"
)

// StoreLoss is a Store that can tell it lost its data (store/redis: a Redis
// restarted empty, seen by the journal's store epoch on the same Redis).
type StoreLoss interface {
	// LostAt reads the store's state and returns when it last lost its
	// data (zero: never seen).
	LostAt(ctx context.Context) (time.Time, error)
}

// LostReason is the quarantine reason of a channel whose vouchers the
// store lost: it names the fault, the refusal tells the payer what to do.
const LostReason = "the channel store lost its vouchers, so one signed before could be served twice"

// afterLoss decides about a channel the store has no record of, read from
// chain as st. A voucher is cumulative and carries no date, so once the
// store lost its data any voucher accepted and not yet claimed before the
// loss would match the chain's baseline (totalClaimed) again: served twice,
// claimed once. Such a voucher can exist only while the channel holds more
// than was claimed (a voucher never exceeds the balance, which only grows
// until a refund or a withdrawal, and both claim or end what was charged
// first). That channel is recorded quarantined, shared by every replica:
// no voucher or deposit on it is served again, nothing on it is claimed
// (the unclaimed charges are forfeited, as the spec's recovery forfeits
// them), and the payer withdraws its balance on chain. nil: a channel that
// can be served from the chain's baseline (no loss seen, or nothing
// unclaimed possible).
func (s *Service) afterLoss(ctx context.Context, st *channel.State) (*Record, error) {
	sl, ok := s.cfg.Store.(StoreLoss)
	if !ok || st.Balance.Cmp(st.TotalClaimed) <= 0 {
		return nil, nil
	}
	unavailable := &channel.Error{Reason: channel.ReasonVerificationStateUnavailable, Message: "channel state is unavailable"}
	at, err := sl.LostAt(ctx)
	if err != nil {
		return nil, unavailable
	}
	if at.IsZero() {
		return nil, nil
	}
	rec := &Record{State: st, Quarantine: &Quarantine{Reason: LostReason, At: s.cfg.Now().UnixMilli()}}
	if err := s.cfg.Store.Put(ctx, rec, 0); errors.Is(err, ErrConflict) {
		// Another replica recorded it meanwhile (it saw the same loss).
		cur, err := s.cfg.Store.Get(ctx, st.ChannelID)
		if err != nil || cur == nil {
			return nil, unavailable
		}
		return cur, nil
	} else if err != nil {
		return nil, unavailable
	}
	s.stats.quarantined.Add(1)
	s.log.Warn("channel: quarantined after the channel store lost its data: no longer served nor claimed",
		"channel", channelKey(st.ChannelID), "payer", st.Config.Payer.Hex(), "lost_at", at.UTC().Format(time.RFC3339),
		"balance", st.Balance.String(), "total_claimed", st.TotalClaimed.String())
	return rec, nil
}
