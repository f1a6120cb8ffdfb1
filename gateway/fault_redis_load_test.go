package gateway_test

import (
	"context"
	"crypto/ecdsa"
	"io"
	"math/big"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/farebox/farebox/gateway"
	"github.com/farebox/farebox/internal/testkit/chaintest"
	"github.com/farebox/farebox/internal/testkit/redistest"
	"github.com/farebox/farebox/x402"
	"github.com/farebox/farebox/x402/payer"
)

// redisRig is two farebox replicas (each with its own relayer) sharing one
// real Redis on anvil's USDC, and a few paying clients: the Redis fault
// tests' load and their chain-judged books.
type redisRig struct {
	a        *chaintest.Anvil
	srv      *redistest.Server
	replicas []*usdcFarebox
	req      *x402.Requirement
	keys     []*ecdsa.PrivateKey
	addrs    []common.Address
	before   []*big.Int
	payTo    *big.Int
	relayers []common.Address
	start    uint64 // the chain's head before the first call

	mu      sync.Mutex
	served  map[string]int // payment header value -> payer index
	sent    atomic.Int64
	refused atomic.Int64 // 503 with Retry-After
	other   atomic.Int64 // any other answer, or none
}

const rigClients = 3

func newRedisRig(t *testing.T, persist bool) *redisRig {
	t.Helper()
	return newRedisRigOn(t, persist, "")
}

// newRedisRigOn is newRedisRig with the replicas reading the chain at
// rpcURL (a fault proxy in front of anvil), anvil itself when "".
func newRedisRigOn(t *testing.T, persist bool, rpcURL string) *redisRig {
	t.Helper()
	a := sharedAnvil(t)
	if rpcURL == "" {
		rpcURL = a.RPCURL
	}
	ctx := context.Background()
	r := &redisRig{a: a, srv: redistest.StartServer(t, redistest.Options{Persist: persist}), served: map[string]int{}}
	pc := usdcPayments(a)
	pc.Settler = "chain"
	pc.RedisURL = "redis://" + r.srv.Addr()
	pc.Chain = gateway.ChainConfig{RPCURL: rpcURL, RelayerKeyEnv: relayerEnv}
	for range 2 {
		key, err := a.NewRelayer(ctx)
		if err != nil {
			t.Fatal(err)
		}
		r.relayers = append(r.relayers, crypto.PubkeyToAddress(key.PublicKey))
		env := map[string]string{relayerEnv: hexutil.Encode(crypto.FromECDSA(key))}
		r.replicas = append(r.replicas, startUSDCFarebox(t, a, pc, env))
	}
	r.req = r.replicas[0].offer(t, 2)
	for range rigClients {
		key, addr := fundedPayer(t, r.replicas[0], 1000*atomics)
		r.keys, r.addrs = append(r.keys, key), append(r.addrs, addr)
		r.before = append(r.before, usdcBalance(t, a, addr))
	}
	r.payTo = usdcBalance(t, a, r.replicas[0].payTo)
	head, err := a.Client.BlockNumber(ctx)
	if err != nil {
		t.Fatal(err)
	}
	r.start = head
	return r
}

// call pays one new authorization of client c on replica i and sorts the
// answer: served (200), refused (503 with Retry-After) or other.
func (r *redisRig) call(t *testing.T, c, i int, input string) int {
	name, value, err := payer.NewSigner(r.keys[c]).PaymentHeader(r.req, 2)
	if err != nil {
		t.Error(err)
		return 0
	}
	r.sent.Add(1)
	status, hdr, body := send(r.replicas[i%2].URL+"/responses", `{"model":"`+usdcModel+`","input":"`+input+`"}`, name, value)
	switch {
	case status == http.StatusOK:
		r.mu.Lock()
		r.served[value] = c
		r.mu.Unlock()
	case status == http.StatusServiceUnavailable && hdr.Get("Retry-After") != "":
		r.refused.Add(1)
	default:
		r.other.Add(1)
		t.Logf("client %d on replica %d: %d %s", c, i%2, status, body)
	}
	return status
}

