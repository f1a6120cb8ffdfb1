package evm_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/farebox/farebox/x402/evm"
)

// countingRPC forwards JSON-RPC over HTTP to a node and counts the
// methods it was asked for.
type countingRPC struct {
	mu      sync.Mutex
	methods map[string]int
	total   int
}

func startCountingRPC(t *testing.T, upstream string) (*countingRPC, string) {
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
	return c, srv.URL
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
	rpc, url := startCountingRPC(t, f.anvil.RPCURL)
	client, err := ethclient.DialContext(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	relayer, err := f.newRelayer(ctx)
	if err != nil {
		t.Fatal(err)
	}
	s, err := evm.NewSettler(ctx, client, relayer)
	if err != nil {
		t.Fatal(err)
	}
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
	rpc, url := startCountingRPC(t, f.anvil.RPCURL)
	client, err := ethclient.DialContext(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	relayer, err := f.newRelayer(ctx)
	if err != nil {
		t.Fatal(err)
	}
	s, err := evm.NewSettler(ctx, client, relayer)
	if err != nil {
		t.Fatal(err)
	}
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
