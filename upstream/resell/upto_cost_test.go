package resell_test

import (
	"context"
	"crypto/ecdsa"
	"fmt"
	"math/big"
	"testing"
	"time"

	ethereum "github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/farebox/farebox/internal/testkit/chaintest"
	"github.com/farebox/farebox/responses"
	"github.com/farebox/farebox/upstream/resell"
	"github.com/farebox/farebox/x402"
	"github.com/farebox/farebox/x402/evm"
	"github.com/farebox/farebox/x402/evm/contracts"
	"github.com/farebox/farebox/x402/payer"
	"github.com/farebox/farebox/x402/payer/payertest"
	"github.com/farebox/farebox/x402/upto"
)

// uptoMax is the upto seller's ceiling: what the reseller's wallet signs
// for each call.
const uptoMax = 50_000

// uptoRig is an upto-only seller on anvil (its relayer settles each
// call's charge through the upto proxy before it answers) and a reseller's
// wallet funded to pay it.
type uptoRig struct {
	a      *chaintest.Anvil
	shop   *payertest.Shop
	url    string
	key    *ecdsa.PrivateKey
	wallet common.Address
}

func startUptoRig(t *testing.T, charge func(int) *big.Int) *uptoRig {
	t.Helper()
	ctx := context.Background()
	a := chaintest.StartAnvil(t)
	if err := contracts.InstallCanonical(ctx, a.Client.Client(), big.NewInt(chaintest.ChainID)); err != nil {
		t.Fatal(err)
	}
	rk, err := a.NewRelayer(ctx)
	if err != nil {
		t.Fatal(err)
	}
	relayer, err := evm.NewTransactor(ctx, a.Client, rk)
	if err != nil {
		t.Fatal(err)
	}
	shop, srv := payertest.NewShop(t, a.Network, uptoMax, charge)
	shop.Schemes = []string{upto.Scheme}
	shop.OnChain(relayer, a.Client)
	wk, _ := crypto.GenerateKey()
	r := &uptoRig{a: a, shop: shop, url: srv.URL + "/v1", key: wk, wallet: crypto.PubkeyToAddress(wk.PublicKey)}
	if err := a.Fund(ctx, r.wallet, 1_000_000); err != nil {
		t.Fatal(err)
	}
	return r
}

