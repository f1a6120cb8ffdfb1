package service_test

import (
	"context"
	"math/big"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/farebox/farebox/x402/channel"
	"github.com/farebox/farebox/x402/channel/service"
	"github.com/farebox/farebox/x402/evm"
	"github.com/farebox/farebox/x402/evm/contracts"
)

// TestNextClaimNamesTheWithdrawalDeadline: after a claim, the next one is
// the interval's, for what was charged since. Once a payer starts a
// withdrawal on chain, the claimer sees it and the next claim moves to
// claim_withdraw_lead before the withdrawal is finalizable, for every
// channel at once; nothing is claimed before then.
func TestNextClaimNamesTheWithdrawalDeadline(t *testing.T) {
	ctx := withTimeout(t, 5*time.Minute)
	r := newRig(t, ctx)
	store := service.NewMemoryStore()
	const lead = 5 * time.Minute
	s := r.service(t, store, func(c *service.Config) {
		c.Policy = channel.ClaimPolicy{Interval: time.Hour, WithdrawLead: lead}
		c.ClaimPoll, c.MaxStaleness = 50*time.Millisecond, 50*time.Millisecond
	})
	a, clA, keyA := honestChannel(t, ctx, r, s)
	_, clB, _ := honestChannel(t, ctx, r, s)
	if res, err := s.ClaimNow(ctx); err != nil || res.Channels != 2 {
		t.Fatalf("first claim: %+v %v", res, err)
	}
	last := s.LastClaim()
	paid(t, ctx, s, clA, r.accept(s), r.req, 2000)
	paid(t, ctx, s, clB, r.accept(s), r.req, 2300)
	nc, err := s.NextClaim(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if nc.Reason != channel.ClaimInterval || !nc.At.Equal(last.Add(time.Hour)) || nc.Unclaimed.Int64() != 4300 || nc.Channels != 2 ||
		len(nc.Withdrawals) != 0 || len(nc.Left) != 0 {
		t.Fatalf("after the claim: %+v, want the interval's claim of 4300 over 2 channels an hour after the last", nc)
	}

	// Payer A starts a withdrawal.
	cfgA := recordConfig(t, ctx, store, a)
	payerA := crypto.PubkeyToAddress(keyA.PublicKey)
	if err := r.a.Client.Client().CallContext(ctx, nil, "anvil_setBalance", payerA, hexutil.EncodeBig(big.NewInt(1e18))); err != nil {
		t.Fatal(err)
	}
	tx, err := evm.NewTransactor(ctx, r.a.Client, keyA)
	if err != nil {
		t.Fatal(err)
	}
	bind := contracts.X402BatchSettlementChannelConfig{Payer: cfgA.Payer, PayerAuthorizer: cfgA.PayerAuthorizer, Receiver: cfgA.Receiver,
		ReceiverAuthorizer: cfgA.ReceiverAuthorizer, Token: cfgA.Token, WithdrawDelay: new(big.Int).SetUint64(cfgA.WithdrawDelay), Salt: cfgA.Salt}
	balance, claimed := r.onchain(t, ctx, a)
	if _, err := tx.Send(ctx, &r.c.Settlement, contracts.NewBatchSettlement().PackInitiateWithdraw(bind, big.NewInt(balance-claimed)), nil); err != nil {
		t.Fatal(err)
	}
	sent := r.relayerTxs(t, ctx)
	runCtx, stop := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { defer close(done); s.RunClaims(runCtx) }()
	defer func() { stop(); <-done }()
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(20 * time.Millisecond) {
		if nc, err = s.NextClaim(ctx); err != nil {
			t.Fatal(err)
		}
		if nc.Reason == channel.ClaimWithdrawal || time.Now().After(deadline) {
			break
		}
	}
	rec, err := store.Get(ctx, a)
	if err != nil || rec.State.WithdrawRequestedAt == 0 {
		t.Fatalf("the claimer did not see the withdrawal: %+v %v", rec, err)
	}
	finalizable := time.Unix(int64(rec.State.WithdrawRequestedAt+cfgA.WithdrawDelay), 0)
	w, ok := nc.Withdrawals[a]
	if nc.Reason != channel.ClaimWithdrawal || !ok || !w.Finalizable.Equal(finalizable) || !w.ClaimDue.Equal(finalizable.Add(-lead)) ||
		!nc.At.Equal(w.ClaimDue) || nc.Unclaimed.Int64() != 4300 || nc.Channels != 2 || len(nc.Withdrawals) != 1 {
		t.Fatalf("with a withdrawal started: %+v, want the claim due %v before it is finalizable at %v", nc, lead, finalizable)
	}
	if got := r.relayerTxs(t, ctx); got != sent || s.Stats().ClaimTxs != 1 {
		t.Errorf("the claimer sent %d transactions (%d claims) before the withdrawal's claim is due", got-sent, s.Stats().ClaimTxs)
	}
}
