package payer_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math/big"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	ethereum "github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/farebox/farebox/internal/testkit/chaintest"
	"github.com/farebox/farebox/x402"
	"github.com/farebox/farebox/x402/channel"
	"github.com/farebox/farebox/x402/eip712"
	"github.com/farebox/farebox/x402/evm"
	"github.com/farebox/farebox/x402/evm/contracts"
	"github.com/farebox/farebox/x402/payer"
	"github.com/farebox/farebox/x402/payer/payertest"
	"github.com/farebox/farebox/x402/upto"
	"github.com/tidwall/gjson"
)

// anvilShop is a metered shop paying out on anvil (Circle's USDC, the x402
// contracts at their canonical addresses, a block every 2 s): its relayer
// deposits, settles, claims and refunds.
type anvilShop struct {
	*payertest.Shop
	a   *chaintest.Anvil
	url string
	reg *x402.Registry
}

func startAnvilShop(t *testing.T, ctx context.Context, ceiling int64, charge func(int) *big.Int) *anvilShop {
	t.Helper()
	a := chaintest.StartAnvil(t)
	if err := contracts.InstallCanonical(ctx, a.Client.Client(), big.NewInt(chaintest.ChainID)); err != nil {
		t.Fatal(err)
	}
	key, err := a.NewRelayer(ctx)
	if err != nil {
		t.Fatal(err)
	}
	relayer, err := evm.NewTransactor(ctx, a.Client, key)
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Client.Client().CallContext(ctx, nil, "evm_setIntervalMining", 2); err != nil {
		t.Fatal(err)
	}
	s, srv := payertest.NewShop(t, a.Network, ceiling, charge)
	s.OnChain(relayer, a.Client)
	reg, err := x402.NewRegistry(a.Network)
	if err != nil {
		t.Fatal(err)
	}
	return &anvilShop{Shop: s, a: a, url: srv.URL, reg: reg}
}