// model is the reseller's model buying from the rig's seller, reading
// chain (nil: none).
func (r *uptoRig) model(t *testing.T, chain payer.ChainReader) *resell.Model {
	t.Helper()
	reg, err := x402.NewRegistry(r.a.Network)
	if err != nil {
		t.Fatal(err)
	}
	m, err := resell.New(resell.Config{BaseURL: r.url, Model: "metered", Signer: payer.NewSigner(r.key), Networks: reg,
		MaxPrice: big.NewInt(uptoMax), Chain: chain})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// balance is the wallet's USDC on chain.
func (r *uptoRig) balance(t *testing.T) int64 {
	t.Helper()
	tok := contracts.NewFareboxUSDv2() // balanceOf is ERC-20's
	out, err := r.a.Client.CallContract(context.Background(), ethereum.CallMsg{To: &r.a.Network.Asset, Data: tok.PackBalanceOf(r.wallet)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	v, _ := tok.UnpackBalanceOf(out)
	return v.Int64()
}

// buy makes calls resold calls through m, each answered, waiting after
// each until m booked its cost.
func (r *uptoRig) buy(t *testing.T, m *resell.Model, calls int) {
	t.Helper()
	for i := range calls {
		r.call(t, m, i)
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		m.Settle(ctx)
		cancel()
	}
}

// call makes resold call i through m.
func (r *uptoRig) call(t *testing.T, m *resell.Model, i int) {
	t.Helper()
	req, perr := responses.Parse(fmt.Appendf(nil, `{"model":"resold","stream":true,"input":"call %d"}`, i))
	if perr != nil {
		t.Fatal(perr)
	}
	if err := m.Respond(context.Background(), req, responses.NewEmitter(req, responses.Discard{}, responses.EmitterOptions{})); err != nil {
		t.Fatalf("call %d: %v (the seller refused %v)", i, err, r.shop.Refused)
	}
}

// TestUptoSellerCostIsWhatTheChainMoved: an honest upto seller charges
// 12345, 20000 and 7 of a 50000 maximum. With the chain the reseller
// already reads, its books' cost (Spent's settled) is what the chain
// proves each settlement moved: exactly the wallet's balance drop, while
// what it signed stays the three maxima.
func TestUptoSellerCostIsWhatTheChainMoved(t *testing.T) {
	r := startUptoRig(t, payertest.Charges(12_345, 20_000, 7))
	m := r.model(t, r.a.Client)
	before := r.balance(t)
	r.buy(t, m, 3)
	dropped := before - r.balance(t)
	signed, settled := m.Spent()
	if dropped != 12_345+20_000+7 {
		t.Fatalf("the wallet paid %d on chain, want the three charges 32352", dropped)
	}
	if settled.Int64() != dropped || signed.Int64() != 3*uptoMax {
		t.Errorf("books' cost %s, signed %s: want the chain's %d and 3 maxima %d", settled, signed, dropped, 3*uptoMax)
	}
}

// TestHostileUptoSellerLyingAboutItsChargeIsBookedAtTheMaximum: a seller
// settles 12345 of each 50000 permit on chain and says its receipt
// charged 0. The chain does not prove the receipt, so the books' cost is
// the signed maximum of each call: never the lie, never less than what
// moved.
func TestHostileUptoSellerLyingAboutItsChargeIsBookedAtTheMaximum(t *testing.T) {
	r := startUptoRig(t, payertest.Charges(12_345))
	r.shop.LieCharge = true
	m := r.model(t, r.a.Client)
	before := r.balance(t)
	r.buy(t, m, 2)
	dropped := before - r.balance(t)
	_, settled := m.Spent()
	if dropped != 2*12_345 {
		t.Fatalf("the wallet paid %d on chain, want 2 x 12345", dropped)
	}
	if settled.Int64() != 2*uptoMax {
		t.Errorf("books' cost %s, want the 2 signed maxima %d (the chain moved %d, the receipts said 0)", settled, 2*uptoMax, dropped)
	}
}

// TestUptoSellerCostWithoutAChainIsTheMaximum: without a chain to read,
// a receipt's lower charge is the seller's word only: each call is booked
// at the signed maximum, as before.
func TestUptoSellerCostWithoutAChainIsTheMaximum(t *testing.T) {
	r := startUptoRig(t, payertest.Charges(12_345))
	m := r.model(t, nil)
	before := r.balance(t)
	r.buy(t, m, 2)
	dropped := before - r.balance(t)
	if signed, settled := m.Spent(); settled.Int64() != 2*uptoMax || signed.Int64() != 2*uptoMax || dropped != 2*12_345 {
		t.Errorf("books' cost %s, signed %s, the chain moved %d: want the 2 maxima %d booked", settled, signed, dropped, 2*uptoMax)
	}
}

// TestHostileUptoSellerNamingAnEarlierTransactionIsBookedAtTheMaximum: a
// seller charges 7 honestly, then settles 20000 of each next permit on
// chain while its receipts name the first call's transaction and charge
// again. A transaction proves one purchase only: the first call is booked
// at 7, the others at the signed maximum, never at the 7 they claim.
func TestHostileUptoSellerNamingAnEarlierTransactionIsBookedAtTheMaximum(t *testing.T) {
	r := startUptoRig(t, payertest.Charges(7, 20_000))
	r.shop.StaleReceipt = true
	m := r.model(t, r.a.Client)
	before := r.balance(t)
	r.buy(t, m, 3)
	dropped := before - r.balance(t)
	_, settled := m.Spent()
	if dropped != 7+2*20_000 {
		t.Fatalf("the wallet paid %d on chain, want 7 + 2 x 20000", dropped)
	}
	if settled.Int64() != 7+2*uptoMax {
		t.Errorf("books' cost %s, want 7 and 2 signed maxima %d (the chain moved %d)", settled, 7+2*uptoMax, dropped)
	}
}

// TestFaultUptoSettlementNotOnChainIsBookedAtTheMaximum: a seller's
// receipt names a transaction the chain does not show (not mined yet, or
// never). The answer is not held for it: the cost waits off the answer's
// path (nothing booked yet), and when the wait is given up (Settle's
// context ends, as at the gateway's close) the signed maximum is booked.
func TestFaultUptoSettlementNotOnChainIsBookedAtTheMaximum(t *testing.T) {
	r := startUptoRig(t, payertest.Charges(12_345))
	r.shop.ReceiptText = common.HexToHash("0xfeed").Hex()
	m := r.model(t, r.a.Client)
	before := r.balance(t)
	r.call(t, m, 0)
	if _, settled := m.Spent(); settled.Sign() != 0 {
		t.Fatalf("books' cost %s before the proof was given up, want 0 (awaited)", settled)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	m.Settle(ctx)
	dropped := before - r.balance(t)
	if _, settled := m.Spent(); settled.Int64() != uptoMax || dropped != 12_345 {
		t.Errorf("books' cost %s, the chain moved %d: want the signed maximum %d", settled, dropped, uptoMax)
	}
}

// TestHostileUptoSellerNamingAnotherProcesssTransactionIsBookedAtTheMaximum:
// a hostile upto seller answers every call with the first receipt it gave
// (its transaction moved 7 from the wallet to payTo) while it settles each
// call's real charge. A reseller that restarted since (a new model, the
// same wallet: nothing in memory says that transaction proved a purchase)
// books neither later call at 7: the transaction does not carry their
// permits, so each is booked at its signed maximum.
func TestHostileUptoSellerNamingAnotherProcesssTransactionIsBookedAtTheMaximum(t *testing.T) {
	r := startUptoRig(t, payertest.Charges(7, 20_000))
	r.shop.StaleReceipt = true
	first := r.model(t, r.a.Client)
	r.buy(t, first, 1)
	if _, settled := first.Spent(); settled.Int64() != 7 {
		t.Fatalf("the first process booked %s, want 7 (honest so far)", settled)
	}
	restarted := r.model(t, r.a.Client)
	before := r.balance(t)
	r.buy(t, restarted, 2)
	dropped := before - r.balance(t)
	_, settled := restarted.Spent()
	if dropped != 2*20_000 {
		t.Fatalf("the wallet paid %d on chain, want 2 x 20000", dropped)
	}
	if settled.Int64() != 2*uptoMax {
		t.Errorf("the restarted reseller booked %s, want 2 signed maxima %d (the chain moved %d)", settled, 2*uptoMax, dropped)
	}
}
