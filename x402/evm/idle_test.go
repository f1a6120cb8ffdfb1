package evm_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"math/big"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/farebox/farebox/x402"
	"github.com/farebox/farebox/x402/evm"
)

// countingRPC forwards JSON-RPC over HTTP to a node and counts the
// methods it was asked for.
type countingRPC struct {
	mu      sync.Mutex
	methods map[string]int
	total   int
}

// startCountingRPC starts the counting proxy in front of upstream and
// dials it; both close when t ends.
func startCountingRPC(t *testing.T, upstream string) (*countingRPC, *ethclient.Client) {
	c := &countingRPC{methods: map[string]int{}}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		c.mu.Lock()
		c.total++
		for _, m := range bytes.Split(body, []byte(`"method":"`))[1:] {
			if i := bytes.IndexByte(m, '"'); i > 0 {
				c.methods[string(m[:i])]++
			}
		}
		c.mu.Unlock()
		resp, err := http.Post(upstream, "application/json", bytes.NewReader(body))
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		defer resp.Body.Close()
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(resp.StatusCode)
		io.Copy(w, resp.Body)
	}))
	t.Cleanup(srv.Close)
	client, err := ethclient.DialContext(context.Background(), srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(client.Close)
	return c, client
}

func (c *countingRPC) snapshot() (int, map[string]int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	m := make(map[string]int, len(c.methods))
	for k, v := range c.methods {
		m[k] = v
	}
	return c.total, m
}

// An idle settler asks the node nothing: the head follower runs only
// while a transaction awaits its receipt, so a gateway with no payments in
// flight costs neither CPU nor RPC quota. Anvil over HTTP has no head
// subscription, the case where the follower polls.
func TestIdleSettlerMakesNoRequests(t *testing.T) {
	f := fixtures[1]
	ctx := context.Background()
	rpc, client := startCountingRPC(t, f.anvil.RPCURL)
	s := ownSettlerOn(t, f, client)
	p, req := f.pay(1000)
	if rc, err := s.Settle(ctx, p, req); err != nil || !rc.Success {
		t.Fatalf("settle: %v (%+v)", err, rc)
	}
	// Settle returned after the receipt: the follower may still be
	// finishing the head it is on. Whatever it asks after that is idle cost.
	time.Sleep(500 * time.Millisecond)
	before, _ := rpc.snapshot()
	time.Sleep(2 * time.Second)
	after, methods := rpc.snapshot()
	t.Logf("idle for 2 s: %d requests", after-before)
	if idle := after - before; idle > 2 {
		t.Fatalf("an idle settler made %d requests in 2 s (all since start: %v)", idle, methods)
	}
}

// Awaiting a transaction that does not come (another replica's, never
// sent) on a chain that mines only on demand polls ever more slowly: at
// most a few requests per second rather than one per PollInterval.
func TestAwaitOnAQuietChainBacksOff(t *testing.T) {
	f := fixtures[1]
	ctx := context.Background()
	rpc, client := startCountingRPC(t, f.anvil.RPCURL)
	s := ownSettlerOn(t, f, client)
	p, _ := f.pay(1000)
	before, _ := rpc.snapshot()
	actx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	if err := s.Await(actx, common.Hash{1}, p); !errors.Is(err, evm.ErrNotMined) {
		t.Fatalf("await of a transaction never sent: %v", err)
	}
	// 3 s at PollInterval (20 ms) would be 150 polls.
	after, methods := rpc.snapshot()
	t.Logf("awaiting for 3 s: %d requests", after-before)
	if n := after - before; n > 30 {
		t.Fatalf("awaiting on a quiet chain for 3 s made %d requests (all since start: %v)", n, methods)
	}
}

