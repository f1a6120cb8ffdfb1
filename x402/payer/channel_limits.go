package payer

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"time"

	"github.com/farebox/farebox/x402"
	"github.com/farebox/farebox/x402/channel"
	"github.com/farebox/farebox/x402/eip712"
)

// oneChannel refuses to open a second channel with a seller on a network
// while another one still holds the payer's money: a seller that names a
// new receiverAuthorizer (or withdraw delay) on every call would
// otherwise collect a deposit per call. The chain (WithChain) may show the
// older channel empty (nothing of the payer's left in it), which lifts it.
func (t *Transport) oneChannel(ctx context.Context, b *batchBuy, rec *ChannelRecord) error {
	if rec.Balance.Sign() != 0 || rec.Charged.Sign() != 0 || rec.Deposit != nil {
		return nil // this channel is already open: topping it up is no second one
	}
	recs, err := t.store.List(b.key)
	if err != nil {
		return err
	}
	for _, r := range recs {
		if r.ChannelID == b.id || (r.Balance.Sign() == 0 && r.Deposit == nil) {
			continue
		}
		if t.chain != nil && r.Deposit == nil {
			o, err := b.contracts.ReadOnchain(ctx, chainCaller{t.chain}, r.ChannelID)
			if err == nil && o.Balance.Cmp(o.TotalClaimed) <= 0 {
				continue // the chain shows nothing of the payer's left in it
			}
		}
		return fmt.Errorf("payer: the seller %s already has an open channel %s with this payer on %s; its terms changed (receiverAuthorizer %s, withdrawDelay %ds), which would open a second channel: no deposit signed (the chain, with --rpc-url, can show the old one empty)",
			b.key.Receiver.Hex(), r.ChannelID.Hex(), b.key.Network, b.cfg.ReceiverAuthorizer.Hex(), b.cfg.WithdrawDelay)
	}
	return nil
}

// spendVoucher counts what a voucher lets the receiver claim beyond what
// the channel's deposits (landed or pending) and earlier vouchers already
// counted: normally nothing, since a deposit is signed first.
func (t *Transport) spendVoucher(ctx context.Context, b *batchBuy, rec *ChannelRecord, req *x402.Requirement) error {
	covered := new(big.Int).Set(rec.Balance)
	if rec.Deposit != nil {
		covered.Add(covered, rec.Deposit.Amount)
	}
	if rec.Signed.Cmp(covered) > 0 {
		covered.Set(rec.Signed)
	}
	over := new(big.Int).Sub(b.max, covered)
	if over.Sign() <= 0 {
		return nil
	}
	holds, err := t.spend(ctx, req.Network, over, "a voucher (its increment beyond the channel's deposits)")
	if err != nil {
		return err
	}
	b.holds = append(b.holds, holds...)
	return nil
}

// depositUnsettled reports whether the chain proves deposit d expired
// without landing: then it can never move money.
func (t *Transport) depositUnsettled(ctx context.Context, b *batchBuy, d *PendingDeposit) bool {
	head, err := t.chain.HeaderByNumber(ctx, nil)
	if err != nil || head.Time <= uint64(d.Expires) {
		return false
	}
	used, known := t.depositUsed(ctx, b, d)
	return known && !used
}

// batchEnvelope saves the record (before the payment is sent: a restart
// re-presents the deposit) and renders the payment.
func (t *Transport) batchEnvelope(c candidate, pr *paymentRequired, b *batchBuy, rec *ChannelRecord) (*purchase, error) {
	if err := t.store.Put(b.key, rec); err != nil {
		return nil, err
	}
	payload, err := t.batchPayload(b, c.req)
	if err != nil {
		return nil, err
	}
	var ext map[string]json.RawMessage
	if b.deposit != nil && len(b.deposit.Permit) > 0 {
		ext = map[string]json.RawMessage{eip712.GasSponsoringKey: b.deposit.Permit}
	}
	return t.envelope(pr, c, payload, ext)
}

