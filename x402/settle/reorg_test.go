package settle_test

import (
	"context"
	"crypto/sha256"
	"fmt"
	"math/big"
	"testing"
	"time"

	ethereum "github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/farebox/farebox/internal/testkit/chaintest"
	"github.com/farebox/farebox/x402"
	"github.com/farebox/farebox/x402/evm"
	"github.com/farebox/farebox/x402/payer"
	"github.com/farebox/farebox/x402/settle"
)

// reorgEnv is an engine settling with its own relayer on anvil (one block
// per transaction until a test says otherwise), waiting for depth blocks
// on top of a transfer's before it counts it confirmed.
type reorgEnv struct {
	a      *chaintest.Anvil
	s      *evm.Settler
	e      *settle.Engine
	ev     events
	j      settle.Journal
	req    *x402.Requirement
	signer *payer.Signer
	payer  common.Address
	funds  int64
}

func newReorgEnv(t *testing.T, depth uint64) *reorgEnv {
	t.Helper()
	ctx := context.Background()
	a := chaintest.StartAnvil(t)
	key, err := a.NewRelayer(ctx)
	if err != nil {
		t.Fatal(err)
	}
	s, err := evm.NewSettler(ctx, a.Client, key)
	if err != nil {
		t.Fatal(err)
	}
	s.Confirmations = depth
	v := newReorgEnvWith(t, a, settle.Config{Settler: s})
	v.s = s
	return v
}

// newReorgEnvWith is reorgEnv's payer, payTo and engine on a, settling
// with cfg (a memory journal and the chain's network added).
func newReorgEnvWith(t *testing.T, a *chaintest.Anvil, cfg settle.Config) *reorgEnv {
	t.Helper()
	reg, err := x402.NewRegistry(a.Network)
	if err != nil {
		t.Fatal(err)
	}
	v := &reorgEnv{a: a, j: settle.NewMemoryJournal(100), funds: 10 * price}
	cfg.Journal, cfg.Networks = v.j, reg
	if cfg.RetryInterval == 0 {
		cfg.RetryInterval = 100 * time.Millisecond
	}
	v.e, v.ev = newEngine(t, cfg)
	pk, _ := crypto.GenerateKey()
	v.signer, v.payer = payer.NewSigner(pk), crypto.PubkeyToAddress(pk.PublicKey)
	if err := a.Fund(context.Background(), v.payer, v.funds); err != nil {
		t.Fatal(err)
	}
	payTo, _ := crypto.GenerateKey()
	v.req = &x402.Requirement{Scheme: "exact", Network: a.Network, Amount: big.NewInt(price),
		PayTo: crypto.PubkeyToAddress(payTo.PublicKey), MaxTimeoutSeconds: 600, Resource: "http://farebox.test/v1/responses"}
	return v
}

// rollback removes the latest depth blocks and checks that the chain then
// shows none of txs mined and the payer's money back.
func (v *reorgEnv) rollback(t *testing.T, depth uint64, txs []common.Hash) {
	t.Helper()
	if err := v.a.Rollback(context.Background(), depth); err != nil {
		t.Fatal(err)
	}
	for _, tx := range txs {
		if v.receipt(tx) != nil {
			t.Fatalf("%s still mined after the rollback", tx.Hex())
		}
	}
	if from, to := v.balances(t); from != v.funds || to != 0 {
		t.Fatalf("after the reorg: payer %d, payTo %d; want %d, 0", from, to, v.funds)
	}
}

// paidCall is one paid call's settlement: begun, answered with a receipt
// (confirm broadcast) and mined, as a client sees it.
func (v *reorgEnv) paidCall(t *testing.T, body string) (*x402.Payment, string, common.Hash) {
	t.Helper()
	ctx := context.Background()
	pay, err := v.signer.Sign(v.req, 2)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := x402.EncodePayment(pay, v.req); err != nil {
		t.Fatal(err)
	}
	p, err := v.e.Begin(ctx, settle.Purchase{Payment: pay, Requirement: v.req, BodyHash: sha256.Sum256([]byte(body))})
	if err != nil {
		t.Fatal(err)
	}
	rc, err := p.Settle(ctx)
	if err != nil || !rc.Success {
		t.Fatalf("Settle = %+v, %v", rc, err)
	}
	tx := common.HexToHash(rc.Transaction)
	v.waitFor(t, "the transfer's receipt", func() bool { return v.receipt(tx) != nil })
	return pay, p.Entry().Name(), tx
}

// awaitConfirmed returns once every entry named is confirmed, in any order.
func (v *reorgEnv) awaitConfirmed(t *testing.T, names []string) {
	t.Helper()
	left := map[string]bool{}
	for _, n := range names {
		left[n] = true
	}
	for len(left) > 0 {
		delete(left, v.ev.await(t, settle.EventConfirmed, "").Entry.Name())
	}
}

