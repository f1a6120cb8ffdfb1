package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"time"

	"github.com/farebox/farebox/x402"
	"github.com/farebox/farebox/x402/channel"
	"github.com/farebox/farebox/x402/channel/service"
	"github.com/farebox/farebox/x402/eip712"
	"github.com/farebox/farebox/x402/evm/contracts"
	"github.com/farebox/farebox/x402/facilitator"
)

// channelCall is a batch-settlement voucher or deposit as a settlement:
// the channel service's call, committed with the actual charge or aborted.
type channelCall struct {
	call *service.Call
}

// replay: a voucher cannot be replayed (the service refuses a cumulative
// amount it already recorded with a corrective 402).
func (channelCall) replay() bool { return false }

func (c channelCall) settle(ctx context.Context, amount *big.Int) (*x402.Receipt, error) {
	r, err := c.call.Commit(context.WithoutCancel(ctx), amount)
	if err != nil {
		xe := x402.AsError(err, channel.ReasonVerificationStateUnavailable)
		var ce *channel.Error
		if errors.As(err, &ce) {
			xe = ce.X402()
		}
		return &x402.Receipt{Payer: c.call.Payer().Hex(), ErrorReason: xe.Reason}, xe
	}
	return r.X402(), nil
}

func (c channelCall) release(ctx context.Context) error {
	c.call.Abort(ctx)
	return nil
}

// owe: a channel commit that failed charged nothing and keeps the
// voucher unrecorded; the payer owes nothing on chain.
func (channelCall) owe(context.Context, string) error { return nil }

// authorizeChannel begins a batch-settlement request on its channel: the
// service verifies the voucher (and sends a deposit) and holds the channel
// until the charge commits after the answer.
func (p *payments) authorizeChannel(ctx context.Context, pay *x402.Payment, rt *route, o *offer, version int) (*charge, error) {
	if p.channelSvc == nil || rt.perToken == nil {
		return nil, refuse(o, x402.ReasonUnsupportedScheme, "Payment refused: this model takes batch-settlement payments only when priced per token and settled by farebox's own chain settler or a facilitator that settles them. Pay with one of the offers.")
	}
	req := o.requirement(pay.Network, channel.Scheme)
	if req == nil {
		return nil, refuse(o, channel.ReasonNetworkMismatch, "Payment refused: network "+pay.Network+" is not offered.")
	}
	cp, err := channel.DecodePayload(pay.Payload)
	if err != nil {
		xe := x402.AsError(err, channel.ReasonPayloadType)
		var ce *channel.Error
		if errors.As(err, &ce) {
			xe = ce.X402()
		}
		return nil, refuse(o, xe.Reason, "Payment refused: "+xe.Message)
	}
	if cp.Type == channel.TypeRefund {
		// Only a header the refund peek could not read gets here.
		return nil, refuse(o, channel.ReasonPayloadType, "Payment refused: a cooperative refund is served on GET /v1/responses, with its payload as the payment.")
	}
	sponsoring, err := eip712.DecodeGasSponsoring(pay.Extensions)
	if err != nil {
		return nil, p.undecodable(o, &x402.Error{Reason: eip712.ReasonGasSponsoringFormat, Message: "extensions.eip2612GasSponsoring is malformed", Malformed: true}, version, "")
	}
	call, err := p.channelSvc.Begin(ctx, cp, req, sponsoring)
	if err != nil {
		var me *service.MismatchError
		if errors.As(err, &me) {
			// The spec's corrective 402: the channel's state, so the client resyncs.
			c := *o
			c.others = []json.RawMessage{channel.Accept(req, p.channelSvc.Terms(), me.State)}
			return nil, refuse(&c, me.Refusal.Reason, "Payment refused: "+me.Refusal.Message)
		}
		var ce *channel.Error
		if errors.As(err, &ce) {
			return nil, refuse(o, ce.Reason, "Payment refused: "+ce.Message)
		}
		return nil, errPaymentsUnavailable(err)
	}
	pay.Authorization.From = call.Payer()
	return &charge{route: rt, payment: pay, req: req, offer: o, pay: channelCall{call: call}}, nil
}

// defaultClaimInterval is how often vouchers are claimed when the config
// says nothing: each claim costs the operator one transaction's gas.
const defaultClaimInterval = time.Hour

// buildChannels starts the batch-settlement service when farebox settles
// on chain itself (its relayer is the channels' receiver authorizer) or
// through a facilitator that settles batch-settlement (delegated: see
// delegatedChannels), and its claimer, which claims on the policy until
// the payments close and once more, for everything unclaimed, at close.
func (p *payments) buildChannels(pc PaymentsConfig, now func() time.Time, getenv func(string) string, metered bool) error {
	bc := pc.BatchSettlement
	policy, err := bc.claimPolicy()
	if err != nil {
		return err
	}
	var cfg service.Config
	if p.upto != nil {
		if bc.ReceiverAuthorizer != "" {
			return fmt.Errorf("payments.batch_settlement.receiver_authorizer: only with settler facilitator (settler chain: the relayer authorizes)")
		}
		st := p.chain
		cfg = service.Config{Contracts: canonicalContracts(st.ChainID()), Chain: st.Backend(), Relayer: st}
	} else {
		fc, ok := p.settler.(*facilitator.Client)
		if !ok {
			return nil
		}
		var on bool
		if cfg, on, err = p.delegatedChannels(pc, fc, getenv, metered); err != nil || !on {
			return err
		}
	}
	if err := bc.depositAndRefundLimits(&cfg); err != nil {
		return err
	}
	cfg.Receiver, cfg.WithdrawDelay, cfg.Policy = p.payTo, bc.WithdrawDelay, policy
	cfg.Store, cfg.Logger, cfg.Now = p.chanStore, p.log, now
	svc, err := service.New(cfg)
	if err != nil {
		return fmt.Errorf("payments.batch_settlement: %w", err)
	}
	p.channelSvc = svc
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
	return nil
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
