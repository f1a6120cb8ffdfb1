package service_test

import (
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/crypto"

	"github.com/farebox/farebox/internal/testkit/redistest"
	"github.com/farebox/farebox/store"
	_ "github.com/farebox/farebox/store/redis" // the redis:// store
	"github.com/farebox/farebox/x402/channel"
	"github.com/farebox/farebox/x402/channel/service"
)

// A Redis restarted empty under the channel store: a channel charged and
// claimed in full (its balance all claimed) can hold no voucher the loss
// took, so its payer tops it up and is served on; a channel with a
// voucher accepted and not yet claimed is quarantined, whether the payer
// goes on (its next voucher) or the first payment comes again (the
// deposit, whose voucher the chain's baseline would match): no relayer
// transaction is sent for it, and only the first channel is claimed.
// Judged on chain.
func TestFaultStoreLossQuarantinesOnlyChannelsThatCouldHoldLostVouchers(t *testing.T) {
	ctx := withTimeout(t, 4*time.Minute)
	r := newRig(t, ctx)
	srv := redistest.StartServer(t, redistest.Options{})
	set, err := store.Open("redis://"+srv.Addr(), store.Options{Key: "payments.redis_url"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { set.Close() })
	cs, err := set.Channels()
	if err != nil {
		t.Fatal(err)
	}
	// No minimum: the official client deposits five ceilings, which five
	// calls charge in full.
	s := r.service(t, cs, func(c *service.Config) { c.MinDeposit = nil })
	accept := r.accept(s)
	fullKey, lostKey := r.payer(t, ctx, 1_000_000), r.payer(t, ctx, 1_000_000)
	full, lost := newClient(t, fullKey, r.a.RPCURL), newClient(t, lostKey, r.a.RPCURL)
	var fullID [32]byte
	for range 5 {
		_, p := paid(t, ctx, s, full, accept, r.req, 2500)
		fullID = p.Voucher.ChannelID
	}
	_, first := paid(t, ctx, s, lost, accept, r.req, 2500)
	lostID := first.Voucher.ChannelID
	if res, err := s.ClaimNow(ctx); err != nil || res.Claimed.Int64() != 6*2500 {
		t.Fatalf("claim before the loss: %+v %v", res, err)
	}
	paid(t, ctx, s, lost, accept, r.req, 2500) // accepted, then lost unclaimed

	srv.Restart() // without persistence: empty
	txs := r.relayerTxs(t, ctx)
	for _, p := range []*channel.Payload{lost.pay(accept), first} {
		if _, err := s.Begin(ctx, p, r.req, nil); reasonOf(err) != channel.ReasonChannelQuarantined {
			t.Fatalf("a %s on the channel with a lost voucher: %v, want %s", p.Type, err, channel.ReasonChannelQuarantined)
		}
	}
	if n := r.relayerTxs(t, ctx); n != txs {
		t.Fatalf("the refused payments sent %d relayer transactions", n-txs)
	}
	rc, p := paid(t, ctx, s, full, accept, r.req, 2500)
	if p.Type != channel.TypeDeposit || rc.Extra.ChannelState.Charged != dec(6*2500) {
		t.Fatalf("the fully claimed channel after the loss: a %s, charged %s; want a top-up served on from %d",
			p.Type, rc.Extra.ChannelState.Charged, 5*2500)
	}
	if res, err := s.ClaimNow(ctx); err != nil || res.Claimed.Int64() != 2500 || res.Channels != 1 {
		t.Fatalf("claim after the loss: %+v %v, want the top-up's 2500 from one channel", res, err)
	}
	if got := r.usdc(t, ctx, r.receiver); got != 7*2500 {
		t.Errorf("receiver holds %d, want %d: what was claimed before the loss and the charge after it", got, 7*2500)
	}
	if _, claimed := r.onchain(t, ctx, lostID); claimed != 2500 {
		t.Errorf("the lost channel claimed %d on chain, want the 2500 claimed before the loss", claimed)
	}
	if balance, claimed := r.onchain(t, ctx, fullID); claimed != 6*2500 || balance <= claimed {
		t.Errorf("the topped-up channel: balance %d, claimed %d", balance, claimed)
	}
	if got := r.usdc(t, ctx, crypto.PubkeyToAddress(lostKey.PublicKey)); got != 1_000_000-5*2500 {
		t.Errorf("the lost channel's payer holds %d, want its wallet less its one deposit", got)
	}
}
