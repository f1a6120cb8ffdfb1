package settle

import (
	"context"
	"math/big"
	"time"

	"github.com/ethereum/go-ethereum/common"
)

// Channels is the operator's side of a scheme that keeps payment
// channels (batch-settlement): what they hold, the claims that collect
// them, and the service's counters, as plain values so that the admin API
// and the metrics name no scheme.
type Channels interface {
	// ChannelsOverview is every stored channel and the claim to come.
	ChannelsOverview(ctx context.Context) (*ChannelsOverview, error)
	// ClaimChannels claims every channel's unclaimed vouchers now.
	ClaimChannels(ctx context.Context) (*ChannelClaim, error)
	// ChannelHoldings is what the channels hold unclaimed, from one read
	// of the store.
	ChannelHoldings(ctx context.Context) (*ChannelHoldings, error)
	// ChannelStats are the service's counters since it started.
	ChannelStats() ChannelStats
}

// ChannelStats counts what a channel service did since it was made.
type ChannelStats struct {
	Deposits, Vouchers, Refunds, Aborts, Busy, Mismatches int64
	// ClaimTxs are claim-and-settle transactions; ClaimedChannels their rows.
	ClaimTxs, ClaimedChannels int64
	// DepositsSkipped are deposits not sent because the channel already
	// covered the voucher; RefundsRefused refunds refused as too soon or too small.
	DepositsSkipped, RefundsRefused int64
	// Quarantined are channels quarantined because the contract refused
	// their voucher, or the channel store lost their vouchers.
	Quarantined int64
	// ClaimFailures are claims of a (receiver, token) group that failed
	// (retried on the next round): the operator's alert.
	ClaimFailures int64
}

// ChannelHoldings are the channels' unclaimed charges (the server's risk:
// lost if a payer withdraws first), quarantined channels left out.
type ChannelHoldings struct {
	Unclaimed             *big.Int
	Channels, Quarantined int
}

// ChannelClaim is what one claim sent.
type ChannelClaim struct {
	Channels int
	Claimed  *big.Int
	Txs      []common.Hash
}

// ChannelsOverview is every stored channel and when the claimer claims next.
type ChannelsOverview struct {
	Channels  []ChannelView
	Unclaimed *big.Int // over Channels
	// ThresholdLeft is how much more must be charged before the threshold
	// claims (nil without a threshold).
	ThresholdLeft *big.Int
	// ClaimInterval and ClaimWithdrawLead are the claim policy's.
	ClaimInterval, ClaimWithdrawLead time.Duration
	LastClaim                        time.Time // zero before this process claimed
	// NextClaimAt is zero when nothing waits to be claimed.
	NextClaimAt       time.Time
	NextClaimReason   string
	NextClaimAmount   *big.Int
	NextClaimChannels int
}

// ChannelView is one channel as the admin API shows it.
type ChannelView struct {
	ID              string     `json:"id"`
	Payer           string     `json:"payer"`
	Balance         string     `json:"balance"`
	Charged         string     `json:"charged"`
	Claimed         string     `json:"claimed"`
	Unclaimed       string     `json:"unclaimed"`
	WithdrawStarted *time.Time `json:"withdraw_started,omitempty"`
	Quarantined     string     `json:"quarantined,omitempty"`
	LastRequest     *time.Time `json:"last_request,omitempty"`
	PendingDeposit  string     `json:"pending_deposit,omitempty"`
	// NextClaimAt and NextClaimReason name the claim that will collect this
	// channel's unclaimed charges; NotClaimed says why none will.
	NextClaimAt     *time.Time `json:"next_claim_at,omitempty"`
	NextClaimReason string     `json:"next_claim_reason,omitempty"`
	NotClaimed      string     `json:"not_claimed,omitempty"`
	// ClaimDue and WithdrawFinalizable: a payer's withdrawal is under way;
	// the claim is due at the first, what is unclaimed at the second is lost.
	ClaimDue            *time.Time `json:"claim_due,omitempty"`
	WithdrawFinalizable *time.Time `json:"withdraw_finalizable,omitempty"`
}
