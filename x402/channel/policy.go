package channel

import (
	"math/big"
	"time"
)

// ClaimPolicy decides when the server claims its vouchers on chain: every
// Interval, as soon as the unclaimed total reaches Threshold, and always
// before a pending withdrawal can be finalized (the claim window closes
// then). Zero Interval or nil Threshold disables that trigger.
type ClaimPolicy struct {
	Interval  time.Duration
	Threshold *big.Int
	// WithdrawLead is how long before a pending withdrawal's delay runs out
	// the claim must be made; zero claims as soon as a withdrawal is seen.
	WithdrawLead time.Duration
}

// Claim reasons returned by ClaimPolicy.Decide.
const (
	ClaimNone       = ""
	ClaimWithdrawal = "withdrawal"
	ClaimThreshold  = "threshold"
	ClaimInterval   = "interval"
)

// Decision is what the policy says: claim these channels now (Reason set),
// or look again at Next (zero when nothing is waiting to be claimed).
type Decision struct {
	Reason    string
	Channels  []*State
	Unclaimed *big.Int
	Next      time.Time
}

// Decide looks at every channel the server tracks; lastClaim is when the
// last claim was sent (zero: never). A claim covers every channel with
// something unclaimed, so one transaction serves all.
func (p ClaimPolicy) Decide(now, lastClaim time.Time, states []*State) Decision {
	d := Decision{Unclaimed: new(big.Int)}
	for _, s := range states {
		u := s.Unclaimed()
		if u.Sign() == 0 || len(s.Signature) == 0 {
			continue
		}
		d.Channels = append(d.Channels, s)
		d.Unclaimed.Add(d.Unclaimed, u)
		if s.WithdrawRequestedAt != 0 {
			finalize := time.Unix(int64(s.WithdrawRequestedAt+s.Config.WithdrawDelay), 0)
			due := now
			if p.WithdrawLead > 0 {
				due = finalize.Add(-p.WithdrawLead)
			}
			if !now.Before(due) {
				d.Reason = ClaimWithdrawal
			} else {
				d.Next = earliest(d.Next, due)
			}
		}
	}
	if len(d.Channels) == 0 {
		return Decision{Unclaimed: d.Unclaimed}
	}
	if d.Reason == ClaimNone && p.Threshold != nil && p.Threshold.Sign() > 0 && d.Unclaimed.Cmp(p.Threshold) >= 0 {
		d.Reason = ClaimThreshold
	}
	if d.Reason == ClaimNone && p.Interval > 0 {
		at := lastClaim.Add(p.Interval)
		if lastClaim.IsZero() || !now.Before(at) {
			d.Reason = ClaimInterval
		} else {
			d.Next = earliest(d.Next, at)
		}
	}
	if d.Reason != ClaimNone {
		d.Next = time.Time{}
	} else {
		d.Channels = nil
	}
	return d
}

func earliest(a, b time.Time) time.Time {
	if a.IsZero() || b.Before(a) {
		return b
	}
	return a
}