// depositAmount is what a new deposit of b brings: max(needed, minDeposit,
// multiplier x ceiling), cut to the deposit bound. The caller's
// AuthorizeDeposit hook judges it first (it names its own limits); then a
// withdraw delay over the max, a minDeposit or a needed amount over the
// deposit bound refuse it, naming the limit and the seller's value.
func (t *Transport) depositAmount(ctx context.Context, c candidate, b *batchBuy, needed *big.Int) (*big.Int, error) {
	target := new(big.Int).Mul(b.ceiling, big.NewInt(t.multiplier))
	minDeposit := atomic(c.o.extra.Get("minDeposit").String())
	if m := minDeposit; m != nil && m.Cmp(target) > 0 {
		target = m // never below the multiplier: a deposit per call costs gas
	}
	amount := target
	if needed.Cmp(amount) > 0 {
		amount = needed
	}
	net, bound := c.req.Network, t.depositBound()
	if bound != nil && t.inUSDC(net, amount).Cmp(bound) > 0 {
		amount = t.fromUSDC(net, bound)
	}
	if h := hooksFrom(ctx); h != nil && h.AuthorizeDeposit != nil {
		if err := h.AuthorizeDeposit(&DepositOffer{Requirement: c.req, Amount: new(big.Int).Set(amount),
			MinDeposit: minDeposit, WithdrawDelay: b.cfg.WithdrawDelay}); err != nil {
			return nil, err
		}
	}
	if delay := time.Duration(b.cfg.WithdrawDelay) * time.Second; t.maxDelay > 0 && delay > t.maxDelay {
		return nil, fmt.Errorf("payer: the seller's withdrawDelay of %s is over the max withdraw delay of %s: no deposit signed", delay, t.maxDelay)
	}
	if bound == nil {
		return amount, nil
	}
	if m := minDeposit; m != nil && t.inUSDC(net, m).Cmp(bound) > 0 {
		return nil, fmt.Errorf("payer: the seller's minDeposit of %s USDC is over the max deposit of %s USDC: no deposit signed",
			x402.FormatUSDC(t.inUSDC(net, m)), x402.FormatUSDC(bound))
	}
	if t.inUSDC(net, needed).Cmp(bound) > 0 {
		return nil, fmt.Errorf("payer: a deposit of %s USDC is over the max deposit of %s USDC",
			x402.FormatUSDC(t.inUSDC(net, needed)), x402.FormatUSDC(bound))
	}
	return amount, nil
}

// channelTermsAcceptable refuses a batch-settlement offer whose channel
// terms no deposit of this transport could meet (a withdraw delay over the
// max, a minDeposit over the deposit bound) before the caller's Authorize
// hook runs: a caller that commits to the purchase there (a reseller
// starting its client's transfer) must not commit to one that is refused
// right after. depositAmount checks the same when it signs.
func (t *Transport) channelTermsAcceptable(c candidate) error {
	if c.req.Scheme != channel.Scheme {
		return nil
	}
	bound := t.depositBound()
	if m := atomic(c.o.extra.Get("minDeposit").String()); m != nil && bound != nil && t.inUSDC(c.req.Network, m).Cmp(bound) > 0 && !t.holdsFunds(c) {
		return fmt.Errorf("%w: the seller's minDeposit of %s USDC is over the max deposit of %s USDC: no deposit signed",
			ErrDepositTooHigh, x402.FormatUSDC(t.inUSDC(c.req.Network, m)), x402.FormatUSDC(bound))
	}
	if w := c.o.extra.Get("withdrawDelay"); w.Exists() && t.maxDelay > 0 {
		if delay := time.Duration(w.Uint()) * time.Second; delay > t.maxDelay {
			return fmt.Errorf("%w: the seller's withdrawDelay of %s is over the max withdraw delay of %s: no deposit signed", ErrWithdrawDelayTooLong, delay, t.maxDelay)
		}
	}
	return nil
}

// ErrWithdrawDelayTooLong and ErrDepositTooHigh say which channel term of
// a seller's offer was over this transport's limits.
var (
	ErrWithdrawDelayTooLong = errors.New("payer: withdraw delay over the limit")
	ErrDepositTooHigh       = errors.New("payer: deposit over the limit")
)

// holdsFunds reports whether the payer holds a channel with the offer's
// seller that still has a balance (or a deposit on its way): its next
// voucher may need no deposit, so a minDeposit over the bound is judged
// only when one is needed.
func (t *Transport) holdsFunds(c candidate) bool {
	b, err := t.channelOf(c.o, c.req)
	if err != nil {
		return false
	}
	recs, err := t.store.List(b.key)
	if err != nil {
		return false
	}
	for _, r := range recs {
		if (r.Balance != nil && r.Balance.Sign() > 0) || r.Deposit != nil {
			return true
		}
	}
	return false
}