// faultClient bounds a call caught by a fault that farebox does not
// answer: the test then fails on the call instead of hanging.
var faultClient = &http.Client{Timeout: 2 * time.Minute}

// send is post without t.Fatal (it runs in the clients' goroutines).
func send(url, body string, headers ...string) (int, http.Header, []byte) {
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		return 0, nil, []byte(err.Error())
	}
	req.Header.Set("Content-Type", "application/json")
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	res, err := faultClient.Do(req)
	if err != nil {
		return 0, nil, []byte(err.Error())
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, res.Header, b
}

// burst runs every client concurrently for n calls each, spread over both
// replicas; during (when set) runs beside them once a call was served.
func (r *redisRig) burst(t *testing.T, n int, during func()) (statuses []int) {
	var mu sync.Mutex
	var wg sync.WaitGroup
	first := make(chan struct{})
	var once sync.Once
	for c := range rigClients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range n {
				s := r.call(t, c, c+k, "load "+strconv.Itoa(c)+"/"+strconv.Itoa(k))
				if s == http.StatusOK {
					once.Do(func() { close(first) })
				}
				mu.Lock()
				statuses = append(statuses, s)
				mu.Unlock()
			}
		}()
	}
	if during != nil {
		select {
		case <-first:
			during()
		case <-time.After(time.Minute):
			t.Error("no call served before the fault")
		}
	}
	wg.Wait()
	return statuses
}

// awaitReady polls every replica's /readyz until it answers want.
func (r *redisRig) awaitReady(t *testing.T, want int) {
	t.Helper()
	for _, f := range r.replicas {
		url := strings.TrimSuffix(f.URL, "/v1") + "/readyz"
		for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
			res, err := http.Get(url)
			if err == nil {
				res.Body.Close()
				if res.StatusCode == want {
					break
				}
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s never answered %d", url, want)
			}
		}
	}
}

func (r *redisRig) modelCalls() int64 {
	return r.replicas[0].model.calls.Load() + r.replicas[1].model.calls.Load()
}

func (r *redisRig) balances(t *testing.T) []*big.Int {
	var out []*big.Int
	for _, a := range r.addrs {
		out = append(out, usdcBalance(t, r.a, a))
	}
	return out
}

// replays sends every served authorization again, with another body, to
// the replica that did not serve it last: none may be served twice.
func (r *redisRig) replays(t *testing.T) {
	r.mu.Lock()
	served := make(map[string]int, len(r.served))
	for v, c := range r.served {
		served[v] = c
	}
	r.mu.Unlock()
	i := 0
	for value := range served {
		i++
		status, _, body := send(r.replicas[i%2].URL+"/responses", `{"model":"`+usdcModel+`","input":"a replay"}`,
			x402.HeaderPaymentSignature, value)
		if status == http.StatusOK {
			t.Errorf("a served authorization was served again with another body: %s", body)
			for k, rep := range r.replicas {
				for _, l := range strings.Split(rep.logs.String(), "\n") {
					if strings.Contains(l, `"level":"WARN"`) || strings.Contains(l, `"level":"ERROR"`) {
						t.Logf("replica %d: %s", k, l)
					}
				}
			}
		}
	}
}

