package payer

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"math/big"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/farebox/farebox/x402"
	"github.com/farebox/farebox/x402/channel"
	"github.com/farebox/farebox/x402/eip712"
	"github.com/tidwall/gjson"
)

// DefaultDepositMultiplier is how many ceilings a deposit holds when the
// server announces no minDeposit (as @x402/evm's client), before the spend
// cap bounds it.
const DefaultDepositMultiplier = 5

// WithChannelStore keeps batch-settlement channels in s (default: in
// memory, forgotten when the process ends).
func WithChannelStore(s ChannelStore) Option { return func(t *Transport) { t.store = s } }

// WithDepositMultiplier sets how many ceilings a deposit holds when the
// server announces no minDeposit (default 5); the spend cap bounds it.
func WithDepositMultiplier(n int64) Option { return func(t *Transport) { t.multiplier = n } }

// WithMaxDeposit bounds batch-settlement deposits by max instead of by the
// spend cap (@x402/evm allows 5 times its per-payment cap); the ceiling of
// each call stays bounded by the spend cap.
func WithMaxDeposit(max *big.Int) Option { return func(t *Transport) { t.maxDeposit = max } }

// WithChannelSalt sets the salt of the payer's channels. By default each
// new channel gets a random salt, kept in the channel store: with a fixed
// salt (@x402/evm uses zero) anyone can compute a payer's channel id from
// its address and read the channel on chain.
func WithChannelSalt(salt [32]byte) Option {
	return func(t *Transport) { t.salt, t.saltSet = salt, true }
}

// batchBuy is what a batch-settlement purchase signed.
type batchBuy struct {
	key       ChannelKey
	id        common.Hash
	cfg       channel.Config
	contracts *channel.Contracts
	base      *big.Int // the charged amount the voucher builds on
	ceiling   *big.Int
	max       *big.Int        // the voucher's maxClaimableAmount
	deposit   *PendingDeposit // nil for a voucher-only payment
	refund    bool
	terms     *terms  // the offer signed, kept for a preemptive payment
	holds     []*hold // what its signatures count against the budgets
}

// channelOf builds the payer's channel config for a batch-settlement offer
// (spec: payTo, asset, extra.receiverAuthorizer and extra.withdrawDelay
// from the server; payer, payerAuthorizer and salt its own).
func (t *Transport) channelOf(o *offer, req *x402.Requirement) (*batchBuy, error) {
	ra := o.extra.Get("receiverAuthorizer").String()
	if !common.IsHexAddress(ra) || common.HexToAddress(ra) == (common.Address{}) {
		return nil, errors.New("payer: batch-settlement offer without a receiverAuthorizer")
	}
	delay := uint64(channel.MinWithdrawDelay)
	if w := o.extra.Get("withdrawDelay"); w.Exists() {
		delay = w.Uint()
	}
	if delay < channel.MinWithdrawDelay || delay > channel.MaxWithdrawDelay {
		return nil, fmt.Errorf("payer: batch-settlement withdrawDelay %d is out of range", delay)
	}
	if req.Network.Name == "" || req.Network.Version == "" {
		return nil, errors.New("payer: batch-settlement needs the token's EIP-712 name and version")
	}
	d := t.deployment(req.Network.ChainID)
	c := channel.NewContracts(req.Network.ChainID, d.BatchSettlement, d.ERC3009DepositCollector, d.Permit2DepositCollector, d.Permit2)
	cfg := channel.Config{Payer: t.signer.addr, PayerAuthorizer: t.signer.addr, Receiver: req.PayTo,
		ReceiverAuthorizer: common.HexToAddress(ra), Token: req.Network.Asset, WithdrawDelay: delay, Salt: t.salt}
	return &batchBuy{key: ChannelKey{Payer: t.signer.addr, Network: req.Network.CAIP2, Receiver: req.PayTo},
		id: c.ChannelID(&cfg), cfg: cfg, contracts: c, ceiling: req.Amount}, nil
}