// usdc is who's USDC balance on chain.
func (s *anvilShop) usdc(t *testing.T, ctx context.Context, who common.Address) int64 {
	t.Helper()
	tok := contracts.NewFareboxUSDv2() // balanceOf is ERC-20's
	out, err := s.a.Client.CallContract(ctx, ethereum.CallMsg{To: &s.a.Network.Asset, Data: tok.PackBalanceOf(who)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	v, _ := tok.UnpackBalanceOf(out)
	return v.Int64()
}

// TestBatchSettlementOnAnvil: the transport's deposit moves USDC into the
// channel (its on-chain balance is the client's record), its vouchers
// carry the charges across a restart, a payer that lost its store
// recovers from chain without depositing again, the receiver ends with
// exactly what was charged, and a cooperative refund returns the rest.
func TestBatchSettlementOnAnvil(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	s := startAnvilShop(t, ctx, 2500, payertest.Charges(1999, 2500, 1, 731, 900))
	funds := s.usdc(t, ctx, s.a.Payer)
	dir := t.TempDir()
	transport := func(store payer.ChannelStore) *payer.Transport {
		if store == nil {
			var err error
			if store, err = payer.NewFileChannels(dir); err != nil {
				t.Fatal(err)
			}
		}
		return payer.NewTransport(payer.NewSigner(s.a.PayerKey), payer.WithNetworks(s.reg), payer.WithChain(s.a.Client),
			payer.WithChannelStore(store), payer.WithSpendCap(big.NewInt(1_000_000)))
	}
	tr := transport(nil)
	for i := range 4 {
		if i == 2 {
			tr = transport(nil) // a restart: the store carries the channel
		}
		if code := pay(t, tr, s.url, fmt.Sprintf(`{"n":%d}`, i)); code != http.StatusOK {
			t.Fatalf("call %d: %d, refusals %v", i, code, s.Refused)
		}
	}
	st := s.State()
	store, _ := payer.NewFileChannels(dir)
	k := payer.ChannelKey{Payer: s.a.Payer, Network: s.a.Network.CAIP2, Receiver: payTo}
	rec, err := payertest.CheckChannel(ctx, s.a.Client, s.Contracts, store, k, st.ChannelID)
	if err != nil {
		t.Fatal(err)
	}
	if rec.Balance.Int64() != 5*2500 || s.usdc(t, ctx, s.a.Payer) != funds-5*2500 {
		t.Fatalf("the record holds %s, the payer %d of %d: want one deposit of 12500", rec.Balance, s.usdc(t, ctx, s.a.Payer), funds)
	}
	if rec.Charged.Int64() != 1999+2500+1+731 {
		t.Fatalf("record charged %s", rec.Charged)
	}
	s.Claim(ctx)
	charged := int64(1999 + 2500 + 1 + 731)
	if got := s.usdc(t, ctx, payTo); got != charged {
		t.Fatalf("receiver holds %d, want exactly the %d charged", got, charged)
	}

	// A payer that lost its store reads the channel from chain (charged =
	// totalClaimed) and pays with a voucher, no second deposit.
	fresh := transport(payer.NewMemoryChannels())
	if code := pay(t, fresh, s.url, `{"n":"cold"}`); code != http.StatusOK {
		t.Fatalf("cold start: %d, refusals %v", code, s.Refused)
	}
	if seen := s.Seen(); seen[len(seen)-1] != "batch-settlement:voucher" {
		t.Fatalf("cold start paid with %s, want a voucher", seen[len(seen)-1])
	}
	charged += 900

	// The file store is stale by the cold start's charge: the refund's
	// zero-charge voucher is corrected from the server's signed voucher.
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, s.url, strings.NewReader(`{"refund":true}`))
	r, err := tr.Refund(req, nil)
	if err != nil {
		t.Fatalf("refund: %v (refusals %v)", err, s.Refused)
	}
	if r.Refunded == nil || r.Refunded.Int64() != 5*2500-charged || r.Transaction == "" {
		t.Fatalf("refund %+v, want %d back", r, 5*2500-charged)
	}
	if got := s.usdc(t, ctx, s.a.Payer); got != funds-charged {
		t.Fatalf("payer holds %d after the refund, want %d", got, funds-charged)
	}
	// The record follows the refund (the channel keeps what was claimed),
	// so the next call deposits on top without a corrective round trip.
	rec, err = payertest.CheckChannel(ctx, s.a.Client, s.Contracts, store, k, st.ChannelID)
	if err != nil {
		t.Fatalf("after the refund: %v", err)
	}
	if rec.Balance.Int64() != charged || rec.Charged.Int64() != charged {
		t.Fatalf("after the refund the record holds balance %s, charged %s: want both %d", rec.Balance, rec.Charged, charged)
	}
}

// TestUptoOnAnvil: a payer that never approved Permit2 pays upto with an
// EIP-2612 permit; the shop settles less than the ceiling and the payer's
// balance moves by exactly the charge, twice (the second permit reads the
// next nonce); once the payer approved Permit2 itself no permit is sent.
func TestUptoOnAnvil(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	s := startAnvilShop(t, ctx, 50_000, payertest.Charges(12_345, 20_000, 7))
	funds := s.usdc(t, ctx, s.a.Payer)
	tr := payer.NewTransport(payer.NewSigner(s.a.PayerKey), payer.WithNetworks(s.reg), payer.WithChain(s.a.Client),
		payer.WithSchemes(upto.Scheme))
	// The official client signs a permit of the same shape for an offer like it.
	installOfficial(t)
	var accept map[string]any
	json.Unmarshal(upto.Accept(s.Req(upto.Scheme), s.Relayer), &accept)
	theirs := official(t, map[string]any{"scheme": upto.Scheme, "privateKey": hexutil.Encode(crypto.FromECDSA(s.a.PayerKey)),
		"requirements": accept, "rpcUrl": s.a.RPCURL,
		"extensions": map[string]any{eip712.GasSponsoringKey: json.RawMessage(eip712.GasSponsoringDeclaration())}})
	paid := int64(0)
	for i, charge := range []int64{12_345, 20_000} {
		if code := pay(t, tr, s.url, fmt.Sprintf(`{"n":%d}`, i)); code != http.StatusOK {
			t.Fatalf("call %d: %d, refusals %v", i, code, s.Refused)
		}
		paid += charge
		if got := s.usdc(t, ctx, s.a.Payer); got != funds-paid {
			t.Fatalf("call %d: payer holds %d, want %d", i, got, funds-paid)
		}
	}
	if got := s.usdc(t, ctx, payTo); got != paid {
		t.Fatalf("receiver holds %d, want %d", got, paid)
	}
	s.Mu.Lock()
	ours := gjson.Parse(decode(t, s.Headers[0]))
	s.Mu.Unlock()
	for _, part := range []string{"payload", "extensions"} {
		o, th := keys(shape(ours.Get(part), part, nil)), keys(shape(theirs.Get(part), part, nil))
		if len(o) < 6 || !slices.Equal(o, th) {
			t.Errorf("%s shape:\nours     %v\nofficial %v", part, o, th)
		}
	}
	if n := ours.Get("extensions.eip2612GasSponsoring.info.nonce").String(); n != theirs.Get("extensions.eip2612GasSponsoring.info.nonce").String() || n != "0" {
		t.Errorf("permit nonce %s, official %s: want the token's nonces(payer), 0", n, theirs.Get("extensions.eip2612GasSponsoring.info.nonce"))
	}
	own, err := evm.NewTransactor(ctx, s.a.Client, s.a.PayerKey)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := own.Send(ctx, &s.a.Network.Asset, contracts.NewFareboxUSDv2().PackApprove(contracts.CanonicalPermit2, big.NewInt(1_000_000)), nil); err != nil {
		t.Fatal(err)
	}
	if code := pay(t, tr, s.url, `{"n":"approved"}`); code != http.StatusOK {
		t.Fatalf("status %d, refusals %v", code, s.Refused)
	}
	s.Mu.Lock()
	last := decode(t, s.Headers[len(s.Headers)-1])
	s.Mu.Unlock()
	if strings.Contains(last, "eip2612GasSponsoring") {
		t.Fatalf("a permit was signed although the allowance covers the ceiling:\n%s", last)
	}
	if got := s.usdc(t, ctx, s.a.Payer); got != funds-paid-7 {
		t.Fatalf("payer holds %d, want %d", got, funds-paid-7)
	}
}

// TestPermit2DepositOnAnvil: when the offer asks for Permit2 deposits the
// transport signs a Permit2 witness transfer to the Permit2 deposit
// collector and, the payer never having approved Permit2, the gas-sponsoring
// permit: the deposit lands through the collector.
func TestPermit2DepositOnAnvil(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	s := startAnvilShop(t, ctx, 2000, payertest.Charges(1500))
	s.Terms.AssetTransferMethod = channel.MethodPermit2
	s.Terms.MinDeposit = big.NewInt(30_000)
	funds := s.usdc(t, ctx, s.a.Payer)
	tr := payer.NewTransport(payer.NewSigner(s.a.PayerKey), payer.WithNetworks(s.reg), payer.WithChain(s.a.Client))
	for i := range 2 {
		if code := pay(t, tr, s.url, fmt.Sprintf(`{"n":%d}`, i)); code != http.StatusOK {
			t.Fatalf("call %d: %d, refusals %v", i, code, s.Refused)
		}
	}
	o, err := s.Contracts.ReadOnchain(ctx, s.a.Client, s.State().ChannelID)
	if err != nil {
		t.Fatal(err)
	}
	if o.Balance.Int64() != 30_000 || s.usdc(t, ctx, s.a.Payer) != funds-30_000 || s.usdc(t, ctx, s.Contracts.Settlement) != 30_000 {
		t.Fatalf("channel %s, payer %d of %d: want the announced minimum deposit of 30000", o.Balance, s.usdc(t, ctx, s.a.Payer), funds)
	}

	// The official client, asked for a Permit2 deposit with gas sponsoring
	// on the same chain, builds a payload and permit of the same shape.
	installOfficial(t)
	s.Mu.Lock()
	ours := gjson.Parse(decode(t, s.Headers[0]))
	s.Mu.Unlock()
	var accept map[string]any
	json.Unmarshal(channel.Accept(s.Req(channel.Scheme), s.Terms, nil), &accept)
	other, _ := crypto.GenerateKey()
	theirs := official(t, map[string]any{"scheme": channel.Scheme, "privateKey": hexutil.Encode(crypto.FromECDSA(other)),
		"requirements": accept, "rpcUrl": s.a.RPCURL,
		"extensions": map[string]any{eip712.GasSponsoringKey: json.RawMessage(eip712.GasSponsoringDeclaration())}})
	for _, part := range []string{"payload", "extensions"} {
		o, th := keys(shape(ours.Get(part), part, nil)), keys(shape(theirs.Get(part), part, nil))
		if len(o) < 6 || !slices.Equal(o, th) {
			t.Errorf("%s shape:\nours     %v\nofficial %v", part, o, th)
		}
	}
}

// TestServerStateLossOnAnvil: a server that lost its channel records
// starts again from the chain's totalClaimed (spec); the payer's voucher
// no longer matches, the corrective 402 carries no voucher to verify, and
// the payer resynchronises from the chain too.
func TestServerStateLossOnAnvil(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	s := startAnvilShop(t, ctx, 1000, payertest.Charges(600, 700, 800))
	store := payer.NewMemoryChannels()
	tr := payer.NewTransport(payer.NewSigner(s.a.PayerKey), payer.WithNetworks(s.reg), payer.WithChain(s.a.Client),
		payer.WithChannelStore(store))
	for i := range 2 {
		if code := pay(t, tr, s.url, fmt.Sprintf(`{"n":%d}`, i)); code != http.StatusOK {
			t.Fatalf("call %d: %d, refusals %v", i, code, s.Refused)
		}
	}
	id := s.State().ChannelID
	s.Mu.Lock()
	clear(s.States)
	s.Mu.Unlock()
	if code := pay(t, tr, s.url, `{"n":"after the loss"}`); code != http.StatusOK {
		t.Fatalf("status %d, refusals %v", code, s.Refused)
	}
	if len(s.Refused) != 1 || s.Refused[0] != channel.ReasonCumulativeAmountMismatch {
		t.Fatalf("refusals %v, want one corrective 402", s.Refused)
	}
	rec, err := payertest.CheckChannel(ctx, s.a.Client, s.Contracts, store,
		payer.ChannelKey{Payer: s.a.Payer, Network: s.a.Network.CAIP2, Receiver: payTo}, id)
	if err != nil {
		t.Fatal(err)
	}
	if st := s.State(); rec.Charged.Int64() != 800 || st.Charged.Int64() != 800 {
		t.Fatalf("payer charged %s, server %s: want both at the chain's 0 plus the new 800", rec.Charged, st.Charged)
	}
}
