package payer_test

import (
	"context"
	"fmt"
	"math/big"
	"net/http"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/crypto"
	"github.com/farebox/farebox/x402/payer"
	"github.com/farebox/farebox/x402/payer/payertest"
)

// TestHostileChannelSaltHidesChannels: a stranger who knows a payer's
// address computes the channel id with the zero salt (the official
// client's) and reads the channel on chain: with farebox's payer that
// channel is empty. Its channel has a non-zero salt of its own, kept in
// its store, different for another payer; a payer that lost its store
// derives the salt again and recovers the channel from chain by its id
// (a voucher, no second deposit).
func TestHostileChannelSaltHidesChannels(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	s := startAnvilShop(t, ctx, 2500, payertest.Charges(1000, 700, 300, 200))
	transport := func(store payer.ChannelStore) *payer.Transport {
		return payer.NewTransport(payer.NewSigner(s.a.PayerKey), payer.WithNetworks(s.reg), payer.WithChain(s.a.Client),
			payer.WithChannelStore(store), payer.WithSpendCap(big.NewInt(1_000_000)))
	}
	store := payer.NewMemoryChannels()
	tr := transport(store)
	for i := range 2 {
		if code := pay(t, tr, s.url, fmt.Sprintf(`{"n":%d}`, i)); code != http.StatusOK {
			t.Fatalf("call %d: %d, refusals %v", i, code, s.Refused)
		}
	}
	st := s.State()
	if st.Config.Salt == ([32]byte{}) {
		t.Fatal("the payer opened its channel with the zero salt")
	}
	guess := st.Config
	guess.Salt = [32]byte{}
	if o, err := s.Contracts.ReadOnchain(ctx, s.a.Client, s.Contracts.ChannelID(&guess)); err != nil || o.Balance.Sign() != 0 {
		t.Fatalf("the channel a stranger computes from the address holds %v (%v)", o.Balance, err)
	}
	if o, err := s.Contracts.ReadOnchain(ctx, s.a.Client, st.ChannelID); err != nil || o.Balance.Int64() != 5*2500 {
		t.Fatalf("the payer's channel holds %v on chain (%v), want its 12500 deposit", o.Balance, err)
	}
	k := payer.ChannelKey{Payer: s.a.Payer, Network: s.a.Network.CAIP2, Receiver: payTo}
	rec, err := store.Get(k, st.ChannelID)
	if err != nil || rec == nil || rec.Salt != st.Config.Salt {
		t.Fatalf("the store does not keep the salt: %+v %v", rec, err)
	}

	// A payer that lost its store pays on the same channel: a voucher.
	if code := pay(t, transport(payer.NewMemoryChannels()), s.url, `{"n":"cold"}`); code != http.StatusOK {
		t.Fatalf("cold start: %d, refusals %v", code, s.Refused)
	}
	if seen := s.Seen(); seen[len(seen)-1] != "batch-settlement:voucher" {
		t.Fatalf("cold start paid with %s, want a voucher on the recovered channel", seen[len(seen)-1])
	}

	// Another payer's channel with the same receiver has another salt.
	other, _ := crypto.GenerateKey()
	if err := s.a.Fund(ctx, crypto.PubkeyToAddress(other.PublicKey), 1_000_000); err != nil {
		t.Fatal(err)
	}
	otherStore := payer.NewMemoryChannels()
	tr2 := payer.NewTransport(payer.NewSigner(other), payer.WithNetworks(s.reg), payer.WithChain(s.a.Client),
		payer.WithChannelStore(otherStore), payer.WithSpendCap(big.NewInt(1_000_000)))
	if code := pay(t, tr2, s.url, `{"n":"other"}`); code != http.StatusOK {
		t.Fatalf("other payer: %d, refusals %v", code, s.Refused)
	}
	recs, err := otherStore.List(payer.ChannelKey{Payer: crypto.PubkeyToAddress(other.PublicKey), Network: s.a.Network.CAIP2, Receiver: payTo})
	if err != nil || len(recs) != 1 {
		t.Fatalf("other payer's channels: %v %v", recs, err)
	}
	if recs[0].Salt == ([32]byte{}) || recs[0].Salt == rec.Salt {
		t.Fatalf("other payer's salt %x (first payer's %x)", recs[0].Salt, rec.Salt)
	}
}