// record returns the channel's record, recovered from chain when the
// store has none (spec cold start: charged = totalClaimed), else empty.
func (t *Transport) record(ctx context.Context, b *batchBuy) (*ChannelRecord, error) {
	rec, err := t.store.Get(b.key, b.id)
	if err != nil {
		return nil, err
	}
	mark := t.chainMark(ctx, b)
	if rec != nil && rec.Chain.differs(mark) {
		if err := t.setAside(b, rec, "its chain is gone: another genesis or deployment"); err != nil {
			return nil, err
		}
		rec = nil
	}
	if rec != nil {
		if rec.Chain == nil || rec.Chain.Genesis == "" {
			rec.Chain = mark // learnt now: saved with the payment
		}
		return rec, nil
	}
	rec = &ChannelRecord{ChannelID: b.id, Salt: b.cfg.Salt, Balance: new(big.Int), Charged: new(big.Int), Signed: new(big.Int), Chain: mark}
	if t.chain != nil {
		o, err := b.contracts.ReadOnchain(ctx, chainCaller{t.chain}, b.id)
		if err != nil {
			return nil, err
		}
		rec.Balance.Set(o.Balance)
		rec.Charged.Set(o.TotalClaimed)
		rec.Signed.Set(o.TotalClaimed)
	}
	return rec, nil
}

// signBatch signs a deposit or a voucher for c under the channel's lock,
// which the purchase holds until its answer is read.
func (t *Transport) signBatch(ctx context.Context, c candidate, pr *paymentRequired) (*purchase, error) {
	b, err := t.channelOf(c.o, c.req)
	if err != nil {
		return nil, err
	}
	unlock, err := t.store.Lock(ctx, b.key)
	if err != nil {
		return nil, err
	}
	if err := t.bind(b); err != nil {
		unlock()
		return nil, err
	}
	b.terms = termsOf(pr, c.o)
	p, err := t.signBatchLocked(ctx, c, pr, b)
	if err != nil {
		unlock()
		return nil, err
	}
	p.unlock = unlock
	return p, nil
}

func (t *Transport) signBatchLocked(ctx context.Context, c candidate, pr *paymentRequired, b *batchBuy) (*purchase, error) {
	rec, err := t.record(ctx, b)
	if err != nil {
		return nil, err
	}
	t.settlePendingDeposit(ctx, b, rec)
	b.base = new(big.Int).Set(rec.Charged)
	b.max = new(big.Int).Add(rec.Charged, b.ceiling)
	if rec.Balance.Sign() == 0 || b.max.Cmp(rec.Balance) > 0 {
		if err := t.oneChannel(ctx, b, rec); err != nil {
			return nil, err
		}
		if b.deposit, err = t.depositFor(ctx, c, pr, b, rec); err != nil {
			return nil, err
		}
		rec.Deposit = b.deposit
	}
	if err := t.spendVoucher(ctx, b, rec, c.req); err != nil {
		release(b.holds)
		return nil, err
	}
	if b.max.Cmp(rec.Signed) > 0 {
		rec.Signed.Set(b.max)
	}
	pu, err := t.batchEnvelope(c, pr, b, rec)
	if err != nil {
		release(b.holds)
		return nil, err
	}
	pu.batch, pu.holds = b, b.holds
	pu.payment.Authorization.ValidBefore = big.NewInt(time.Now().Add(forgetAfter).Unix())
	if b.deposit != nil {
		pu.payment.Authorization.ValidBefore = big.NewInt(b.deposit.Expires)
	}
	return pu, nil
}

// settlePendingDeposit resolves a deposit sent earlier with an unknown
// outcome: credited when the chain shows its authorization used, dropped
// once it expired unused (or expired with no chain to ask: if it did land,
// the balance is merely underestimated and the money stays refundable).
func (t *Transport) settlePendingDeposit(ctx context.Context, b *batchBuy, rec *ChannelRecord) {
	d := rec.Deposit
	if d == nil {
		return
	}
	used, known := t.depositUsed(ctx, b, d)
	switch {
	case known && used:
		rec.Balance.Add(rec.Balance, d.Amount)
		rec.Deposit = nil
	case time.Now().Add(x402.MinValidity).Unix() >= d.Expires:
		rec.Deposit = nil
	}
}

