// Package service is farebox's batch-settlement server (and, with its own
// relayer as receiver authorizer, facilitator): it runs each paid request
// on a payment channel as the spec orders it (serialised per channel,
// verified locally, deposits sent and awaited, state committed only after
// the answer succeeded, durably), answers cooperative refunds, and claims
// the vouchers on chain in batches on a policy, sweeping them to the
// receiver in the same transaction. The protocol itself (verification,
// state arithmetic, calldata) is package channel's.
package service

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/big"
	"sync/atomic"
	"time"

	ethereum "github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/farebox/farebox/x402/channel"
	"github.com/farebox/farebox/x402/settle"
)

// Relayer sends the service's transactions from the receiver authorizer's
// key: *evm.Settler, whose nonce sequence settlements share.
type Relayer interface {
	// Relayer is the sending address (the channels' receiverAuthorizer).
	Relayer() common.Address
	// Call simulates, journals (onSigned) and sends one call; see evm.Settler.Call.
	Call(ctx context.Context, to common.Address, data []byte, onSigned func(common.Hash) error) (common.Hash, error)
	// AwaitCall waits for its receipt; see evm.Settler.AwaitCall.
	AwaitCall(ctx context.Context, hash common.Hash) (*types.Receipt, error)
}

// Config is a Service's setup. Contracts, Receiver, Chain, Relayer and
// Store are required.
type Config struct {
	Contracts *channel.Contracts
	// Receiver is the channels' receiver (the requirements' payTo): claims
	// sweep to it.
	Receiver common.Address
	// WithdrawDelay is the channels' withdrawDelay in seconds (default
	// 900). It is part of every channel id: never change it while channels
	// are open.
	WithdrawDelay uint64
	// AssetTransferMethod is announced in the offer (channel.MethodEIP3009 by default).
	AssetTransferMethod string
	// MinDeposit, when set, is announced as extra.minDeposit and enforced:
	// a smaller deposit is refused (ReasonDepositBelowMinDeposit) before
	// anything is sent, since every deposit is a transaction.
	MinDeposit *big.Int
	// RefundInterval is the least time between a cooperative refund of one
	// channel and a partial refund after it (default 10 minutes; negative:
	// no limit; a refund of everything left is always served). A refund voucher
	// does not sign its amount and stays valid while nothing is charged, so
	// each replay would otherwise be a transaction.
	RefundInterval time.Duration
	// MinRefund, when set, is the least a partial refund may return (a
	// refund of everything left is always served).
	MinRefund *big.Int
	// MaxStaleness is how old the on-chain mirror may be when a voucher is
	// verified locally (default 30 s).
	MaxStaleness time.Duration
	// Policy decides when RunClaims claims.
	Policy channel.ClaimPolicy
	// ClaimPoll is how often RunClaims looks at the channels when the
	// policy names no earlier time (default 5 s): it also mirrors them to
	// see withdrawals.
	ClaimPoll time.Duration
	// LockTTL is how long a shared (Redis) lock outlives a dead holder
	// (default 30 s; a live holder keeps extending it).
	LockTTL time.Duration
	// Chain reads the contract (eth_call).
	Chain ethereum.ContractCaller
	// Relayer sends deposits, claims and refunds; its address is the
	// channels' receiverAuthorizer. Ignored when Backend is set.
	Relayer Relayer
	// Backend performs the on-chain operations (default: a RelayerBackend
	// on Relayer); a FacilitatorBackend delegates them to a facilitator.
	Backend Backend
	Store   Store
	Logger  *slog.Logger     // default slog.Default()
	Now     func() time.Time // default time.Now
}

// DefaultRefundInterval is Config.RefundInterval's default.
const DefaultRefundInterval = 10 * time.Minute

// Service is the batch-settlement server. It is safe for concurrent use.
type Service struct {
	cfg      Config
	terms    channel.Terms
	verifier channel.Verifier
	log      *slog.Logger
	stats    counters
	// lastClaim is when this process last sent claims that all went
	// through (unix nanoseconds).
	lastClaim atomic.Int64
	// nextLook is when RunClaims looks at the channels next (unix
	// nanoseconds; 0 when it does not run).
	nextLook atomic.Int64
	// started is when the service was made: the claim interval runs from
	// it until the first claim, so a start costs no claim of its own.
	started time.Time
}