// waitFor polls cond (a chain or settler state no event announces).
func (v *reorgEnv) waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for !cond() {
		select {
		case <-ctx.Done():
			n, _ := v.a.Client.BlockNumber(context.Background())
			if v.s == nil {
				t.Fatalf("waiting for %s: %v (head %d, engine confirmed %d)", what, ctx.Err(), n, v.e.Count(settle.EventConfirmed))
			}
			t.Fatalf("waiting for %s: %v (head %d, settler %+v with %d unconfirmed, engine confirmed %d)",
				what, ctx.Err(), n, v.s.Stats(), v.s.Unconfirmed(), v.e.Count(settle.EventConfirmed))
		case <-tick.C:
		}
	}
}

func (v *reorgEnv) receipt(tx common.Hash) *types.Receipt {
	r, err := v.a.Client.TransactionReceipt(context.Background(), tx)
	if err != nil {
		return nil
	}
	return r
}

// balances reads (payer, payTo) at the latest block.
func (v *reorgEnv) balances(t *testing.T) (int64, int64) {
	t.Helper()
	read := func(who common.Address) int64 {
		out, err := v.a.Client.CallContract(context.Background(), ethereum.CallMsg{To: &v.a.Network.Asset, Data: tok.PackBalanceOf(who)}, nil)
		if err != nil {
			t.Fatal(err)
		}
		b, err := tok.UnpackBalanceOf(out)
		if err != nil {
			t.Fatal(err)
		}
		return b.Int64()
	}
	return read(v.payer), read(v.req.PayTo)
}

// books checks the engine's count and the journal: every call confirmed
// once, none failed, nobody in debt, nothing left in flight, each entry
// naming the transaction that paid it.
func (v *reorgEnv) books(t *testing.T, keys []x402.Key, txs []common.Hash) {
	t.Helper()
	ctx := context.Background()
	if n, f := v.e.Count(settle.EventConfirmed), v.e.Count(settle.EventFailed); n != int64(len(keys)) || f != 0 {
		t.Errorf("engine counted %d confirmed, %d failed; want %d, 0", n, f, len(keys))
	}
	if debt, _, err := v.e.Debt(ctx, v.payer); err != nil || debt != nil {
		t.Errorf("payer owes %v (%v); want nothing", debt, err)
	}
	if list, err := v.j.Unfinished(ctx); err != nil || len(list) != 0 {
		t.Errorf("unfinished entries %v (%v); want none", list, err)
	}
	for i, k := range keys {
		if en, err := v.j.Get(ctx, k); err != nil || en.State != settle.Confirmed || en.Tx != txs[i] {
			t.Errorf("entry %d: %+v (%v); want confirmed in %s", i, en, err, txs[i].Hex())
		}
	}
}

// A reorganisation removes the blocks that mined three paid calls'
// transfers before they are confirmations deep: the chain then shows the
// payer's money unmoved. The relayer notices at the next head that the
// receipts are gone and sends the same signed transactions again (same
// relayer nonces: they can pay once only); once they are deep again every
// call is confirmed once, naming its own transaction, and the chain shows
// the payer down by exactly the price of each call and payTo up as much.
func TestFaultReorgRemovesAMinedSettlement(t *testing.T) {
	const calls = 3
	ctx := context.Background()
	v := newReorgEnv(t, calls+1)
	var names []string
	var keys []x402.Key
	var txs []common.Hash
	for i := range calls {
		pay, name, tx := v.paidCall(t, fmt.Sprint("call ", i))
		names, keys, txs = append(names, name), append(keys, pay.Key(v.a.Network)), append(txs, tx)
	}
	// The settler saw them mined and waits for their depth.
	v.waitFor(t, "the settler to see the transfers mined", func() bool { return v.s.Unconfirmed() == calls })
	if from, to := v.balances(t); from != v.funds-calls*price || to != calls*price {
		t.Fatalf("before the reorg: payer %d, payTo %d; want %d, %d", from, to, v.funds-calls*price, calls*price)
	}
	if n := v.e.Count(settle.EventConfirmed); n != 0 {
		t.Fatalf("%d confirmed before any is %d blocks deep", n, calls+1)
	}
	// The reorg: the three blocks go, a longer branch without them comes.
	v.rollback(t, calls, txs)
	if err := v.a.Mine(ctx, calls+1); err != nil {
		t.Fatal(err)
	}
	if err := v.a.IntervalMining(ctx, 1); err != nil {
		t.Fatal(err)
	}
	v.awaitConfirmed(t, names)
	for _, tx := range txs {
		if r := v.receipt(tx); r == nil || r.Status != types.ReceiptStatusSuccessful {
			t.Fatalf("the same transaction %s is not mined again: %+v", tx.Hex(), r)
		}
	}
	if from, to := v.balances(t); from != v.funds-calls*price || to != calls*price {
		t.Fatalf("after: payer %d, payTo %d; want %d, %d (each call paid once)", from, to, v.funds-calls*price, calls*price)
	}
	if st := v.s.Stats(); st.Reorged != calls || st.Transactions != calls {
		t.Errorf("settler stats %+v; want %d transactions, each sent again once after the reorg", st, calls)
	}
	if n := v.e.Count(settle.EventResubmitted); n != 0 {
		t.Errorf("%d authorizations resubmitted in new transactions; want none (the same ones were sent)", n)
	}
	v.books(t, keys, txs)
}