// depositUsed asks the chain whether d's authorization was consumed.
func (t *Transport) depositUsed(ctx context.Context, b *batchBuy, d *PendingDeposit) (used, known bool) {
	if t.chain == nil {
		return false, false
	}
	if d.Method == channel.MethodPermit2 {
		return permit2NonceUsed(ctx, t.chain, b.contracts.Permit2, b.cfg.Payer, new(big.Int).SetBytes(d.Nonce))
	}
	var salt [32]byte
	copy(salt[:], d.Nonce)
	return authorizationUsed(ctx, t.chain, b.cfg.Token, b.cfg.Payer, channel.ERC3009Nonce(b.id, salt))
}

// depositFor returns the deposit that lets the voucher b.max through: the
// pending one when it still covers it, else a new authorization of
// max(needed, minDeposit, multiplier x ceiling), at most the spend cap.
func (t *Transport) depositFor(ctx context.Context, c candidate, pr *paymentRequired, b *batchBuy, rec *ChannelRecord) (*PendingDeposit, error) {
	needed := new(big.Int).Sub(b.max, rec.Balance)
	method := c.o.extra.Get("assetTransferMethod").String()
	if method == "" {
		method = channel.MethodEIP3009
	}
	if method != channel.MethodEIP3009 && method != channel.MethodPermit2 {
		return nil, fmt.Errorf("payer: batch-settlement assetTransferMethod %q is not supported", method)
	}
	if d := rec.Deposit; d != nil && d.Method == method && d.Amount.Cmp(needed) >= 0 &&
		time.Now().Add(2*x402.MinValidity).Unix() < d.Expires {
		return d, nil // the same authorization again: at most one of them can land
	}
	amount, err := t.depositAmount(ctx, c, b, needed)
	if err != nil {
		return nil, err // another offer of the 402 may still be acceptable
	}
	now := t.signer.now()
	d := &PendingDeposit{Method: method, Amount: new(big.Int).Set(amount), Expires: now.Unix() + c.req.MaxTimeoutSeconds,
		Nonce: make([]byte, 32)}
	if _, err := rand.Read(d.Nonce); err != nil {
		return nil, err
	}
	var digest [32]byte
	if method == channel.MethodEIP3009 {
		var salt [32]byte
		copy(salt[:], d.Nonce)
		digest = eip712.ReceiveDigest(c.req.Network, &x402.Authorization{From: b.cfg.Payer, To: b.contracts.ERC3009Collector,
			Value: d.Amount, ValidAfter: new(big.Int), ValidBefore: big.NewInt(d.Expires), Nonce: channel.ERC3009Nonce(b.id, salt)})
	} else {
		digest = b.contracts.Permit2DepositDigest(b.permit2(d), b.id)
		if _, ok := pr.extensions[eip712.GasSponsoringKey]; ok {
			permit, err := t.gasSponsoring(ctx, c.req, b.contracts.Permit2, d.Amount, big.NewInt(d.Expires))
			if err != nil {
				return nil, err
			}
			d.Permit = permit
		}
	}
	holds, err := t.spend(ctx, c.req.Network, d.Amount, "a channel deposit")
	if err != nil {
		return nil, err
	}
	sig, err := t.signer.sign(digest)
	if err != nil {
		release(holds)
		return nil, err
	}
	d.Signature = sig
	b.holds = append(b.holds, holds...)
	if t.chain != nil {
		provable(holds, func(ctx context.Context) (*big.Int, bool) { return nil, t.depositUnsettled(ctx, b, d) })
	}
	return d, nil
}

// permit2 is the Permit2 transfer a Permit2 deposit signs.
func (b *batchBuy) permit2(d *PendingDeposit) *eip712.PermitWitnessTransferFrom {
	return &eip712.PermitWitnessTransferFrom{Token: b.cfg.Token, Amount: d.Amount, Spender: b.contracts.Permit2Collector,
		Nonce: new(big.Int).SetBytes(d.Nonce), Deadline: big.NewInt(d.Expires)}
}

type voucherWire struct {
	ChannelID          common.Hash   `json:"channelId"`
	MaxClaimableAmount string        `json:"maxClaimableAmount"`
	Signature          hexutil.Bytes `json:"signature"`
}

