// Package eip155 serves batch-settlement (x402/channel/service) on EVM
// networks: it builds the channel service from the configuration, on
// farebox's own relayer or a facilitator that settles the scheme, and
// validates payments.batch_settlement. It is the one part of the scheme
// that knows the chain, so that the service (and a server that reads its
// store) does not.
package eip155

import (
	"context"
	"fmt"
	"math/big"
	"time"

	"github.com/farebox/farebox/x402"
	"github.com/farebox/farebox/x402/channel"
	"github.com/farebox/farebox/x402/channel/service"
	"github.com/farebox/farebox/x402/evm"
	"github.com/farebox/farebox/x402/evm/contracts"
	"github.com/farebox/farebox/x402/settle"
)

// batch-settlement is served on every EVM network, by farebox's own
// relayer or a facilitator that settles it; its keys
// (payments.batch_settlement) are validated here.
func init() {
	settle.RegisterScheme(channel.Scheme, "eip155", build)
	settle.RegisterSchemeValidation(channel.Scheme, validate)
}

// defaultMinDeposit is min_deposit's default: a deposit is a transaction
// farebox sends, so one must bring enough to be worth its gas.
const defaultMinDeposit = "0.01"

var _ ownRelayer = (*evm.Settler)(nil)

// ownRelayer is a chain settler that is the channels' receiver
// authorizer: it sends their transactions and reads their contract.
type ownRelayer interface {
	service.Relayer
	ChainID() *big.Int
	Backend() evm.Backend
}

// build starts the batch-settlement service when farebox settles on
// chain itself (its relayer is the channels' receiver authorizer) or
// through a facilitator that settles batch-settlement (delegated: see
// delegated), and its claimer, which claims on the policy until the
// payments close and once more, for everything unclaimed, at close. The
// scheme is Unserved when batch-settlement cannot be served.
func build(d settle.SchemeDeps) (x402.ServerScheme, error) {
	unserved := &x402.Unserved{SchemeName: channel.Scheme, Refusal: service.ErrUnserved}
	bc := d.Channels
	policy, err := claimPolicy(bc)
	if err != nil {
		return nil, err
	}
	var cfg service.Config
	if st, ok := d.Chain.(ownRelayer); ok {
		if bc.ReceiverAuthorizer != "" {
			return nil, fmt.Errorf("payments.batch_settlement.receiver_authorizer: only with settler facilitator (settler chain: the relayer authorizes)")
		}
		cfg = service.Config{Contracts: canonicalContracts(st.ChainID()), Chain: st.Backend(), Relayer: st}
	} else {
		fc, ok := d.Settler.(remoteFacilitator)
		if !ok {
			return unserved, nil
		}
		var on bool
		if cfg, on, err = delegated(d, fc); err != nil {
			return nil, err
		} else if !on {
			return unserved, nil
		}
	}
	if err := depositAndRefundLimits(bc, &cfg); err != nil {
		return nil, err
	}
	store, ok := d.ChannelStore.(service.Store)
	if !ok {
		return nil, fmt.Errorf("payments.batch_settlement: the storage keeps no channels")
	}
	cfg.Receiver, cfg.WithdrawDelay, cfg.Policy = d.PayTo, bc.WithdrawDelay, policy
	cfg.Store, cfg.Logger, cfg.Now = store, d.Log, d.Now
	svc, err := service.New(cfg)
	if err != nil {
		return nil, fmt.Errorf("payments.batch_settlement: %w", err)
	}
	d.AddCloser(runClaims(svc, d), true)
	return service.NewScheme(svc), nil
}

// runClaims starts svc's claimer and is its closer: first among the
// closers, the claimer stops, then claims what is left while the engine,
// the journal and the chain are still open.
func runClaims(svc *service.Service, d settle.SchemeDeps) func() {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		svc.RunClaims(ctx)
	}()
	return func() {
		cancel()
		<-done
		cctx, ccancel := context.WithTimeout(context.Background(), d.Timeout)
		defer ccancel()
		if _, err := svc.ClaimNow(cctx); err != nil {
			d.Log.Warn("claiming the channels at shutdown", "err", err)
		}
	}
}

// canonicalContracts are the batch-settlement contracts at their canonical
// addresses (the official clients hard-code them).
func canonicalContracts(chainID *big.Int) *channel.Contracts {
	return channel.NewContracts(chainID, contracts.CanonicalBatchSettlement, contracts.CanonicalERC3009DepositCollector,
		contracts.CanonicalPermit2DepositCollector, contracts.CanonicalPermit2)
}

// claimPolicy is the claim policy the config describes, or a startup
// error naming the key that is wrong.
func claimPolicy(bc settle.ChannelsConfig) (channel.ClaimPolicy, error) {
	policy := channel.ClaimPolicy{Interval: orDefault(bc.ClaimInterval, channel.DefaultClaimInterval),
		WithdrawLead: orDefault(bc.ClaimWithdrawLead, channel.DefaultClaimWithdrawLead)}
	delay := bc.WithdrawDelay
	if delay == 0 {
		delay = channel.MinWithdrawDelay
	}
	if d := time.Duration(delay) * time.Second; policy.WithdrawLead >= d {
		return policy, fmt.Errorf("payments.batch_settlement.claim_withdraw_lead (%s) must be less than withdraw_delay (%ds = %s): "+
			"the claim is due that long before a payer's withdrawal can be finalized, which is withdraw_delay after it starts", policy.WithdrawLead, delay, d)
	}
	if bc.ClaimThreshold != "" {
		t, err := x402.ParseUSDC(bc.ClaimThreshold)
		if err != nil {
			return policy, fmt.Errorf("payments.batch_settlement.claim_threshold: %w", err)
		}
		policy.Threshold = t
	}
	return policy, nil
}

func orDefault(d, def time.Duration) time.Duration {
	if d == 0 {
		return def
	}
	return d
}

// depositAndRefundLimits sets the service's minimum deposit, refund
// interval and minimum refund from the config, or names the wrong key.
func depositAndRefundLimits(bc settle.ChannelsConfig, cfg *service.Config) error {
	min := bc.MinDeposit
	if min == "" {
		min = defaultMinDeposit
	}
	d, err := x402.ParseUSDC(min)
	if err != nil {
		return fmt.Errorf("payments.batch_settlement.min_deposit: %w", err)
	}
	if d.Sign() > 0 {
		cfg.MinDeposit = d
	}
	if bc.MinRefund != "" {
		r, err := x402.ParseUSDC(bc.MinRefund)
		if err != nil {
			return fmt.Errorf("payments.batch_settlement.min_refund: %w", err)
		}
		cfg.MinRefund = r
	}
	if bc.RefundInterval < 0 {
		return fmt.Errorf("payments.batch_settlement.refund_interval: must not be negative")
	}
	cfg.RefundInterval = orDefault(bc.RefundInterval, service.DefaultRefundInterval)
	return nil
}
