package service_test

import (
	storebolt "github.com/farebox/farebox/store/bolt"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/farebox/farebox/internal/testkit/chaintest"
	"github.com/farebox/farebox/x402/channel"
	"github.com/farebox/farebox/x402/channel/service"
	"github.com/farebox/farebox/x402/facilitator"
)

// TestDelegatedToReferenceFacilitator runs channels whose receiver
// authorization is delegated to @x402/evm's reference facilitator (anvil
// mining every 2 s): the service learns the receiverAuthorizer from
// /supported, the official client deposits once through the facilitator
// and pays vouchers verified locally, the claim (signed and relayed by the
// facilitator) and its sweep leave exactly the sum charged with the
// receiver, and a cooperative refund through the facilitator returns the
// rest to the payer; a restart between vouchers (the bbolt file reopened)
// loses nothing. With key set, farebox signs the claims and refunds
// itself and the facilitator only relays.
func TestDelegatedToReferenceFacilitator(t *testing.T) {
	for _, mode := range []string{"delegated", "key"} {
		t.Run(mode, func(t *testing.T) { delegatedFlow(t, mode == "key") })
	}
}

func delegatedFlow(t *testing.T, ownKey bool) {
	ctx := withTimeout(t, 5*time.Minute)
	r := newRig(t, ctx, chaintest.BlockTime(2*time.Second))
	relayer, err := r.a.NewRelayer(ctx)
	if err != nil {
		t.Fatal(err)
	}
	authKey, _ := crypto.GenerateKey()
	url := chaintest.StartBatchFacilitator(t, r.a.RPCURL, relayer, authKey)
	fc, err := facilitator.New(url)
	if err != nil {
		t.Fatal(err)
	}
	sup, err := fc.Supported(ctx)
	if err != nil {
		t.Fatal(err)
	}
	advertised := sup.ReceiverAuthorizer(channel.Scheme, r.a.Network.CAIP2)
	if !common.IsHexAddress(advertised) || common.HexToAddress(advertised) != crypto.PubkeyToAddress(authKey.PublicKey) {
		t.Fatalf("/supported advertises receiverAuthorizer %q, want %s", advertised, crypto.PubkeyToAddress(authKey.PublicKey))
	}
	fb := &service.FacilitatorBackend{Facilitator: fc, Contracts: r.c, Network: r.a.Network.CAIP2,
		Authorizer: common.HexToAddress(advertised), Receipts: r.a.Client}
	if ownKey {
		// farebox holds the authorizer key: it signs, the facilitator relays.
		fb.Key = authKey
	}
	dir := t.TempDir()
	var j *storebolt.Journal
	open := func() *service.Service {
		var err error
		if j, err = storebolt.OpenJournal(dir, 0); err != nil {
			t.Fatal(err)
		}
		store, err := storebolt.NewChannels(j.DB())
		if err != nil {
			t.Fatal(err)
		}
		return r.service(t, store, func(c *service.Config) { c.Relayer, c.Backend = nil, fb })
	}
	s := open()
	defer func() { j.Close() }()
	if s.Terms().ReceiverAuthorizer != fb.Authorizer {
		t.Fatalf("terms name authorizer %s, want the facilitator's %s", s.Terms().ReceiverAuthorizer, fb.Authorizer)
	}
	const funds = 1_000_000
	key := r.payer(t, ctx, funds)
	payer := crypto.PubkeyToAddress(key.PublicKey)
	accept := r.accept(s)
	cl := newClient(t, key, r.a.RPCURL)
	charges := []int64{1999, 2500, 0, 731, 1}
	var sum int64
	var deposits int
	var id [32]byte
	for i, charge := range charges {
		if i == 3 {
			// Restart between vouchers: a new Service on the reopened file continues the channel.
			if err := j.Close(); err != nil {
				t.Fatal(err)
			}
			s = open()
		}
		rc, p := paid(t, ctx, s, cl, accept, r.req, charge)
		sum += charge
		id = p.Voucher.ChannelID
		if rc.Extra.ChargedAmount != dec(charge) || rc.Extra.ChannelState.Charged != dec(sum) {
			t.Fatalf("call %d: receipt charged %s (cumulative %s), want %d (%d)", i, rc.Extra.ChargedAmount, rc.Extra.ChannelState.Charged, charge, sum)
		}
		if p.Type == channel.TypeDeposit {
			deposits++
			if rc.Transaction == "" {
				t.Fatalf("deposit receipt without its transaction: %+v", rc)
			}
		} else if rc.Transaction != "" {
			t.Fatalf("voucher receipt %d carries a transaction: %+v", i, rc)
		}
	}
	if deposits != 1 {
		t.Fatalf("%d deposits, want 1", deposits)
	}
	deposit := int64(40 * 2500)
	if got := r.usdc(t, ctx, payer); got != funds-deposit {
		t.Fatalf("payer holds %d, want %d (one deposit)", got, funds-deposit)
	}
	res, err := s.ClaimNow(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if res.Channels != 1 || res.Claimed.Int64() != sum {
		t.Fatalf("claim: %+v, want one channel, %d", res, sum)
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

	cl.write(map[string]any{"op": "refund", "requirements": accept})
	p := decode(t, cl.read().Get("refundPayload").Raw)
	rc, err := s.Refund(ctx, p, r.req)
	if err != nil {
		t.Fatalf("refund: %v", err)
	}
	cl.write(map[string]any{"receipt": rc})
	if done := cl.read(); !done.Get("settle.success").Bool() {
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
}

// A channel opened under farebox's relayer as receiver authorizer is left
// alone by a service that now delegates to a facilitator (its row would
// make the facilitator refuse the whole batch), and the relayer's service
// still claims it: the receiver ends with exactly the sum charged.
func TestSwitchedAuthorizerLeavesOldChannels(t *testing.T) {
	ctx := withTimeout(t, 5*time.Minute)
	r := newRig(t, ctx, chaintest.BlockTime(2*time.Second))
	relayer, err := r.a.NewRelayer(ctx)
	if err != nil {
		t.Fatal(err)
	}
	authKey, _ := crypto.GenerateKey()
	fc, err := facilitator.New(chaintest.StartBatchFacilitator(t, r.a.RPCURL, relayer, authKey))
	if err != nil {
		t.Fatal(err)
	}
	store := service.NewMemoryStore()
	own := r.service(t, store, nil)
	key := r.payer(t, ctx, 1_000_000)
	cl := newClient(t, key, r.a.RPCURL)
	accept := r.accept(own)
	var sum int64
	for _, charge := range []int64{1200, 800} {
		paid(t, ctx, own, cl, accept, r.req, charge)
		sum += charge
	}
	fb := &service.FacilitatorBackend{Facilitator: fc, Contracts: r.c, Network: r.a.Network.CAIP2,
		Authorizer: crypto.PubkeyToAddress(authKey.PublicKey), Receipts: r.a.Client}
	delegated := r.service(t, store, func(c *service.Config) { c.Relayer, c.Backend = nil, fb })
	res, err := delegated.ClaimNow(ctx)
	if err != nil || res.Channels != 0 {
		t.Fatalf("the delegating service claimed %+v, %v: want nothing (the channel is the relayer's)", res, err)
	}
	if res, err := own.ClaimNow(ctx); err != nil || res.Claimed.Int64() != sum {
		t.Fatalf("the relayer's claim: %+v, %v, want %d", res, err, sum)
	}
	if got := r.usdc(t, ctx, r.receiver); got != sum {
		t.Fatalf("receiver holds %d, want %d", got, sum)
	}
}