// batchPayload signs the voucher and renders the payment's `payload`.
func (t *Transport) batchPayload(b *batchBuy, req *x402.Requirement) (map[string]any, error) {
	sig, err := t.signer.sign(b.contracts.VoucherDigest(b.id, b.max))
	if err != nil {
		return nil, err
	}
	out := map[string]any{"type": channel.TypeVoucher, "channelConfig": b.cfg,
		"voucher": voucherWire{ChannelID: b.id, MaxClaimableAmount: b.max.String(), Signature: sig}}
	if b.refund {
		out["type"] = channel.TypeRefund
	}
	d := b.deposit
	if d == nil {
		return out, nil
	}
	out["type"] = channel.TypeDeposit
	auth := map[string]any{}
	if d.Method == channel.MethodEIP3009 {
		auth["erc3009Authorization"] = map[string]any{"validAfter": "0", "validBefore": fmt.Sprint(d.Expires),
			"salt": common.BytesToHash(d.Nonce).Hex(), "signature": d.Signature}
	} else {
		p := b.permit2(d)
		auth["permit2Authorization"] = map[string]any{"from": b.cfg.Payer.Hex(),
			"permitted": map[string]string{"token": p.Token.Hex(), "amount": p.Amount.String()},
			"spender":   p.Spender.Hex(), "nonce": p.Nonce.String(), "deadline": p.Deadline.String(),
			"witness": map[string]any{"channelId": b.id}, "signature": d.Signature}
	}
	out["deposit"] = map[string]any{"amount": d.Amount.String(), "authorization": auth}
	return out, nil
}

// batchAnswered applies a paid answer to the channel record (spec, client
// verification rules): a deposit that was answered landed; the charge
// counts when it is at most the ceiling and agrees with the server's
// chargedCumulativeAmount, and only on the record the voucher built on.
func (t *Transport) batchAnswered(ctx context.Context, p *purchase, receipt gjson.Result) *Settlement {
	b := p.batch
	s := &Settlement{Scheme: channel.Scheme, Network: b.key.Network, Payer: b.cfg.Payer.Hex(), Ceiling: b.ceiling,
		ChannelID: b.id, Transaction: receipt.Get("transaction").String()}
	if b.deposit != nil {
		s.Deposited = b.deposit.Amount // answered: the deposit landed
	}
	rec, err := t.store.Get(b.key, b.id)
	if err != nil || rec == nil {
		return s
	}
	credit(rec, b)
	if receipt.Get("success").Bool() {
		charged := big.NewInt(0)
		if c := receipt.Get("extra.chargedAmount"); c.Exists() {
			charged = atomic(c.String())
		}
		next := new(big.Int)
		if charged != nil {
			next.Add(b.base, charged)
		}
		cum := receipt.Get("extra.channelState.chargedCumulativeAmount")
		if charged != nil && charged.Cmp(b.ceiling) <= 0 && rec.Charged.Cmp(b.base) == 0 &&
			(!cum.Exists() || cum.String() == next.String()) {
			rec.Charged = next
			s.Charged = charged
			t.learn(p) // the next call here can pay without a 402
		}
	}
	if err := t.store.Put(b.key, rec); err != nil && t.onRefusal != nil {
		t.onRefusal(fmt.Errorf("payer: saving channel %s: %w", b.id.Hex(), err))
	}
	return s
}

// batchRefused handles a 402 to a batch-settlement payment and reports
// whether a new payment should be built from it: after a corrective 402
// the record is resynchronised from the server's signed voucher (verified)
// or the chain; after a balance refusal the balance is re-read (or assumed
// spent, so the next payment deposits).
func (t *Transport) batchRefused(ctx context.Context, p *purchase, resp402 *paymentRequired, reason string) bool {
	b := p.batch
	unlock, err := t.store.Lock(ctx, b.key)
	if err != nil {
		return false
	}
	defer unlock()
	rec, err := t.store.Get(b.key, b.id)
	if err != nil || rec == nil {
		return false
	}
	if b.deposit != nil && rec.Deposit != nil && string(rec.Deposit.Nonce) == string(b.deposit.Nonce) &&
		reason != channel.ReasonWaitForReceiptFailed && reason != "settlement_pending" &&
		reason != channel.ReasonChannelBusy && reason != channel.ReasonCumulativeAmountMismatch &&
		reason != channel.ReasonCumulativeBelowClaimed {
		rec.Deposit = nil // refused before it could land
	}
	retry := false
	switch reason {
	case channel.ReasonCumulativeAmountMismatch, channel.ReasonCumulativeBelowClaimed:
		retry = resp402 != nil && t.resync(ctx, b, rec, resp402)
		if !retry && t.chain == nil && channelGone(b, rec, resp402) {
			return t.setAside(b, rec, "the server's chain holds no such channel") == nil
		}
	case channel.ReasonCumulativeExceedsBalance, channel.ReasonChannelNotFound:
		if b.deposit == nil {
			retry = true
			rec.Balance.Set(rec.Charged) // the next payment deposits
			if t.chain != nil {
				if o, err := b.contracts.ReadOnchain(ctx, chainCaller{t.chain}, b.id); err == nil {
					rec.Balance.Set(o.Balance)
				}
			}
		}
	}
	if err := t.store.Put(b.key, rec); err != nil {
		return false
	}
	return retry
}

