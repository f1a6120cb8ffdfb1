package faultproxy

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// RPC is an HTTP proxy in front of a JSON-RPC node (anvil), for the faults
// a TCP proxy cannot make: a node answering every request with a 5xx, and
// a node lagging behind the chain (its head frozen at one block while the
// chain goes on).
type RPC struct {
	t      testing.TB
	srv    *httptest.Server
	target string

	mu     sync.Mutex
	status int    // when not 0, every request is answered with it
	head   uint64 // when lagging, the block the node is stuck at
	lag    bool

	// Requests counts the requests that reached the proxy.
	Requests atomic.Int64
}

// StartRPC runs the proxy in front of target (an http:// URL), stopped
// when the test ends.
func StartRPC(t testing.TB, target string) *RPC {
	r := &RPC{t: t, target: target}
	r.srv = httptest.NewServer(http.HandlerFunc(r.serve))
	t.Cleanup(r.srv.Close)
	return r
}

// URL is the proxy's address, the rpc_url to give farebox.
func (r *RPC) URL() string { return r.srv.URL }

// Fail answers every request with status (a 502 from the node's own
// load balancer, a 503 from a provider over its quota) until Heal.
func (r *RPC) Fail(status int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.status = status
}

// Lag freezes the node's view at the chain's current block until Heal:
// "latest" and "pending" mean that block, eth_blockNumber answers it,
// and a transaction mined after it has no receipt. Transactions sent to it
// are still relayed, as a lagging node's peers still hear them.
func (r *RPC) Lag() {
	r.t.Helper()
	res, err := r.forward([]byte(`{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber","params":[]}`))
	if err != nil {
		r.t.Fatalf("faultproxy: reading the head: %v", err)
	}
	var out struct{ Result string }
	if err := json.Unmarshal(res, &out); err != nil {
		r.t.Fatalf("faultproxy: reading the head: %v", err)
	}
	head, err := strconv.ParseUint(strings.TrimPrefix(out.Result, "0x"), 16, 64)
	if err != nil {
		r.t.Fatalf("faultproxy: head %q: %v", out.Result, err)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.head, r.lag = head, true
}

// Heal ends Fail and Lag: the node answers with the chain's state again.
func (r *RPC) Heal() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.status, r.lag = 0, false
}

func (r *RPC) serve(w http.ResponseWriter, req *http.Request) {
	r.Requests.Add(1)
	body, err := io.ReadAll(req.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	r.mu.Lock()
	status, lag, head := r.status, r.lag, r.head
	r.mu.Unlock()
	if status != 0 {
		http.Error(w, http.StatusText(status), status)
		return
	}
	if lag {
		r.serveBehind(w, body, head)
		return
	}
	res, err := r.forward(body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(res)
}

func (r *RPC) forward(body []byte) ([]byte, error) {
	res, err := http.Post(r.target, "application/json", bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	defer res.Body.Close()
	return io.ReadAll(res.Body)
}