// New checks cfg and returns a Service.
func New(cfg Config) (*Service, error) {
	switch {
	case cfg.Contracts == nil:
		return nil, errors.New("channel service: no contracts")
	case cfg.Receiver == (common.Address{}):
		return nil, errors.New("channel service: no receiver")
	case cfg.Chain == nil || (cfg.Relayer == nil && cfg.Backend == nil) || cfg.Store == nil:
		return nil, errors.New("channel service: chain, relayer (or backend) and store are required")
	}
	if cfg.Backend == nil {
		cfg.Backend = &RelayerBackend{Contracts: cfg.Contracts, Relayer: cfg.Relayer}
	}
	if cfg.WithdrawDelay == 0 {
		cfg.WithdrawDelay = channel.MinWithdrawDelay
	}
	if cfg.WithdrawDelay < channel.MinWithdrawDelay || cfg.WithdrawDelay > channel.MaxWithdrawDelay {
		return nil, fmt.Errorf("channel service: withdraw delay %d s is outside %d..%d", cfg.WithdrawDelay,
			channel.MinWithdrawDelay, channel.MaxWithdrawDelay)
	}
	if cfg.MaxStaleness == 0 {
		cfg.MaxStaleness = 30 * time.Second
	}
	if cfg.ClaimPoll == 0 {
		cfg.ClaimPoll = 5 * time.Second
	}
	if cfg.RefundInterval == 0 {
		cfg.RefundInterval = DefaultRefundInterval
	}
	if cfg.LockTTL == 0 {
		cfg.LockTTL = 30 * time.Second
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	s := &Service{cfg: cfg, log: cfg.Logger, started: cfg.Now()}
	s.terms = channel.Terms{ReceiverAuthorizer: cfg.Backend.ReceiverAuthorizer(), WithdrawDelay: cfg.WithdrawDelay,
		AssetTransferMethod: cfg.AssetTransferMethod, MinDeposit: cfg.MinDeposit}
	s.verifier = channel.Verifier{Contracts: cfg.Contracts, Now: cfg.Now, MaxStaleness: cfg.MaxStaleness}
	return s, nil
}

// Terms are the channel parameters every batch-settlement requirement of
// this service carries: render offers with channel.Accept(req, s.Terms(), nil).
func (s *Service) Terms() *channel.Terms {
	t := s.terms
	return &t
}

// Stats counts what the service did since it was made: the engine's plain
// ChannelStats, so the metrics read it without this package.
type Stats = settle.ChannelStats

type counters struct {
	deposits, vouchers, refunds, aborts, busy, mismatches, claimTxs, claimedChannels atomic.Int64
	depositsSkipped, refundsRefused, quarantined, claimFailures                      atomic.Int64
}

// Stats returns the counters.
func (s *Service) Stats() Stats {
	c := &s.stats
	return Stats{Deposits: c.deposits.Load(), Vouchers: c.vouchers.Load(), Refunds: c.refunds.Load(),
		Aborts: c.aborts.Load(), Busy: c.busy.Load(), Mismatches: c.mismatches.Load(),
		ClaimTxs: c.claimTxs.Load(), ClaimedChannels: c.claimedChannels.Load(),
		DepositsSkipped: c.depositsSkipped.Load(), RefundsRefused: c.refundsRefused.Load(), Quarantined: c.quarantined.Load(),
		ClaimFailures: c.claimFailures.Load()}
}

// quarantined is the refusal of a request on a quarantined channel.
func quarantined(rec *Record) error {
	return &channel.Error{Reason: channel.ReasonChannelQuarantined,
		Message: "this channel is no longer served (" + rec.Quarantine.Reason +
			"): withdraw its balance on chain and pay from another channel"}
}

// MismatchError is the spec's corrective 402: the payer's cumulative
// amount does not match the server's channel state. Answer 402 with error
// Reason (channel.ReasonCumulativeAmountMismatch) and accepts =
// [channel.Accept(req, terms, State)], so the client resynchronises.
type MismatchError struct {
	Refusal *channel.Error
	State   *channel.State
}

func (e *MismatchError) Error() string { return e.Refusal.Error() }

// Unwrap exposes the *channel.Error with the reason code.
func (e *MismatchError) Unwrap() error { return e.Refusal }

// lock takes the channel's lock or refuses with ReasonChannelBusy.
func (s *Service) lock(ctx context.Context, id [32]byte) (func(), error) {
	unlock, err := s.cfg.Store.TryLock(ctx, "channel:"+channelKey(id), s.cfg.LockTTL)
	if errors.Is(err, ErrLocked) {
		s.stats.busy.Add(1)
		return nil, &channel.Error{Reason: channel.ReasonChannelBusy, Message: "another request on this channel is under way; retry shortly"}
	}
	if err != nil {
		return nil, &channel.Error{Reason: channel.ReasonVerificationStateUnavailable, Message: "channel state is unavailable"}
	}
	return unlock, nil
}

// mirror reads the channel's on-chain fields into st.
func (s *Service) mirror(ctx context.Context, st *channel.State) (*channel.State, error) {
	o, err := s.cfg.Contracts.ReadOnchain(ctx, s.cfg.Chain, st.ChannelID)
	if err != nil {
		return nil, err
	}
	return st.Mirror(o, s.cfg.Now()), nil
}

// load returns the channel's record under its lock: the stored one (read
// from chain again when a deposit was journaled and not resolved), else a
// new one from chain (the spec's baseline, totalClaimed), not yet stored,
// unless the store lost its data (afterLoss).
func (s *Service) load(ctx context.Context, p *channel.Payload) (*Record, error) {
	rec, err := s.cfg.Store.Get(ctx, p.Voucher.ChannelID)
	if err != nil {
		return nil, &channel.Error{Reason: channel.ReasonVerificationStateUnavailable, Message: "channel state is unavailable"}
	}
	if rec == nil {
		st, err := s.cfg.Contracts.Load(ctx, s.cfg.Chain, p.Config, s.cfg.Now())
		if err != nil {
			return nil, err
		}
		if lost, err := s.afterLoss(ctx, st); err != nil || lost != nil {
			return lost, err
		}
		return &Record{State: st}, nil
	}
	if rec.Deposit != nil {
		// A deposit was sent by a process that died before recording its
		// outcome: the chain knows.
		st, err := s.mirror(ctx, rec.State)
		if err != nil {
			return nil, err
		}
		s.log.Info("channel: resolved a journaled deposit", "channel", channelKey(st.ChannelID), "tx", rec.Deposit.Tx.Hex(),
			"balance", st.Balance.String())
		next := rec.with(st)
		if err := s.save(ctx, rec, next); err != nil {
			return nil, &channel.Error{Reason: channel.ReasonVerificationStateUnavailable, Message: "channel state is unavailable"}
		}
		rec = next
	}
	return rec, nil
}