// resync adopts the server's charged amount from a corrective 402 once
// the voucher it holds is verified as ours (spec), else the chain's
// totalClaimed; false when neither is available.
func (t *Transport) resync(ctx context.Context, b *batchBuy, rec *ChannelRecord, pr *paymentRequired) bool {
	var o *offer
	for i := range pr.offers {
		if pr.offers[i].Scheme == channel.Scheme && common.HexToAddress(pr.offers[i].PayTo) == b.cfg.Receiver {
			o = &pr.offers[i]
			break
		}
	}
	var onchain *channel.Onchain
	if t.chain != nil {
		if oc, err := b.contracts.ReadOnchain(ctx, chainCaller{t.chain}, b.id); err == nil {
			onchain = &oc
		}
	}
	if o != nil {
		cs, vs := o.extra.Get("channelState"), o.extra.Get("voucherState")
		charged, signed := atomic(cs.Get("chargedCumulativeAmount").String()), atomic(vs.Get("signedMaxClaimable").String())
		sig, err := hexutil.Decode(vs.Get("signature").String())
		if charged != nil && signed != nil && err == nil && charged.Cmp(signed) <= 0 {
			who, err := eip712.Recover(b.contracts.VoucherDigest(b.id, signed), sig)
			if err != nil || who != b.cfg.PayerAuthorizer {
				return false // not our voucher: nothing to adopt
			}
			balance := atomic(cs.Get("balance").String())
			if onchain != nil {
				if charged.Cmp(onchain.TotalClaimed) < 0 {
					return false
				}
				balance = onchain.Balance
			}
			rec.Charged.Set(charged)
			if balance != nil {
				rec.Balance.Set(balance)
			}
			if signed.Cmp(rec.Signed) > 0 {
				rec.Signed.Set(signed)
			}
			return true
		}
	}
	if onchain == nil {
		return false
	}
	rec.Charged.Set(onchain.TotalClaimed)
	rec.Balance.Set(onchain.Balance)
	return true
}

// credit adds a deposit that was answered to the record, once.
func credit(rec *ChannelRecord, b *batchBuy) {
	if b.deposit != nil && rec.Deposit != nil && string(rec.Deposit.Nonce) == string(b.deposit.Nonce) {
		rec.Balance.Add(rec.Balance, b.deposit.Amount)
		rec.Deposit = nil
	}
}

// creditDeposit records that an answered deposit landed, before the
// answer's charge is known (a stream's receipt comes at its end); the
// caller holds the channel's lock.
func (t *Transport) creditDeposit(p *purchase) {
	b := p.batch
	if b == nil || b.deposit == nil {
		return
	}
	rec, err := t.store.Get(b.key, b.id)
	if err != nil || rec == nil {
		return
	}
	credit(rec, b)
	if err := t.store.Put(b.key, rec); err != nil && t.onRefusal != nil {
		t.onRefusal(fmt.Errorf("payer: saving channel %s: %w", b.id.Hex(), err))
	}
}

// depositBound is the most one deposit may be: WithMaxDeposit, else the
// spend cap; nil for no bound.
func (t *Transport) depositBound() *big.Int {
	if t.maxDeposit != nil {
		return t.maxDeposit
	}
	return t.cap
}
