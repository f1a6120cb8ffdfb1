package service

import (
	"context"
	"math/big"
	"time"

	"github.com/farebox/farebox/x402/channel"
)

// NextClaim is when the claimer will claim next and why, as the policy
// reads the stored channels now.
type NextClaim struct {
	// At is when the claim will be sent: the policy's time, or the
	// claimer's next look when the claim is due already. Zero when nothing
	// is waiting to be claimed (what is left is claimed at shutdown).
	At time.Time
	// Reason is the policy's trigger (channel.Claim*: interval, threshold,
	// withdrawal), "" when nothing is waiting.
	Reason string
	// Unclaimed is what the claim would collect, over the Channels it covers.
	Unclaimed *big.Int
	Channels  int
	// ThresholdLeft is how much more must be charged before the threshold
	// claims (nil without a threshold).
	ThresholdLeft *big.Int
	// Withdrawals are the covered channels whose payer started a
	// withdrawal: each must be claimed before it is finalizable.
	Withdrawals map[[32]byte]channel.Withdrawal
	// Left are the channels with charges the claimer leaves out, and why
	// (NotClaimed*).
	Left map[[32]byte]string
}

// Why a channel with charges is left out of claims.
const (
	NotClaimedQuarantined = "quarantined"      // the contract refused its voucher
	NotClaimedNoVoucher   = "no_voucher"       // no voucher signature is kept for it
	NotClaimedReceiver    = "another_receiver" // opened for another payTo or receiver authorizer
)

// NextClaim says when RunClaims will claim next, and why, from the stored
// channels (the claimer refreshes their on-chain fields every ClaimPoll,
// so a withdrawal shows once it has looked). With a shared store only the
// replica holding the claimer lock claims; every replica's answer is the
// same but for when it last claimed itself.
func (s *Service) NextClaim(ctx context.Context) (*NextClaim, error) {
	recs, err := s.cfg.Store.List(ctx)
	if err != nil {
		return nil, err
	}
	return s.NextClaimOf(recs), nil
}

// NextClaimOf is NextClaim of records already listed from the store.
func (s *Service) NextClaimOf(recs []*Record) *NextClaim {
	nc := &NextClaim{Left: map[[32]byte]string{}}
	var states []*channel.State
	for _, r := range recs {
		st := r.State
		if st == nil || st.Unclaimed().Sign() == 0 {
			continue
		}
		switch {
		case r.Quarantine != nil:
			nc.Left[st.ChannelID] = NotClaimedQuarantined
		case len(st.Signature) == 0:
			nc.Left[st.ChannelID] = NotClaimedNoVoucher
		case st.Config.Receiver != s.cfg.Receiver || st.Config.ReceiverAuthorizer != s.terms.ReceiverAuthorizer:
			nc.Left[st.ChannelID] = NotClaimedReceiver
		default:
			states = append(states, st)
		}
	}
	now := s.cfg.Now()
	pl := s.cfg.Policy.Plan(now, s.intervalFrom(), states)
	nc.Reason, nc.Unclaimed, nc.Channels = pl.Reason, pl.Unclaimed, len(pl.Channels)
	nc.ThresholdLeft, nc.Withdrawals = pl.ThresholdLeft, pl.Withdrawals
	if pl.Reason != channel.ClaimNone {
		nc.At = pl.At
		if !pl.At.After(now) {
			nc.At = now
			if n := s.nextLook.Load(); n > now.UnixNano() {
				nc.At = time.Unix(0, n)
			}
		}
	}
	return nc
}