// judge checks the chain: each payer paid exactly the price of each call
// it was served, payTo got exactly their sum (nothing served unpaid,
// nothing charged twice, nothing charged for a call not served).
func (r *redisRig) judge(t *testing.T, fault string) {
	t.Helper()
	per := make([]int64, rigClients)
	r.mu.Lock()
	for _, c := range r.served {
		per[c]++
	}
	total := int64(len(r.served))
	r.mu.Unlock()
	var settled int64
	for c, now := range r.balances(t) {
		spent := new(big.Int).Sub(r.before[c], now).Int64()
		settled += spent / atomics
		if spent != per[c]*atomics {
			t.Errorf("%s: payer %d spent %d, was served %d calls of %d", fault, c, spent, per[c], atomics)
		}
	}
	got := new(big.Int).Sub(usdcBalance(t, r.a, r.replicas[0].payTo), r.payTo).Int64()
	if got != total*atomics {
		t.Errorf("%s: payTo got %d for %d served calls of %d", fault, got, total, atomics)
	}
	if m := r.modelCalls(); m < total {
		t.Errorf("%s: %d calls served, the model ran %d times", fault, total, m)
	}
	t.Logf("%s: sent %d, served %d, refused (503 Retry-After) %d, other %d, settled %d, model runs %d",
		fault, r.sent.Load(), total, r.refused.Load(), r.other.Load(), settled, r.modelCalls())
}

// While Redis is unreachable farebox takes nothing it cannot record: paid
// calls get 503 with Retry-After, the model does not run, no payer's
// balance moves, /readyz says not ready; once Redis is back (with its
// data), both replicas serve again by themselves. Calls caught in flight
// by the stop are judged by the chain with the rest.
func TestFaultRedisUnreachableRefusesPaidCallsAndRecovers(t *testing.T) {
	r := newRedisRig(t, true)
	r.burst(t, 4, r.srv.Stop)
	r.awaitReady(t, http.StatusServiceUnavailable)
	runs, bals := r.modelCalls(), r.balances(t)
	for _, s := range r.burst(t, 3, nil) {
		if s != http.StatusServiceUnavailable {
			t.Errorf("a paid call while Redis is down: %d, want 503", s)
		}
	}
	if r.modelCalls() != runs {
		t.Errorf("the model ran %d times while Redis was down", r.modelCalls()-runs)
	}
	for c, b := range r.balances(t) {
		if b.Cmp(bals[c]) != 0 {
			t.Errorf("payer %d's balance moved while Redis was down: %s -> %s", c, bals[c], b)
		}
	}
	r.srv.Start()
	r.awaitReady(t, http.StatusOK)
	for _, s := range r.burst(t, 3, nil) {
		if s != http.StatusOK {
			t.Errorf("a paid call after Redis came back: %d, want 200", s)
		}
	}
	r.replays(t)
	r.judge(t, "redis unreachable")
}

// Redis restarted with its data (an fsynced append-only file) under load:
// calls during the restart are refused with 503, both replicas serve again
// once it is back, no authorization served before or after is served
// again with another body, and the chain took exactly what was served.
func TestFaultRedisRestartedWithDataUnderLoad(t *testing.T) {
	r := newRedisRig(t, true)
	r.burst(t, 5, r.srv.Restart)
	r.awaitReady(t, http.StatusOK)
	for _, s := range r.burst(t, 2, nil) {
		if s != http.StatusOK {
			t.Errorf("a paid call after the restart: %d, want 200", s)
		}
	}
	r.replays(t)
	r.judge(t, "redis restarted with data")
	for i, f := range r.replicas {
		if strings.Contains(f.logs.String(), "Redis lost farebox's data") {
			t.Errorf("replica %d reported a loss after a restart that kept the data", i)
		}
	}
}

// Redis restarted empty under load: every replica sees the loss (its
// store epoch is gone) and says so in its log, serves again, and no
// authorization is served twice although the journal forgot them all:
// the chain took exactly what was served.
func TestFaultRedisRestartedEmptyUnderLoad(t *testing.T) {
	r := newRedisRig(t, false)
	r.burst(t, 5, r.srv.Restart)
	r.awaitReady(t, http.StatusOK)
	for _, s := range r.burst(t, 2, nil) {
		if s != http.StatusOK {
			t.Errorf("a paid call after the restart: %d, want 200", s)
		}
	}
	r.replays(t)
	r.judge(t, "redis restarted empty")
	for i, f := range r.replicas {
		if !strings.Contains(f.logs.String(), "Redis lost farebox's data") {
			t.Errorf("replica %d did not log the loss", i)
		}
	}
}
