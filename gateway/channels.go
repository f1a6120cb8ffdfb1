package gateway

import (
	"context"
	"fmt"
	"math/big"
	"time"

	"github.com/farebox/farebox/x402"
	"github.com/farebox/farebox/x402/channel"
	"github.com/farebox/farebox/x402/channel/service"
	"github.com/farebox/farebox/x402/evm/contracts"
)

// channelParts is what the payments keep of the batch-settlement
// service's wiring: its store, beside the settlement journal.
type channelParts struct {
	chanStore service.Store
	chanSvc   *service.Service // nil when batch-settlement is not served
}

// defaultClaimInterval is how often vouchers are claimed when the config
// says nothing: each claim costs the operator one transaction's gas.
const defaultClaimInterval = time.Hour

// buildChannels starts the batch-settlement service when farebox settles
// on chain itself (its relayer is the channels' receiver authorizer) or
// through a facilitator that settles batch-settlement (delegated: see
// delegatedChannels), and its claimer, which claims on the policy until
// the payments close and once more, for everything unclaimed, at close.
// It is nil, with no error, when batch-settlement is not served.
func (p *payments) buildChannels(pc PaymentsConfig, now func() time.Time, getenv func(string) string, metered bool) (*service.Service, error) {
	bc := pc.BatchSettlement
	policy, err := bc.claimPolicy()
	if err != nil {
		return nil, err
	}
	var cfg service.Config
	if p.chain != nil {
		if bc.ReceiverAuthorizer != "" {
			return nil, fmt.Errorf("payments.batch_settlement.receiver_authorizer: only with settler facilitator (settler chain: the relayer authorizes)")
		}
		st := p.chain
		cfg = service.Config{Contracts: canonicalContracts(st.ChainID()), Chain: st.Backend(), Relayer: st}
	} else {
		fc, ok := p.settler.(remoteFacilitator)
		if !ok {
			return nil, nil
		}
		var on bool
		if cfg, on, err = p.delegatedChannels(pc, fc, getenv, metered); err != nil || !on {
			return nil, err
		}
	}
	if err := bc.depositAndRefundLimits(&cfg); err != nil {
		return nil, err
	}
	cfg.Receiver, cfg.WithdrawDelay, cfg.Policy = p.payTo, bc.WithdrawDelay, policy
	cfg.Store, cfg.Logger, cfg.Now = p.chanStore, p.log, now
	svc, err := service.New(cfg)
	if err != nil {
		return nil, fmt.Errorf("payments.batch_settlement: %w", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		svc.RunClaims(ctx)
	}()
	// First among the closers: the claimer stops, then claims what is left
	// while the engine, the journal and the chain are still open.
	p.closers = append([]func(){func() {
		cancel()
		<-done
		cctx, ccancel := context.WithTimeout(context.Background(), p.timeout)
		defer ccancel()
		if _, err := svc.ClaimNow(cctx); err != nil {
			p.log.Warn("claiming the channels at shutdown", "err", err)
		}
	}}, p.closers...)
	return svc, nil
}

// canonicalContracts are the batch-settlement contracts at their canonical
// addresses (the official clients hard-code them).
func canonicalContracts(chainID *big.Int) *channel.Contracts {
	return channel.NewContracts(chainID, contracts.CanonicalBatchSettlement, contracts.CanonicalERC3009DepositCollector,
		contracts.CanonicalPermit2DepositCollector, contracts.CanonicalPermit2)
}

// defaultClaimWithdrawLead leaves a claim time to be mined (and retried)
// before a withdrawal can be finalized.
const defaultClaimWithdrawLead = 5 * time.Minute

// claimPolicy is the claim policy the config describes, or a startup
// error naming the key that is wrong.
func (bc BatchSettlementConfig) claimPolicy() (channel.ClaimPolicy, error) {
	policy := channel.ClaimPolicy{Interval: bc.ClaimInterval.D(defaultClaimInterval),
		WithdrawLead: bc.ClaimWithdrawLead.D(defaultClaimWithdrawLead)}
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

// defaultMinDeposit is min_deposit's default: a deposit is a transaction
// farebox sends, so one must bring enough to be worth its gas.
const defaultMinDeposit = "0.01"

// depositAndRefundLimits sets the service's minimum deposit, refund
// interval and minimum refund from the config, or names the wrong key.
func (bc BatchSettlementConfig) depositAndRefundLimits(cfg *service.Config) error {
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
	cfg.RefundInterval = bc.RefundInterval.D(service.DefaultRefundInterval)
	return nil
}