// On a chain that mines at a regular interval, a transaction just sent is
// mined with the block already due: the head follower does not poll for
// it. Sending under load used to wake a poll per transaction (one
// eth_blockNumber each); now the follower polls about once per block
// whatever is sent. Anvil over HTTP with 2 s blocks: no head subscription.
func TestSendingDoesNotPollAnIntervalMinedChain(t *testing.T) {
	f := slow
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	rpc, client := startCountingRPC(t, f.anvil.RPCURL)
	s := ownSettlerOn(t, f, client)
	// The follower learns the interval from the timestamps of the last
	// eight blocks: wait until they are all interval-mined (the chain's
	// contracts were deployed on automine, many blocks in one second).
	for {
		head, err := f.anvil.Client.HeaderByNumber(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		if n := head.Number.Uint64(); n >= 8 {
			old, err := f.anvil.Client.HeaderByNumber(ctx, new(big.Int).SetUint64(n-8))
			if err != nil {
				t.Fatal(err)
			}
			if head.Time >= old.Time+8 {
				break
			}
		}
		select {
		case <-ctx.Done():
			t.Fatal("the 2 s chain did not mine eight blocks at its interval")
		case <-time.After(500 * time.Millisecond):
		}
	}
	// One transaction after another, never more than one at a time, so
	// each is its own: for a first stretch of blocks (the follower learns
	// the chain's pace), then counted over the next three blocks.
	type sentTx struct {
		hash common.Hash
		p    *x402.Payment
	}
	send := func() sentTx {
		p, req := f.pay(1)
		rc, err := s.Broadcast(ctx, p, req, nil)
		if err != nil || !rc.Success {
			t.Fatalf("broadcast: %+v %v", rc, err)
		}
		return sentTx{common.HexToHash(rc.Transaction), p}
	}
	sendUntil := func(blocks uint64) (sent int, last sentTx) {
		start, err := f.anvil.Client.BlockNumber(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for {
			last = send()
			sent++
			if n, err := f.anvil.Client.BlockNumber(ctx); err != nil {
				t.Fatal(err)
			} else if n >= start+blocks {
				return sent, last
			}
		}
	}
	sendUntil(3)
	before, _ := rpc.snapshot()
	_, m0 := rpc.snapshot()
	sent, last := sendUntil(3)
	_, m1 := rpc.snapshot()
	polls := m1["eth_blockNumber"] - m0["eth_blockNumber"]
	t.Logf("%d transactions sent over 3 blocks; the settler polled eth_blockNumber %d times (%d requests in all)", sent, polls, func() int { n, _ := rpc.snapshot(); return n - before }())
	if sent < 30 {
		t.Fatalf("only %d transactions sent over 3 blocks: too few to tell", sent)
	}
	if polls > sent/4 {
		t.Fatalf("the settler polled eth_blockNumber %d times for %d transactions sent over 3 blocks: it polls per transaction", polls, sent)
	}
	if err := s.Await(ctx, last.hash, last.p); err != nil {
		t.Fatalf("await the last: %v", err)
	}

	// Idle (the follower stops once nothing is in flight), then busy again:
	// what the follower learned of the chain's pace is kept, so the next
	// busy spell does not poll per transaction while it learns it again.
	for quiet, n := 0, -1; quiet < 5; {
		select {
		case <-ctx.Done():
			t.Fatal("the settler did not go quiet")
		case <-time.After(100 * time.Millisecond):
		}
		if m, _ := rpc.snapshot(); m == n {
			quiet++
		} else {
			quiet, n = 0, m
		}
	}
	// Long enough that heads came while nobody watched.
	idleFrom, err := f.anvil.Client.BlockNumber(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for n := idleFrom; n < idleFrom+2; {
		select {
		case <-ctx.Done():
			t.Fatal("the 2 s chain stopped")
		case <-time.After(200 * time.Millisecond):
		}
		if n, err = f.anvil.Client.BlockNumber(ctx); err != nil {
			t.Fatal(err)
		}
	}
	_, m0 = rpc.snapshot()
	sent, last = sendUntil(2)
	_, m1 = rpc.snapshot()
	polls = m1["eth_blockNumber"] - m0["eth_blockNumber"]
	t.Logf("after an idle spell: %d transactions sent over 2 blocks, %d polls", sent, polls)
	if polls > sent/4 {
		t.Fatalf("after an idle spell the settler polled eth_blockNumber %d times for %d transactions sent over 2 blocks", polls, sent)
	}
	if err := s.Await(ctx, last.hash, last.p); err != nil {
		t.Fatalf("await the last: %v", err)
	}
}
