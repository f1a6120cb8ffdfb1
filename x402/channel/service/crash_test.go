package service_test

import (
	storebolt "github.com/farebox/farebox/store/bolt"
	"math/big"
	"path/filepath"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/farebox/farebox/x402/channel"
	"github.com/farebox/farebox/x402/channel/service"
)

// TestJournaledDepositFoundAfterCrash: a process journaled and broadcast a
// deposit, then died before answering. The official client, restarted,
// recovers its channel from chain and pays a voucher; the next Service
// reads the chain for the journaled deposit and accepts the voucher.
func TestJournaledDepositFoundAfterCrash(t *testing.T) {
	ctx := withTimeout(t, 4*time.Minute)
	r := newRig(t, ctx)
	const funds = 1_000_000
	key := r.payer(t, ctx, funds)
	path := filepath.Join(t.TempDir(), "channels.db")
	store, err := storebolt.OpenChannels(path)
	if err != nil {
		t.Fatal(err)
	}
	s := r.service(t, store, nil)
	accept := r.accept(s)
	cl := newClient(t, key, r.a.RPCURL)
	p := cl.pay(accept)
	if p.Type != channel.TypeDeposit {
		t.Fatalf("first payment is a %s", p.Type)
	}
	// The dying process: journal, broadcast, nothing more.
	st, err := r.c.Load(ctx, r.a.Client, p.Config, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	data, err := r.c.DepositCalldata(p, nil)
	if err != nil {
		t.Fatal(err)
	}
	tx, err := r.settler.Call(ctx, r.c.Settlement, data, func(h common.Hash) error {
		return store.Put(ctx, &service.Record{State: st, Deposit: &service.PendingTx{Tx: h, Amount: p.Deposit.Amount.String()}}, 0)
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.settler.AwaitCall(ctx, tx); err != nil {
		t.Fatal(err)
	}
	if err := store.Close(); err != nil {
		t.Fatal(err)
	}
	if store, err = storebolt.OpenChannels(path); err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	s = r.service(t, store, nil)
	// The client, restarted too, starts from the chain (its cold start).
	cl = newClient(t, key, r.a.RPCURL)
	rc, p2 := paid(t, ctx, s, cl, accept, r.req, 900)
	if p2.Type != channel.TypeVoucher {
		t.Fatalf("the recovered client paid a %s", p2.Type)
	}
	deposit := p.Deposit.Amount.Int64()
	if rc.Extra.ChannelState.Balance != dec(deposit) || rc.Extra.ChannelState.Charged != "900" {
		t.Fatalf("after the crash: %+v", rc.Extra.ChannelState)
	}
	rec, err := store.Get(ctx, p.Voucher.ChannelID)
	if err != nil || rec.Deposit != nil {
		t.Fatalf("the journaled deposit is still open: %+v %v", rec, err)
	}
	if got := r.usdc(t, ctx, crypto.PubkeyToAddress(key.PublicKey)); got != funds-deposit {
		t.Fatalf("payer holds %d, want one deposit taken", got)
	}
}

// TestJournaledClaimResolvedAfterRestart: a claimer journaled and
// broadcast a claim, then died. The next Service's claimer resolves it
// (mirrors the claimed channel) instead of claiming the same vouchers
// again; the receiver holds exactly the sum, swept once.
func TestJournaledClaimResolvedAfterRestart(t *testing.T) {
	ctx := withTimeout(t, 4*time.Minute)
	r := newRig(t, ctx)
	key := r.payer(t, ctx, 1_000_000)
	store := service.NewMemoryStore() // stands for the durable store both processes share
	s := r.service(t, store, nil)
	accept := r.accept(s)
	cl := newClient(t, key, r.a.RPCURL)
	var sum int64
	for _, charge := range []int64{2400, 13, 1000} {
		paid(t, ctx, s, cl, accept, r.req, charge)
		sum += charge
	}
	recs, err := store.List(ctx)
	if err != nil || len(recs) != 1 {
		t.Fatalf("records: %d %v", len(recs), err)
	}
	st := recs[0].State
	data := channel.ClaimAndSettleCalldata(channel.Claims([]*channel.State{st}), r.receiver, st.Config.Token)
	tx, err := r.settler.Call(ctx, r.c.Settlement, data, func(h common.Hash) error {
		return store.PutClaim(ctx, &service.ClaimRecord{Key: r.receiver.Hex() + "/" + st.Config.Token.Hex(), Tx: h,
			Channels: []string{common.Hash(st.ChannelID).Hex()}, Total: dec(sum)})
	})
	if err != nil {
		t.Fatal(err)
	}
	s = r.service(t, store, nil)
	res, err := s.ClaimNow(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if res.Channels != 0 || len(res.Txs) != 0 {
		t.Fatalf("claimed again after the journaled claim %s: %+v", tx.Hex(), res)
	}
	if got := r.usdc(t, ctx, r.receiver); got != sum {
		t.Fatalf("receiver holds %d, want %d", got, sum)
	}
	if cs, _ := store.Claims(ctx); len(cs) != 0 {
		t.Fatalf("the journaled claim is still open: %+v", cs)
	}
	rec, err := store.Get(ctx, st.ChannelID)
	if err != nil || rec.State.TotalClaimed.Cmp(big.NewInt(sum)) != 0 {
		t.Fatalf("the record does not show the claim: %+v %v", rec.State, err)
	}
	// The channel goes on after the restart.
	rc, _ := paid(t, ctx, s, cl, accept, r.req, 5)
	if rc.Extra.ChannelState.Charged != dec(sum+5) || rc.Extra.ChannelState.TotalClaimed != dec(sum) {
		t.Fatalf("after the claim: %+v", rc.Extra.ChannelState)
	}
}
