package gateway_test

import (
	"context"
	"math/big"
	"net/http"
	"strings"
	"testing"
	"time"

	ethtypes "github.com/ethereum/go-ethereum/core/types"
	"github.com/redis/go-redis/v9"

	"github.com/farebox/farebox/internal/testkit/chaintest"
	"github.com/farebox/farebox/internal/testkit/faultproxy"
)

// chainFault is two replicas reading the chain through a fault: the
// Toxiproxy proxy (tcp) in front of the JSON-RPC proxy (rpc) in front of
// anvil.
type chainFault struct {
	*redisRig
	tcp *faultproxy.Proxy
	rpc *faultproxy.RPC
}

func newChainFault(t *testing.T) *chainFault {
	t.Helper()
	a := sharedAnvil(t)
	rpc := faultproxy.StartRPC(t, a.RPCURL)
	tcp := faultproxy.Start(t, strings.TrimPrefix(rpc.URL(), "http://"))
	return &chainFault{redisRig: newRedisRigOn(t, true, tcp.URL()), tcp: tcp, rpc: rpc}
}

// run puts the fault on mid-load (inject), sends more calls while it
// lasts, heals it and sends more. While the fault lasts every call is
// served or refused with 503 and Retry-After; when refuses, none is
// served, the model does not run and no balance moves. After the heal
// both replicas serve again by themselves, every served call settles
// once (the chain the judge), no relayer transaction reverts, and no
// served authorization is served again.
func (f *chainFault) run(t *testing.T, name string, refuses bool, inject, heal func()) {
	f.burst(t, 3, inject)
	runs, bals := f.modelCalls(), f.balances(t)
	for _, s := range f.burst(t, 2, nil) {
		if s != http.StatusServiceUnavailable && (refuses || s != http.StatusOK) {
			t.Errorf("%s: a paid call while it lasts: %d", name, s)
		}
	}
	if refuses {
		if m := f.modelCalls(); m != runs {
			t.Errorf("%s: the model ran %d times while paid calls were refused", name, m-runs)
		}
		for c, b := range f.balances(t) {
			if b.Cmp(bals[c]) != 0 {
				t.Errorf("%s: payer %d's balance moved while paid calls were refused: %s -> %s", name, c, bals[c], b)
			}
		}
	}
	heal()
	f.awaitReady(t, http.StatusOK)
	for _, s := range f.burst(t, 2, nil) {
		if s != http.StatusOK {
			t.Errorf("%s: a paid call after the heal: %d, want 200", name, s)
		}
	}
	f.awaitSettled(t, name)
	f.awaitJournalDone(t, name)
	f.replays(t)
	f.judge(t, name)
	sent, reverted := f.relayerTransactions(t)
	t.Logf("%s: %d relayer transactions, %d reverted", name, sent, reverted)
	if reverted != 0 {
		t.Errorf("%s: %d relayer transactions reverted (the operator's gas)", name, reverted)
	}
}

// awaitSettled waits until payTo holds the price of every served call:
// settlements held up by the fault are sent by the settler on its own.
func (r *redisRig) awaitSettled(t *testing.T, name string) {
	t.Helper()
	r.mu.Lock()
	want := new(big.Int).Add(r.payTo, big.NewInt(int64(len(r.served))*atomics))
	r.mu.Unlock()
	for deadline := time.Now().Add(2 * time.Minute); ; time.Sleep(100 * time.Millisecond) {
		got := usdcBalance(t, r.a, r.replicas[0].payTo)
		if got.Cmp(want) >= 0 || time.Now().After(deadline) {
			return // judge says what is wrong, if anything
		}
	}
}

// awaitJournalDone waits until the shared journal holds no unfinished
// purchase: every settlement the fault held up was followed to its end by
// the replicas on their own.
func (r *redisRig) awaitJournalDone(t *testing.T, name string) {
	t.Helper()
	rdb := redis.NewClient(&redis.Options{Addr: r.srv.Addr()})
	defer rdb.Close()
	for deadline := time.Now().Add(2 * time.Minute); ; time.Sleep(100 * time.Millisecond) {
		open, err := rdb.SCard(context.Background(), "farebox:settle:open").Result()
		if err == nil && open == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Errorf("%s: %d purchases still unfinished in the journal (%v)", name, open, err)
			return
		}
	}
}

// relayerTransactions counts the transactions the replicas' relayers
// had mined since the rig started, and those that reverted.
func (r *redisRig) relayerTransactions(t *testing.T) (sent, reverted int) {
	t.Helper()
	ctx := context.Background()
	head, err := r.a.Client.BlockNumber(ctx)
	if err != nil {
		t.Fatal(err)
	}
	signer := ethtypes.LatestSignerForChainID(big.NewInt(chaintest.ChainID))
	for n := r.start + 1; n <= head; n++ {
		b, err := r.a.Client.BlockByNumber(ctx, new(big.Int).SetUint64(n))
		if err != nil {
			t.Fatal(err)
		}
		for _, tx := range b.Transactions() {
			from, err := ethtypes.Sender(signer, tx)
			if err != nil || !r.isRelayer(from.Hex()) {
				continue
			}
			sent++
			rec, err := r.a.Client.TransactionReceipt(ctx, tx.Hash())
			if err != nil {
				t.Fatal(err)
			}
			if rec.Status != ethtypes.ReceiptStatusSuccessful {
				reverted++
			}
		}
	}
	return sent, reverted
}

func (r *redisRig) isRelayer(addr string) bool {
	for _, a := range r.relayers {
		if strings.EqualFold(a.Hex(), addr) {
			return true
		}
	}
	return false
}

// The chain's RPC node refuses connections (down) under paid load: paid
// calls are refused 503 with Retry-After before the model runs, nothing
// moves; once it is back both replicas serve again and settle what they
// served, once.
func TestFaultRPCRefusesConnections(t *testing.T) {
	f := newChainFault(t)
	f.run(t, "rpc node down", true, f.tcp.Refuse, f.tcp.Accept)
}

// The RPC node accepts connections and never answers: the chain's check
// of a payment gives up within its timeout, so paid calls are refused 503
// with Retry-After instead of hanging; after the heal everything settles
// once.
func TestFaultRPCHangs(t *testing.T) {
	f := newChainFault(t)
	f.run(t, "rpc node hangs", true, f.tcp.Hang, f.tcp.Heal)
}

// The RPC node answers every request 502 (its own load balancer with no
// backend): as when it is down.
func TestFaultRPCAnswers5xx(t *testing.T) {
	f := newChainFault(t)
	f.run(t, "rpc node answers 502", true, func() { f.rpc.Fail(http.StatusBadGateway) }, f.rpc.Heal)
}

// The RPC node lags: its head stops while the chain goes on, so it shows
// no receipt of what farebox sends and the old state at "latest". Calls
// are served or refused, and after it catches up every served call is
// settled once, with no reverted transaction.
func TestFaultRPCLagsBehind(t *testing.T) {
	f := newChainFault(t)
	f.run(t, "rpc node lags behind", false, f.rpc.Lag, f.rpc.Heal)
}
