package service_test

import (
	"context"
	"encoding/json"
	"errors"
	storeredis "github.com/farebox/farebox/store/redis"
	"math/big"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/farebox/farebox/internal/testkit/redistest"
	"github.com/farebox/farebox/x402/channel"
	"github.com/farebox/farebox/x402/channel/service"
	"github.com/farebox/farebox/x402/evm"
	"github.com/farebox/farebox/x402/evm/contracts"
	"github.com/redis/go-redis/v9"
)

// TestBusyAbortAndCorrective: a second request on a channel whose request
// is under way is refused busy (the spec's channel_busy: retry shortly);
// an aborted request charges nothing and its voucher is good again; a
// client that lost an answer gets the corrective 402, resyncs with the
// official client's own recovery and pays again.
func TestBusyAbortAndCorrective(t *testing.T) {
	ctx := withTimeout(t, 4*time.Minute)
	r := newRig(t, ctx)
	key := r.payer(t, ctx, 1_000_000)
	s := r.service(t, service.NewMemoryStore(), nil)
	accept := r.accept(s)
	cl := newClient(t, key, r.a.RPCURL)
	paid(t, ctx, s, cl, accept, r.req, 1000) // the deposit

	cl.write(map[string]any{"op": "pay", "requirements": accept})
	raw := cl.read().Get("payload").Raw
	p := decode(t, raw)
	first, err := s.Begin(ctx, p, r.req, nil)
	if err != nil {
		t.Fatal(err)
	}
	// Two more requests on the channel at once: both refused while the first runs.
	var wg sync.WaitGroup
	errs := make([]error, 2)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = s.Begin(ctx, p, r.req, nil)
		}()
	}
	wg.Wait()
	for _, err := range errs {
		var ce *channel.Error
		if !errors.As(err, &ce) || ce.Reason != channel.ReasonChannelBusy {
			t.Fatalf("concurrent request: %v, want %s", err, channel.ReasonChannelBusy)
		}
	}
	first.Abort(ctx)
	first.Abort(ctx) // idempotent
	if _, err := first.Commit(ctx, big.NewInt(1)); err == nil {
		t.Fatal("an aborted call committed")
	}
	// The same voucher again: nothing was charged for the aborted request.
	again, err := s.Begin(ctx, p, r.req, nil)
	if err != nil {
		t.Fatalf("retrying the aborted voucher: %v", err)
	}
	rc, err := again.Commit(ctx, big.NewInt(2000))
	if err != nil {
		t.Fatal(err)
	}
	if rc.Extra.ChannelState.Charged != "3000" {
		t.Fatalf("charged %s after 1000 + aborted + 2000", rc.Extra.ChannelState.Charged)
	}
	if _, err := again.Commit(ctx, big.NewInt(1)); err == nil {
		t.Fatal("a call committed twice")
	}
	// The client never saw that answer: its next voucher is behind.
	cl.write(map[string]any{"op": "pay", "requirements": accept})
	behind := decode(t, cl.read().Get("payload").Raw)
	_, err = s.Begin(ctx, behind, r.req, nil)
	var me *service.MismatchError
	if !errors.As(err, &me) || me.Refusal.Reason != channel.ReasonCumulativeAmountMismatch || me.State.Charged.Int64() != 3000 {
		t.Fatalf("stale voucher: %v, want the corrective state at 3000", err)
	}
	corrective := map[string]any{"x402Version": 2, "error": me.Refusal.Reason,
		"accepts": []json.RawMessage{channel.Accept(r.req, s.Terms(), me.State)}}
	cl.write(map[string]any{"op": "corrective", "paymentRequired": corrective})
	res := cl.read()
	if !res.Get("recovered").Bool() || res.Get("channel.chargedCumulativeAmount").String() != "3000" {
		t.Fatalf("the official client did not resync: %s", res.Raw)
	}
	rc, _ = paid(t, ctx, s, cl, accept, r.req, 500)
	if rc.Extra.ChannelState.Charged != "3500" {
		t.Fatalf("after the resync: charged %s, want 3500", rc.Extra.ChannelState.Charged)
	}
	// A charge above the ceiling is the caller's bug: refused, nothing charged.
	cl.write(map[string]any{"op": "pay", "requirements": accept})
	call, err := s.Begin(ctx, decode(t, cl.read().Get("payload").Raw), r.req, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := call.Commit(ctx, big.NewInt(2501)); !errors.Is(err, channel.ErrChargeAboveCeiling) {
		t.Fatalf("charge above the ceiling: %v", err)
	}
	res2, err := s.ClaimNow(ctx)
	if err != nil || res2.Claimed.Int64() != 3500 {
		t.Fatalf("claim: %+v %v", res2, err)
	}
	if got := r.usdc(t, ctx, r.receiver); got != 3500 {
		t.Fatalf("receiver holds %d, want 3500", got)
	}
}

