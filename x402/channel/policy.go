package channel

import (
	"math/big"
	"time"
)

// The claim policy's defaults, for a server whose configuration says nothing.
const (
	// DefaultClaimInterval claims hourly: each claim costs the receiver one
	// transaction's gas.
	DefaultClaimInterval = time.Hour
	// DefaultClaimWithdrawLead leaves a claim time to be mined (and
	// retried) before a withdrawal can be finalized.
	DefaultClaimWithdrawLead = 5 * time.Minute
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
	pl := p.Plan(now, lastClaim, states)
	switch {
	case pl.Reason == ClaimNone:
		return Decision{Unclaimed: pl.Unclaimed}
	case pl.At.After(now):
		return Decision{Unclaimed: pl.Unclaimed, Next: pl.At}
	}
	return Decision{Reason: pl.Reason, Channels: pl.Channels, Unclaimed: pl.Unclaimed}
}

// Plan is when the policy will claim next and why: the operator's view of
// Decide, which claims when At is not after now.
type Plan struct {
	// At is when the next claim is due (now when it is due already); zero
	// when nothing is waiting, or no trigger is set.
	At time.Time
	// Reason is the trigger that makes the claim due at At (Claim*).
	Reason string
	// Channels are the channels the claim covers (every one with a voucher
	// and something unclaimed); Unclaimed is their sum.
	Channels  []*State
	Unclaimed *big.Int
	// ThresholdLeft is how much more must be charged before the threshold
	// claims (nil without a threshold, zero once reached).
	ThresholdLeft *big.Int
	// Withdrawals are the covered channels whose payer started a
	// withdrawal, by channel id.
	Withdrawals map[[32]byte]Withdrawal
}

// Withdrawal is a pending withdrawal as the claim policy sees it.
type Withdrawal struct {
	// ClaimDue is when the policy claims for it (WithdrawLead before Finalizable).
	ClaimDue time.Time
	// Finalizable is when the payer may finalize: what is unclaimed then is lost.
	Finalizable time.Time
}

// Plan looks at the same channels as Decide and says when the earliest
// trigger fires: a withdrawal's claim, the threshold (due at once when
// reached) or the interval after lastClaim (at once when there was none).
// When several are due, a withdrawal names the claim before the threshold,
// and the threshold before the interval.
func (p ClaimPolicy) Plan(now, lastClaim time.Time, states []*State) Plan {
	pl := Plan{Unclaimed: new(big.Int)}
	var due []trigger
	for _, s := range states {
		u := s.Unclaimed()
		if u.Sign() == 0 || len(s.Signature) == 0 {
			continue
		}
		pl.Channels = append(pl.Channels, s)
		pl.Unclaimed.Add(pl.Unclaimed, u)
		if s.WithdrawRequestedAt != 0 {
			w := Withdrawal{Finalizable: time.Unix(int64(s.WithdrawRequestedAt+s.Config.WithdrawDelay), 0), ClaimDue: now}
			if p.WithdrawLead > 0 {
				w.ClaimDue = w.Finalizable.Add(-p.WithdrawLead)
			}
			if pl.Withdrawals == nil {
				pl.Withdrawals = map[[32]byte]Withdrawal{}
			}
			pl.Withdrawals[s.ChannelID] = w
			due = append(due, trigger{w.ClaimDue, ClaimWithdrawal})
		}
	}
	if p.Threshold != nil && p.Threshold.Sign() > 0 {
		pl.ThresholdLeft = new(big.Int).Sub(p.Threshold, pl.Unclaimed)
		if pl.ThresholdLeft.Sign() <= 0 {
			pl.ThresholdLeft.SetInt64(0)
			due = append(due, trigger{now, ClaimThreshold})
		}
	}
	if len(pl.Channels) == 0 {
		return Plan{Unclaimed: pl.Unclaimed, ThresholdLeft: pl.ThresholdLeft}
	}
	if p.Interval > 0 {
		at := now
		if !lastClaim.IsZero() {
			at = lastClaim.Add(p.Interval)
		}
		due = append(due, trigger{at, ClaimInterval})
	}
	for _, tr := range due {
		at := tr.at
		if at.Before(now) {
			at = now
		}
		if pl.Reason == ClaimNone || at.Before(pl.At) || (at.Equal(pl.At) && rank(tr.reason) < rank(pl.Reason)) {
			pl.At, pl.Reason = at, tr.reason
		}
	}
	return pl
}

// trigger is one reason to claim and when it fires.
type trigger struct {
	at     time.Time
	reason string
}

// rank orders the reasons of triggers due at the same time.
func rank(reason string) int {
	switch reason {
	case ClaimWithdrawal:
		return 0
	case ClaimThreshold:
		return 1
	}
	return 2
}
