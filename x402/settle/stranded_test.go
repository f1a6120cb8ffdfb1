package settle_test

import (
	"context"
	"errors"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"testing"
	"time"

	ethereum "github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/farebox/farebox/x402/evm"
	"github.com/farebox/farebox/x402/settle"
)

// TestFaultAnAdoptedTransferThatCannotBeMinedIsSentAgainAtOnce: replica a
// broadcasts two purchases with mining stopped; its first transaction
// leaves the pool (never sent, in effect: a died between journaling and
// sending it) and its second waits behind that nonce gap, which only a's
// relayer could fill. a dies. Replica b adopts both and, rather than
// awaiting transactions no block will ever carry (for its whole await:
// 10 minutes here, the client retrying the same payment meanwhile), sends
// each unused authorization again from its own relayer: both confirmed
// within the test's minute, each naming b's transaction, the payer down
// exactly two prices, payTo up as much, nothing reverted.
func TestFaultAnAdoptedTransferThatCannotBeMinedIsSentAgainAtOnce(t *testing.T) {
	r := newReplicas(t)
	ctx := context.Background()
	payerBefore, payToBefore := r.balances(t)
	const stale = time.Minute
	confirmed := make(chan *settle.Entry, 4)
	b := r.engine(t, "b", settle.Config{StaleAfter: stale, AwaitTimeout: 10 * time.Minute,
		Now: func() time.Time { return time.Now().Add(stale + time.Second) },
		OnEvent: func(ev settle.Event) {
			if ev.Kind == settle.EventConfirmed {
				confirmed <- ev.Entry
			}
		}})
	a, node := r.mortal(t, "a", settle.Config{StaleAfter: stale})
	r.automine(t, false)
	gap := r.buy(t, a, "its transaction leaves the pool")
	queued := r.buy(t, a, "its transaction waits behind the gap")
	dropped := entryTx(t, r, gap)
	if err := r.a.Client.Client().CallContext(ctx, nil, "anvil_dropTransaction", dropped); err != nil {
		t.Fatal(err)
	}
	if _, _, err := r.a.Client.TransactionByHash(ctx, common.HexToHash(dropped)); !errors.Is(err, ethereum.NotFound) {
		t.Fatalf("%s still in the pool after anvil_dropTransaction: %v", dropped, err)
	}
	a.Close()    // dies, its relayer's follower too: nobody will send a's first nonce
	node.Close() // its connection to the chain goes with it
	r.automine(t, true)
	if n, err := b.Adopt(ctx); err != nil || n != 2 {
		t.Fatalf("Adopt = %d, %v; want a's 2 entries", n, err)
	}
	left := map[string]bool{gap: true, queued: true}
	for len(left) > 0 {
		select {
		case en := <-confirmed:
			delete(left, en.Name())
			rc, err := r.a.Client.TransactionReceipt(ctx, en.Tx)
			if err != nil || rc.Status != types.ReceiptStatusSuccessful {
				t.Errorf("%s confirmed naming %s: receipt %+v, %v; want a successful transfer", en.Name(), en.Tx.Hex(), rc, err)
			}
		case <-time.After(time.Minute):
			t.Fatalf("not confirmed within a minute: %v (b awaits transactions no block will carry)\n%s", left, r.logs.String())
		}
	}
	payerAfter, payToAfter := r.balances(t)
	if payerBefore-payerAfter != 2*price || payToAfter-payToBefore != 2*price {
		t.Fatalf("on chain the payer lost %d and payTo gained %d, want %d each", payerBefore-payerAfter, payToAfter-payToBefore, 2*price)
	}
	if n := strings.Count(r.logs.String(), "cannot be mined as it stands"); n != 2 {
		t.Errorf("logged %d stranded transactions, want 2", n)
	}
}

// entryTx is the transaction the journal records for the entry named.
func entryTx(t *testing.T, r *replicas, name string) string {
	t.Helper()
	list, err := r.journal.Unfinished(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, en := range list {
		if en.Name() == name {
			return en.Tx.Hex()
		}
	}
	t.Fatalf("no unfinished entry %s", name)
	return ""
}

// mortal is engine reaching the chain through a proxy of its own, which
// the test closes to kill the replica's relayer with it (its settler's
// follower would otherwise send its pending transactions again).
func (r *replicas) mortal(t *testing.T, instance string, cfg settle.Config) (*settle.Engine, *httptest.Server) {
	t.Helper()
	ctx := context.Background()
	target, err := url.Parse(r.a.RPCURL)
	if err != nil {
		t.Fatal(err)
	}
	proxy := httptest.NewServer(httputil.NewSingleHostReverseProxy(target))
	t.Cleanup(proxy.Close)
	node, err := evm.Dial(ctx, proxy.URL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(node.Close)
	return r.engineVia(t, instance, cfg, r.rdb, node), proxy
}