// TestWithdrawalMakesClaimDue: the claimer, on a policy with neither
// interval nor a reachable threshold, claims nothing until the payer
// starts a timed withdrawal; then it claims and sweeps at once.
func TestWithdrawalMakesClaimDue(t *testing.T) {
	ctx := withTimeout(t, 4*time.Minute)
	r := newRig(t, ctx)
	key := r.payer(t, ctx, 1_000_000)
	s := r.service(t, service.NewMemoryStore(), func(c *service.Config) {
		c.Policy = channel.ClaimPolicy{Threshold: big.NewInt(1_000_000_000)}
		c.ClaimPoll, c.MaxStaleness = 50*time.Millisecond, 50*time.Millisecond
	})
	runCtx, stop := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { defer close(done); s.RunClaims(runCtx) }()
	defer func() { stop(); <-done }()
	accept := r.accept(s)
	cl := newClient(t, key, r.a.RPCURL)
	var p *channel.Payload
	for _, charge := range []int64{700, 2500, 1} {
		_, p = paid(t, ctx, s, cl, accept, r.req, charge)
	}
	if n := s.Stats().ClaimTxs; n != 0 {
		t.Fatalf("the claimer claimed %d times with nothing due", n)
	}
	// The payer starts a timed withdrawal of what it thinks is unclaimed.
	payer := crypto.PubkeyToAddress(key.PublicKey)
	wei := hexutil.EncodeBig(new(big.Int).Mul(big.NewInt(1), big.NewInt(1e18)))
	if err := r.a.Client.Client().CallContext(ctx, nil, "anvil_setBalance", payer, wei); err != nil {
		t.Fatal(err)
	}
	tx, err := evm.NewTransactor(ctx, r.a.Client, key)
	if err != nil {
		t.Fatal(err)
	}
	cfg := p.Config
	data := contracts.NewBatchSettlement().PackInitiateWithdraw(contracts.X402BatchSettlementChannelConfig{Payer: cfg.Payer,
		PayerAuthorizer: cfg.PayerAuthorizer, Receiver: cfg.Receiver, ReceiverAuthorizer: cfg.ReceiverAuthorizer, Token: cfg.Token,
		WithdrawDelay: new(big.Int).SetUint64(cfg.WithdrawDelay), Salt: cfg.Salt}, big.NewInt(10_000))
	if _, err := tx.Send(ctx, &r.c.Settlement, data, nil); err != nil {
		t.Fatal(err)
	}
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for s.Stats().ClaimTxs == 0 {
		select {
		case <-ctx.Done():
			t.Fatal("no claim after the withdrawal started")
		case <-tick.C:
		}
	}
	if got := r.usdc(t, ctx, r.receiver); got != 3201 {
		t.Fatalf("receiver holds %d, want the 3201 charged", got)
	}
}