// A reorganisation deeper than the confirmation depth takes away a
// settlement farebox already confirmed: the purchase stays confirmed (the
// books count it paid) while the chain shows the payer's money unmoved;
// the depth is the operator's bet on how deep the chain reorganises
// (payments.chain.confirmations). The relayer's next transaction then
// waits behind the nonce the lost one left free; the settler sees the gap
// and sends the lost transaction again as it was signed, so the chain
// comes to carry both calls, each once.
func TestFaultReorgDeeperThanTheConfirmations(t *testing.T) {
	ctx := context.Background()
	v := newReorgEnv(t, 1)
	pay, name, tx := v.paidCall(t, "deep")
	if err := v.a.Mine(ctx, 1); err != nil {
		t.Fatal(err)
	}
	v.awaitConfirmed(t, []string{name})
	if err := v.a.Rollback(ctx, 2); err != nil {
		t.Fatal(err)
	}
	if err := v.a.Mine(ctx, 3); err != nil {
		t.Fatal(err)
	}
	if v.receipt(tx) != nil {
		t.Fatalf("%s still mined after the rollback", tx.Hex())
	}
	if from, to := v.balances(t); from != v.funds || to != 0 {
		t.Fatalf("payer %d, payTo %d; want %d, 0: the reorg undid the payment", from, to, v.funds)
	}
	v.books(t, []x402.Key{pay.Key(v.a.Network)}, []common.Hash{tx})
	if st := v.s.Stats(); st.Reorged != 0 || st.ReorgedConfirmed != 0 {
		t.Errorf("settler stats %+v; want nothing noticed past the depth before the next transaction", st)
	}
	// The next paid call.
	next, nextName, nextTx := v.paidCall(t, "after the deep reorg")
	if err := v.a.IntervalMining(ctx, 1); err != nil {
		t.Fatal(err)
	}
	v.awaitConfirmed(t, []string{nextName})
	if r := v.receipt(tx); r == nil || r.Status != types.ReceiptStatusSuccessful {
		t.Fatalf("the lost transaction %s is not mined again: %+v", tx.Hex(), r)
	}
	if from, to := v.balances(t); from != v.funds-2*price || to != 2*price {
		t.Fatalf("payer %d, payTo %d; want %d, %d (two calls, each paid once)", from, to, v.funds-2*price, 2*price)
	}
	v.books(t, []x402.Key{pay.Key(v.a.Network), next.Key(v.a.Network)}, []common.Hash{tx, nextTx})
	if st := v.s.Stats(); st.Transactions != 2 || st.Reorged != 0 || st.ReorgedConfirmed != 1 {
		t.Errorf("settler stats %+v; want 2 transactions, the confirmed one sent again once", st)
	}
}

// A reorganisation takes away a paid call's transfer before it is deep,
// and on the new branch someone else submits the payer's signed
// authorization first (anyone holding it may). The relayer sends its same
// transaction again, which now fails (the authorization is used); the
// purchase is confirmed naming the other transaction, which paid payTo in
// full, and the payer, who paid once, owes nothing.
func TestFaultReorgThenPaidByAnotherTransaction(t *testing.T) {
	ctx := context.Background()
	v := newReorgEnv(t, 2)
	pay, name, tx := v.paidCall(t, "front-run after the reorg")
	v.waitFor(t, "the settler to see the transfer mined", func() bool { return v.s.Unconfirmed() == 1 })
	if err := v.a.Rollback(ctx, 1); err != nil {
		t.Fatal(err)
	}
	key, err := v.a.NewRelayer(ctx)
	if err != nil {
		t.Fatal(err)
	}
	other, err := evm.NewSettler(ctx, v.a.Client, key)
	if err != nil {
		t.Fatal(err)
	}
	front, err := other.Settle(ctx, pay, v.req)
	if err != nil || !front.Success {
		t.Fatalf("the other sender's settlement: %+v, %v", front, err)
	}
	if err := v.a.Mine(ctx, 1); err != nil {
		t.Fatal(err)
	}
	if err := v.a.IntervalMining(ctx, 1); err != nil {
		t.Fatal(err)
	}
	v.awaitConfirmed(t, []string{name})
	if r := v.receipt(tx); r == nil || r.Status == types.ReceiptStatusSuccessful {
		t.Errorf("farebox's transaction %s sent again: %+v; want mined and failed (the authorization was used)", tx.Hex(), r)
	}
	if from, to := v.balances(t); from != v.funds-price || to != price {
		t.Fatalf("payer %d, payTo %d; want %d, %d (paid once)", from, to, v.funds-price, price)
	}
	v.books(t, []x402.Key{pay.Key(v.a.Network)}, []common.Hash{common.HexToHash(front.Transaction)})
	if st := v.s.Stats(); st.Reorged != 1 {
		t.Errorf("settler stats %+v; want the reorg noticed once", st)
	}
}
