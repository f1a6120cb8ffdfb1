package service

import (
	"context"
	"errors"

	"github.com/farebox/farebox/x402/channel"
)

// save writes next over read (the record as this request read it, under
// the channel's lock). The claimer refreshes idle channels' on-chain
// fields without that lock, so a conflict whose only cause is such a
// mirror is retried on the newer record, keeping the fresher on-chain
// fields; a conflict on the charges themselves (another writer recorded a
// voucher: a lapsed shared lock) stays ErrConflict. next == nil deletes.
func (s *Service) save(ctx context.Context, read, next *Record) error {
	id := read.State.ChannelID
	prev := read.Rev
	for range 4 {
		var err error
		if next == nil {
			if prev == 0 {
				return nil
			}
			err = s.cfg.Store.Delete(ctx, id, prev)
		} else {
			err = s.cfg.Store.Put(ctx, next, prev)
		}
		if !errors.Is(err, ErrConflict) {
			return err
		}
		cur, gerr := s.cfg.Store.Get(ctx, id)
		if gerr != nil {
			return gerr
		}
		if !onlyMirrored(read, cur) {
			return ErrConflict
		}
		if next != nil && cur.State.OnchainSyncedAt.After(next.State.OnchainSyncedAt) {
			next.State = next.State.Mirror(cur.State.Onchain, cur.State.OnchainSyncedAt)
		}
		if next != nil && cur.Quarantine != nil {
			next.Quarantine = cur.Quarantine // the claimer quarantined it meanwhile
		}
		prev = cur.Rev
	}
	return ErrConflict
}

// onlyMirrored reports whether cur differs from read in on-chain fields at most.
func onlyMirrored(read, cur *Record) bool {
	if cur == nil {
		return false
	}
	if read.Rev == 0 {
		return false // read from chain, and someone created the record meanwhile
	}
	a, b := read.State, cur.State
	return a.Charged.Cmp(b.Charged) == 0 && a.SignedMaxClaimable.Cmp(b.SignedMaxClaimable) == 0 &&
		(read.Deposit == nil) == (cur.Deposit == nil)
}

// with is the record's next version holding st: what the record says
// about the channel beyond its state (quarantine, last refund) carries
// over; a journaled deposit does not.
func (r *Record) with(st *channel.State) *Record {
	return &Record{State: st, Quarantine: r.Quarantine, RefundedAt: r.RefundedAt}
}