// TestRedisStoreSharedByReplicas: two Services on one Redis continue each
// other's channel, refuse each other's concurrent request on it, and one
// claims for both.
func TestRedisStoreSharedByReplicas(t *testing.T) {
	ctx := withTimeout(t, 4*time.Minute)
	r := newRig(t, ctx)
	addr := redistest.Start(t)
	var store *storeredis.Channels
	replica := func() *service.Service {
		rdb := redis.NewClient(&redis.Options{Addr: addr})
		t.Cleanup(func() { rdb.Close() })
		store = storeredis.NewChannels(rdb, "test:")
		return r.service(t, store, nil)
	}
	a, b := replica(), replica()
	key := r.payer(t, ctx, 1_000_000)
	accept := r.accept(a)
	cl := newClient(t, key, r.a.RPCURL)
	paid(t, ctx, a, cl, accept, r.req, 1500) // deposit through a
	paid(t, ctx, b, cl, accept, r.req, 700)  // b continues from Redis
	cl.write(map[string]any{"op": "pay", "requirements": accept})
	raw := cl.read().Get("payload").Raw
	p := decode(t, raw)
	call, err := a.Begin(ctx, p, r.req, nil)
	if err != nil {
		t.Fatal(err)
	}
	var ce *channel.Error
	if _, err := b.Begin(ctx, p, r.req, nil); !errors.As(err, &ce) || ce.Reason != channel.ReasonChannelBusy {
		t.Fatalf("the other replica's concurrent request: %v, want busy", err)
	}
	rc, err := call.Commit(ctx, big.NewInt(2500))
	if err != nil {
		t.Fatal(err)
	}
	cl.receive(accept, p, rc, raw)
	rc, _ = paid(t, ctx, b, cl, accept, r.req, 0)
	if rc.Extra.ChannelState.Charged != "4700" {
		t.Fatalf("charged %s across replicas, want 4700", rc.Extra.ChannelState.Charged)
	}
	res, err := b.ClaimNow(ctx)
	if err != nil || res.Claimed.Int64() != 4700 {
		t.Fatalf("claim: %+v %v", res, err)
	}
	if res, err := a.ClaimNow(ctx); err != nil || res.Channels != 0 {
		t.Fatalf("the other replica claimed again: %+v %v", res, err)
	}
	if got := r.usdc(t, ctx, r.receiver); got != 4700 {
		t.Fatalf("receiver holds %d, want 4700", got)
	}
	// A partial cooperative refund through one replica keeps the record,
	// the rest through the other deletes it.
	payer := crypto.PubkeyToAddress(key.PublicKey)
	before := r.usdc(t, ctx, payer)
	refund := func(s *service.Service, amount any) *channel.Receipt {
		t.Helper()
		cl.write(map[string]any{"op": "refund", "requirements": accept, "amount": amount})
		rc, err := s.Refund(ctx, decode(t, cl.read().Get("refundPayload").Raw), r.req)
		if err != nil {
			t.Fatalf("refund: %v", err)
		}
		cl.write(map[string]any{"receipt": rc})
		if res := cl.read(); !res.Get("settle.success").Bool() {
			t.Fatalf("the client refused the refund receipt: %s", res.Raw)
		}
		return rc
	}
	if rc := refund(a, "1000"); rc.Amount != "1000" {
		t.Fatalf("partial refund receipt: %+v", rc)
	}
	if got := r.usdc(t, ctx, payer); got != before+1000 {
		t.Fatalf("payer holds %d after a 1000 refund, want %d", got, before+1000)
	}
	if rec, err := store.Get(ctx, p.Voucher.ChannelID); err != nil || rec == nil || rec.State.Balance.Int64() != 100_000-1000 {
		t.Fatalf("record after the partial refund: %+v %v", rec, err)
	}
	refund(b, nil)
	if got := r.usdc(t, ctx, payer); got != 1_000_000-4700 {
		t.Fatalf("payer holds %d after the full refund, want %d", got, 1_000_000-4700)
	}
	if rec, err := store.Get(ctx, p.Voucher.ChannelID); err != nil || rec != nil {
		t.Fatalf("record after the full refund: %+v %v", rec, err)
	}
}

// TestTopUp: without an announced minimum the official client deposits
// five times the ceiling, and tops the channel up with a second deposit
// when the next voucher would exceed the balance; the charges before and
// after are claimed in one transaction.
func TestTopUp(t *testing.T) {
	ctx := withTimeout(t, 4*time.Minute)
	r := newRig(t, ctx)
	const funds = 1_000_000
	key := r.payer(t, ctx, funds)
	s := r.service(t, service.NewMemoryStore(), func(c *service.Config) { c.MinDeposit = nil })
	accept := r.accept(s)
	cl := newClient(t, key, r.a.RPCURL)
	var deposits []int
	var deposited int64
	for i := range 7 {
		rc, p := paid(t, ctx, s, cl, accept, r.req, 2500)
		if p.Type == channel.TypeDeposit {
			deposits = append(deposits, i)
			deposited += p.Deposit.Amount.Int64()
			if rc.Extra.ChannelState.Balance != dec(deposited) {
				t.Fatalf("call %d: balance %s after depositing %d in all", i, rc.Extra.ChannelState.Balance, deposited)
			}
		}
	}
	if len(deposits) != 2 || deposits[0] != 0 || deposits[1] != 5 {
		t.Fatalf("deposits at calls %v, want 0 and 5 (a top-up when 5 x 2500 ran out)", deposits)
	}
	if got := r.usdc(t, ctx, crypto.PubkeyToAddress(key.PublicKey)); got != funds-deposited {
		t.Fatalf("payer holds %d, want %d", got, funds-deposited)
	}
	res, err := s.ClaimNow(ctx)
	if err != nil || res.Claimed.Int64() != 7*2500 || len(res.Txs) != 1 {
		t.Fatalf("claim: %+v %v", res, err)
	}
	if got := r.usdc(t, ctx, r.receiver); got != 7*2500 {
		t.Fatalf("receiver holds %d, want %d", got, 7*2500)
	}
}
