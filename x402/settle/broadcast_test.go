package settle_test

import (
	"context"
	"errors"
	storebolt "github.com/farebox/farebox/store/bolt"
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/crypto"

	"github.com/farebox/farebox/x402"
	"github.com/farebox/farebox/x402/evm"
	"github.com/farebox/farebox/x402/settle"
)

// With the real chain settler the write-ahead entry is journaled while the
// batch is simulated. A transfer the simulation then refuses (here its
// nonce was used after Begin by another authorization of the payer's,
// paying someone else) was never sent: the
// engine is told so, the purchase is released (entry gone, hold gone), the
// refusal reaches the caller, and the chain moved the money only once.
func TestARefusedTransferJournaledDuringTheSimulationIsReleased(t *testing.T) {
	ctx := context.Background()
	key, err := crypto.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	if err := chain.FundETH(ctx, crypto.PubkeyToAddress(key.PublicKey), big.NewInt(1e18)); err != nil {
		t.Fatal(err)
	}
	real, err := evm.NewSettler(ctx, chain.Client, key) // its own relayer: the shared settler's nonces stay in step
	if err != nil {
		t.Fatal(err)
	}
	j, err := storebolt.OpenJournal(t.TempDir(), 0)
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	holds := settle.NewMemoryHolds()
	e, ev := newEngine(t, settle.Config{Journal: j, Settler: real, Holds: holds})
	defer e.Close()

	// A first purchase teaches the settler the token's transfer gas, so the
	// next one takes the path that journals during the simulation.
	first := newBuyer(t, price)
	p, err := e.Begin(ctx, first.purchase(first.pay(t), "first"))
	if err != nil {
		t.Fatal(err)
	}
	if rc, err := p.Settle(ctx); err != nil || !rc.Success {
		t.Fatalf("first settlement: %+v %v", rc, err)
	}

	b := newBuyer(t, 2*price)
	pay := b.pay(t)
	p, err = e.Begin(ctx, b.purchase(pay, "front-run"))
	if err != nil {
		t.Fatal(err)
	}
	other, otherReq := sameNonceElsewhere(t, b, pay)
	rc, err := settler.Settle(ctx, other, otherReq) // the nonce goes elsewhere first
	if err != nil || !rc.Success {
		t.Fatalf("the other authorization: %+v %v", rc, err)
	}
	r, err := p.Settle(ctx)
	var xe *x402.Error
	if !errors.As(err, &xe) || xe.Reason != x402.ReasonNonceAlreadyUsed || r == nil || r.Success {
		t.Fatalf("Settle = %+v, %v; want a refusal with %s", r, err, x402.ReasonNonceAlreadyUsed)
	}
	name := p.Entry().Name()
	ev.await(t, settle.EventReleased, name)
	if n := e.Count(settle.EventSettling); n != 2 {
		t.Fatalf("%d purchases were journaled as settling, want both (the refused one during its simulation)", n)
	}
	if _, err := j.Get(ctx, pay.Key(chain.Network)); !errors.Is(err, settle.ErrNotFound) {
		t.Fatalf("the refused purchase's entry: %v, want it released", err)
	}
	held, err := holds.Held(ctx, settle.Account{ChainID: chain.Network.ChainID.String(), Asset: chain.Network.Asset, Payer: b.addr})
	if err != nil || held.Sign() != 0 {
		t.Fatalf("held after the release: %v, %v; want nothing", held, err)
	}
	if from, to := b.balancesAfter(t, rc.Transaction); from != price || to != 0 {
		t.Fatalf("payer has %d, payee %d; want one price moved, not to the payee", from, to)
	}
}

// sameNonceElsewhere is another authorization of b's with pay's nonce and
// value, paying a fresh address: it uses the nonce without paying b.req.
func sameNonceElsewhere(t *testing.T, b *buyer, pay *x402.Payment) (*x402.Payment, *x402.Requirement) {
	t.Helper()
	elsewhere, _ := crypto.GenerateKey()
	req := *b.req
	req.PayTo = crypto.PubkeyToAddress(elsewhere.PublicKey)
	p := *pay
	p.Authorization.To = req.PayTo
	digest := req.Network.Digest(&p.Authorization)
	sig, err := crypto.Sign(digest[:], b.key)
	if err != nil {
		t.Fatal(err)
	}
	sig[64] += 27
	p.Signature = sig
	if _, err := x402.EncodePayment(&p, &req); err != nil {
		t.Fatal(err)
	}
	return &p, &req
}
