package service_test

import (
	storebolt "github.com/farebox/farebox/store/bolt"
	"path/filepath"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/farebox/farebox/internal/testkit/chaintest"
	"github.com/farebox/farebox/x402/channel"
	"github.com/farebox/farebox/x402/channel/service"
)

// TestTwelveCallsOneDeposit is the proof on anvil mining every
// 2 s: twelve requests paid by the official client make one deposit on
// chain and eleven voucher-only answers with varying charges; the service
// restarts (a new Service on the reopened bbolt file it shares with the
// settlement journal) between vouchers and loses nothing; the claim sweeps
// exactly the sum charged to the receiver; a cooperative refund returns
// the rest to the payer.
func TestTwelveCallsOneDeposit(t *testing.T) {
	ctx := withTimeout(t, 5*time.Minute)
	r := newRig(t, ctx, chaintest.BlockTime(2*time.Second))
	const funds = 1_000_000
	key := r.payer(t, ctx, funds)
	payer := crypto.PubkeyToAddress(key.PublicKey)
	dir := t.TempDir()
	open := func() (*storebolt.Journal, *service.Service) {
		j, err := storebolt.OpenJournal(dir, 0)
		if err != nil {
			t.Fatal(err)
		}
		store, err := storebolt.NewChannels(j.DB())
		if err != nil {
			t.Fatal(err)
		}
		return j, r.service(t, store, nil)
	}
	j, s := open()
	accept := r.accept(s)
	cl := newClient(t, key, r.a.RPCURL)
	charges := []int64{1999, 2500, 0, 731, 1, 2499, 1200, 2500, 17, 880, 2048, 333}
	var sum int64
	var deposits int
	var id [32]byte
	for i, charge := range charges {
		if i == 6 {
			// Restart: the journal file is closed and opened again, and a new
			// Service continues the channel from it.
			if err := j.Close(); err != nil {
				t.Fatal(err)
			}
			j, s = open()
			if filepath.Base(j.Path()) != storebolt.FileName {
				t.Fatalf("the store is not in the journal's file: %s", j.Path())
			}
		}
		rc, p := paid(t, ctx, s, cl, accept, r.req, charge)
		sum += charge
		id = p.Voucher.ChannelID
		if rc.Extra.ChargedAmount != dec(charge) || rc.Extra.ChannelState.Charged != dec(sum) {
			t.Fatalf("call %d: receipt charged %s (cumulative %s), want %d (%d)", i, rc.Extra.ChargedAmount, rc.Extra.ChannelState.Charged, charge, sum)
		}
		if p.Type == channel.TypeDeposit {
			deposits++
			if rc.Transaction == "" || rc.Amount != p.Deposit.Amount.String() {
				t.Fatalf("deposit receipt without its transaction: %+v", rc)
			}
		} else if rc.Transaction != "" || rc.Amount != "" {
			t.Fatalf("voucher receipt %d carries a transaction: %+v", i, rc)
		}
	}
	defer j.Close()
	if deposits != 1 {
		t.Fatalf("%d deposits, want 1", deposits)
	}
	deposit := int64(40 * 2500) // the announced minDeposit
	if got := r.usdc(t, ctx, payer); got != funds-deposit {
		t.Fatalf("payer holds %d, want %d (one deposit)", got, funds-deposit)
	}
	if got := r.usdc(t, ctx, r.receiver); got != 0 {
		t.Fatalf("receiver holds %d before the claim", got)
	}
	res, err := s.ClaimNow(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if res.Channels != 1 || len(res.Txs) != 1 || res.Claimed.Int64() != sum {
		t.Fatalf("claim: %+v, want one channel, one tx, %d", res, sum)
	}
	if got := r.usdc(t, ctx, r.receiver); got != sum {
		t.Fatalf("receiver holds %d, want exactly the %d charged", got, sum)
	}
	o, err := r.c.ReadOnchain(ctx, r.a.Client, id)
	if err != nil {
		t.Fatal(err)
	}
	if o.TotalClaimed.Int64() != sum || o.Balance.Int64() != deposit {
		t.Fatalf("on chain: claimed %s of %s, want %d of %d", o.TotalClaimed, o.Balance, sum, deposit)
	}
	// A second claim has nothing to do.
	if res, err := s.ClaimNow(ctx); err != nil || res.Channels != 0 {
		t.Fatalf("second claim: %+v, %v", res, err)
	}

	// The official client asks for a full cooperative refund.
	cl.write(map[string]any{"op": "refund", "requirements": accept})
	p := decode(t, cl.read().Get("refundPayload").Raw)
	rc, err := s.Refund(ctx, p, r.req)
	if err != nil {
		t.Fatalf("refund: %v", err)
	}
	cl.write(map[string]any{"receipt": rc})
	done := cl.read()
	if !done.Get("settle.success").Bool() || done.Get("channel").Type != gjsonNull {
		t.Fatalf("the client did not take the refund: %s", done.Raw)
	}
	if rc.Amount != dec(deposit-sum) || rc.Transaction == "" {
		t.Fatalf("refund receipt %+v, want %d refunded", rc, deposit-sum)
	}
	if got := r.usdc(t, ctx, payer); got != funds-sum {
		t.Fatalf("payer holds %d after the refund, want %d", got, funds-sum)
	}
	if got := r.usdc(t, ctx, r.c.Settlement); got != 0 {
		t.Fatalf("escrow still holds %d", got)
	}
	st := s.Stats()
	if st.Deposits != 0 || st.Refunds != 1 || st.ClaimTxs != 1 {
		t.Fatalf("stats of the restarted service: %+v", st)
	}
	_ = common.Hash(id)
}
