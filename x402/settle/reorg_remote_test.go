package settle_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/farebox/farebox/internal/testkit/chaintest"
	"github.com/farebox/farebox/x402"
	"github.com/farebox/farebox/x402/evm"
	"github.com/farebox/farebox/x402/facilitator"
	"github.com/farebox/farebox/x402/settle"
)

// remoteReorgEnv is reorgEnv settling through the x402 reference
// facilitator on its own anvil (one block per transaction until a test
// says otherwise), farebox reading that chain as payments.chain.rpc_url
// with payments.chain.confirmations = depth; settles counts the /settle
// requests the facilitator received.
type remoteReorgEnv struct {
	*reorgEnv
	relayer common.Address // the facilitator's
	settles atomic.Int32
}

func newRemoteReorgEnv(t *testing.T, depth uint64) *remoteReorgEnv {
	t.Helper()
	ctx := context.Background()
	a := chaintest.StartAnvil(t)
	key, err := a.NewRelayer(ctx)
	if err != nil {
		t.Fatal(err)
	}
	ref, err := url.Parse(chaintest.StartFacilitator(t, a.RPCURL, key))
	if err != nil {
		t.Fatal(err)
	}
	v := &remoteReorgEnv{relayer: crypto.PubkeyToAddress(key.PublicKey)}
	proxy := httputil.NewSingleHostReverseProxy(ref)
	counted := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == ref.Path+"/settle" {
			v.settles.Add(1)
		}
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(counted.Close)
	fc, err := facilitator.New(counted.URL + ref.Path)
	if err != nil {
		t.Fatal(err)
	}
	reader := evm.NewReader(a.Client)
	reader.PollInterval, reader.Depth = 20*time.Millisecond, depth
	v.reorgEnv = newReorgEnvWith(t, a, settle.Config{Settler: fc, Reader: reader, RemoteResend: 200 * time.Millisecond})
	return v
}

// sent is how many transactions the facilitator's relayer has on the
// chain now (its nonce at the latest block).
func (v *remoteReorgEnv) sent(t *testing.T) uint64 {
	t.Helper()
	n, err := v.a.Client.NonceAt(context.Background(), v.relayer, nil)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// A facilitator (the x402 reference) settles three paid calls, each
// answered with its success receipt; farebox, reading the chain with
// payments.chain.confirmations = 4, follows each transaction to that
// depth rather than booking it at once. A reorganisation takes the three
// blocks away first: the chain shows the payer's money back. farebox
// notices the transactions left the chain, reads the token (each
// authorization unused again, still valid) and sends each settlement to
// the facilitator again, which pays it in a new transaction; once those
// are deep every call is confirmed once, naming the transaction that paid
// it, and the chain shows the payer down by exactly three prices, payTo up
// as much, and the facilitator's relayer with three transactions, none
// reverted.
func TestFaultReorgRemovesAFacilitatorsSettlement(t *testing.T) {
	const calls = 3
	ctx := context.Background()
	v := newRemoteReorgEnv(t, calls+1)
	var names []string
	var keys []x402.Key
	var first []common.Hash
	for i := range calls {
		pay, name, tx := v.paidCall(t, fmt.Sprint("call ", i))
		names, keys, first = append(names, name), append(keys, pay.Key(v.a.Network)), append(first, tx)
	}
	if from, to := v.balances(t); from != v.funds-calls*price || to != calls*price {
		t.Fatalf("before the reorg: payer %d, payTo %d; want %d, %d", from, to, v.funds-calls*price, calls*price)
	}
	if n := v.e.Count(settle.EventConfirmed); n != 0 {
		t.Fatalf("%d confirmed before any is %d blocks deep", n, calls+1)
	}
	v.rollback(t, calls, first)
	// farebox sends each settlement again; the facilitator mines each in
	// a block of its own (anvil mines one per transaction).
	v.waitFor(t, "the facilitator to pay the calls again", func() bool { return v.sent(t) == calls })
	if err := v.a.Mine(ctx, calls+1); err != nil {
		t.Fatal(err)
	}
	v.awaitConfirmed(t, names)
	var paid []common.Hash
	for i, k := range keys {
		en, err := v.j.Get(ctx, k)
		if err != nil {
			t.Fatal(err)
		}
		if en.Tx == first[i] {
			t.Errorf("entry %d names the transaction the reorg took away", i)
		}
		if r := v.receipt(en.Tx); r == nil || r.Status != types.ReceiptStatusSuccessful {
			t.Errorf("entry %d names %s, not a mined transfer: %+v", i, en.Tx.Hex(), r)
		}
		if en.Receipt == nil || en.Receipt.Transaction != en.Tx.Hex() || !en.Receipt.Success {
			t.Errorf("entry %d's receipt %+v; want a success naming %s", i, en.Receipt, en.Tx.Hex())
		}
		paid = append(paid, en.Tx)
	}
	if from, to := v.balances(t); from != v.funds-calls*price || to != calls*price {
		t.Fatalf("after: payer %d, payTo %d; want %d, %d (each call paid once)", from, to, v.funds-calls*price, calls*price)
	}
	if n := v.sent(t); n != calls {
		t.Errorf("the facilitator's relayer has %d transactions on the chain; want %d (none reverted)", n, calls)
	}
	// The reference facilitator may refuse one of the concurrent resends
	// (its relayer's nonce raced): farebox sends that one again later.
	if n := v.settles.Load(); n < 2*calls {
		t.Errorf("the facilitator got %d settle requests; want each call's, then each again after the reorg (%d at least)", n, 2*calls)
	}
	v.books(t, keys, paid)
	t.Logf("%d calls answered; after the reorg %d settle requests, %d transactions on chain, %d confirmed, payer down %d",
		calls, v.settles.Load(), v.sent(t), v.e.Count(settle.EventConfirmed), calls*price)
}

// A reorganisation takes away a facilitator's settlement before it is
// deep, and on the new branch someone else submits the payer's signed
// authorization first (anyone holding it may). farebox sends the
// settlement to the facilitator again, which refuses it (the
// authorization is used); once the other transaction is deep the purchase
// is confirmed naming it (it paid payTo in full), and the payer, who paid
// once, owes nothing.
func TestFaultReorgThenAFacilitatorsSettlementPaidByAnother(t *testing.T) {
	ctx := context.Background()
	v := newRemoteReorgEnv(t, 2)
	pay, name, tx := v.paidCall(t, "front-run after the reorg")
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
	v.waitFor(t, "farebox to send the settlement again", func() bool { return v.settles.Load() >= 2 })
	if n := v.e.Count(settle.EventConfirmed); n != 0 {
		t.Fatalf("%d confirmed before the other transaction is deep", n)
	}
	if err := v.a.Mine(ctx, 2); err != nil {
		t.Fatal(err)
	}
	v.awaitConfirmed(t, []string{name})
	if v.receipt(tx) != nil {
		t.Errorf("the facilitator's first transaction %s is on the chain again", tx.Hex())
	}
	if from, to := v.balances(t); from != v.funds-price || to != price {
		t.Fatalf("payer %d, payTo %d; want %d, %d (paid once)", from, to, v.funds-price, price)
	}
	if n := v.sent(t); n != 0 {
		t.Errorf("the facilitator's relayer has %d transactions on the chain; want 0 (the other sender paid)", n)
	}
	v.books(t, []x402.Key{pay.Key(v.a.Network)}, []common.Hash{common.HexToHash(front.Transaction)})
}
