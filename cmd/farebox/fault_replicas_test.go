package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	ethereum "github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/farebox/farebox/books"
	"github.com/farebox/farebox/internal/testkit/haproxytest"
	"github.com/farebox/farebox/x402"
	"github.com/farebox/farebox/x402/payer"
	goredis "github.com/redis/go-redis/v9"
	"github.com/tidwall/gjson"
)

// lbCall is one paid call through the load balancer, retried with the
// same authorization (as the SDKs retry a 5xx or a 409) until it ends.
type lbCall struct {
	from     common.Address
	nonce    common.Hash
	first    int    // the first attempt's status (0: no HTTP answer)
	final    int    // the last attempt's status (0: none within the deadline)
	servedBy string // the backend of the final answer
	attempts int
	body     string
}

// lbLoad is concurrent paying clients sending calls through the load
// balancer until stopped.
type lbLoad struct {
	url   string
	offer *x402.Requirement
	stop  chan struct{}
	wg    sync.WaitGroup
	mu    sync.Mutex
	calls []*lbCall
	ok    map[string]*atomic.Int64 // answers 200 by backend
	total atomic.Int64             // answers 200
}

func (l *lbLoad) client(t *testing.T, id int, signer *payer.Signer) {
	defer l.wg.Done()
	for i := 0; ; i++ {
		select {
		case <-l.stop:
			return
		default:
		}
		name, value, err := signer.PaymentHeader(l.offer, 2)
		if err != nil {
			t.Error(err)
			return
		}
		pay, err := x402.DecodePayment(value, 2)
		if err != nil {
			t.Error(err)
			return
		}
		c := &lbCall{from: pay.Authorization.From, nonce: pay.Authorization.Nonce}
		input := fmt.Sprintf("client %d call %d", id, i)
		l.send(c, fmt.Sprintf(`{"model":"paced","input":%q}`, input), name, value)
		if c.final == 200 && !strings.Contains(c.body, input) {
			t.Errorf("%s: a 200 without its answer: %s", input, c.body)
		}
		l.mu.Lock()
		l.calls = append(l.calls, c)
		l.mu.Unlock()
		if c.final == 200 {
			l.total.Add(1)
			l.ok[c.servedBy].Add(1)
		}
	}
}

// send posts the call, again with the same payment after an error, a 5xx
// or a 409 (in progress), for up to two minutes.
func (l *lbLoad) send(c *lbCall, body, name, value string) {
	for deadline := time.Now().Add(2 * time.Minute); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		c.attempts++
		req, _ := http.NewRequest(http.MethodPost, l.url+"/v1/responses", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set(name, value)
		res, err := http.DefaultClient.Do(req)
		status := 0
		if err == nil {
			b, _ := io.ReadAll(res.Body)
			res.Body.Close()
			status, c.body, c.servedBy = res.StatusCode, string(b), res.Header.Get(haproxytest.ServerHeader)
		}
		if c.attempts == 1 {
			c.first = status
		}
		c.final = status
		if status != 0 && status < 500 && status != http.StatusConflict {
			return
		}
	}
}

// TestFaultReplicaKilledBehindTheLoadBalancer: three `farebox serve`
// replicas on one Redis and one anvil behind HAProxy; six clients pay
// calls through HAProxy; one replica is killed with SIGKILL once it has
// answered a few, with its latest transfers still in flight. The
// survivors take over its purchases (payments.adopt_after: 3s), and the
// chain judges: each payer lost exactly the price of its calls answered
// 200, payTo gained their sum, every answered authorization was used once
// and no other was, no relayer transaction reverted, nothing is left in
// flight in the journal, and the books at a survivor count every
// answered call as paid, charged and settled. With blocks every 2 s each
// orphan is adopted by one survivor; with mining stopped from the kill
// until the first adoption, the orphans' transfers are unmined when
// adopted, and the survivors' own purchases, unmined or still queued
// past adopt_after too, are not (the survivors beat).
func TestFaultReplicaKilledBehindTheLoadBalancer(t *testing.T) {
	t.Run("blocks every 2 s", func(t *testing.T) { replicaKilled(t, false) })
	t.Run("mining stopped until the adoption", func(t *testing.T) { replicaKilled(t, true) })
}

func replicaKilled(t *testing.T, stopMining bool) {
	s := newReplicaSetWith(t, 3, "info", "  adopt_after: 3s\n")
	var backends []string
	for _, r := range s.replicas {
		backends = append(backends, strings.TrimPrefix(strings.TrimSuffix(r.base, "/v1"), "http://"))
	}
	lb := haproxytest.Start(t, backends)
	lb.WaitUp(t, len(backends))
	ctx := context.Background()
	startBlock, _ := s.a.Client.BlockNumber(ctx)
	payToBefore := s.replicas[0].balance(t, s.payTo).Int64()
	l := &lbLoad{url: lb.URL, offer: s.replicas[0].offer(t), stop: make(chan struct{}), ok: map[string]*atomic.Int64{}}
	for i := range backends {
		l.ok["r"+strconv.Itoa(i)] = &atomic.Int64{}
	}
	l.ok[""] = &atomic.Int64{}
	const clients, funded = 6, 500 * price
	payers := make([]common.Address, clients)
	for i := range clients {
		signer, from := s.fundedPayer(t, funded)
		payers[i] = from
		l.wg.Add(1)
		go l.client(t, i, signer)
	}
	defer func() {
		if t.Failed() {
			t.Logf("haproxy:\n%s", lb.Logs())
		}
	}()

	const victim = 1
	awaitCount(t, "the victim's answers", func() int64 { return l.ok["r1"].Load() }, 4)
	pid := s.replicas[victim].proc.Process.Pid
	if stopMining {
		// The victim answers one more call with no block to come, so it
		// leaves at least that purchase in flight for the survivors.
		s.setMining(t, 0)
		answered := l.ok["r1"].Load()
		awaitCount(t, "the victim's answers with mining stopped", func() int64 { return l.ok["r1"].Load() }, answered+1)
	}
	s.replicas[victim].kill()
	orphans := s.unfinishedOf(t, pid)
	if stopMining {
		awaitCount(t, "adoptions", s.adopted, 1)
		s.setMining(t, 2)
	}
	afterKill := l.total.Load()
	awaitCount(t, "answers after the kill", func() int64 { return l.total.Load() - afterKill }, 30)
	close(l.stop)
	l.wg.Wait()

	judgeReplicaFault(t, s, l, payers, funded, payToBefore, startBlock)
	s.judgeOrphans(t, orphans)
	s.countRescued(t, l, pid)

	// The books, read at a survivor, tell the chain's story: the killed
	// replica's last rows died with it; its purchases' confirmations, by
	// the survivors, and those it confirmed before it died, counted by
	// the survivors once they adopt its entries, count them.
	want := books.USDC(l.total.Load() * price)
	root := strings.TrimSuffix(s.replicas[0].base, "/v1")
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(200 * time.Millisecond) {
		f := summaryOf(t, root, replicaAdminToken)["paced"]
		if f.PaidCalls == l.total.Load() && f.Charged == want && f.Settled == want {
			t.Logf("the books at a survivor: %d paid calls, charged %s, settled %s", f.PaidCalls, f.Charged, f.Settled)
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the books say %+v, want %d paid calls charged and settled %s", f, l.total.Load(), want)
		}
	}
}

// countRescued reports the calls the killed replica had reserved and a
// survivor answered: HAProxy sent them again (empty response) with the
// same payment, and the survivor served that one purchase.
func (s *replicaSet) countRescued(t *testing.T, l *lbLoad, pid int) {
	t.Helper()
	rdb := goredis.NewClient(&goredis.Options{Addr: s.redis})
	defer rdb.Close()
	rescued := 0
	for _, c := range l.calls {
		name := strings.ToLower(fmt.Sprintf("84532:%s:%s:%s", s.a.Network.Asset.Hex(), c.from.Hex(), c.nonce.Hex()))
		v, err := rdb.Get(context.Background(), "farebox:settle:e:"+name).Result()
		if err == nil && c.final == 200 && c.servedBy != "r1" && strings.HasSuffix(gjson.Get(v, "owner").String(), ":"+strconv.Itoa(pid)) {
			rescued++
		}
	}
	t.Logf("%d calls reserved by the killed replica were answered by a survivor (sent again by HAProxy with the same payment)", rescued)
}

// awaitCount waits (two minutes at most) until count reaches want.
func awaitCount(t *testing.T, what string, count func() int64, want int64) {
	t.Helper()
	for deadline := time.Now().Add(2 * time.Minute); count() < want; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%s: %d after two minutes, want %d", what, count(), want)
		}
	}
}

// judgeReplicaFault is the chain's verdict on the load.
func judgeReplicaFault(t *testing.T, s *replicaSet, l *lbLoad, payers []common.Address, funded, payToBefore int64, startBlock uint64) {
	t.Helper()
	answered := map[common.Address]int64{}
	var firstErrors, finalErrors int
	for _, c := range l.calls {
		if c.first != 200 {
			firstErrors++
		}
		if c.final == 200 {
			answered[c.from]++
		} else {
			finalErrors++
		}
	}
	for _, p := range payers {
		waitBalance(t, s.replicas[0], p, funded-answered[p]*price)
	}
	if gain := s.replicas[0].balance(t, s.payTo).Int64() - payToBefore; gain != l.total.Load()*price {
		t.Errorf("payTo gained %d, want %d for %d answers", gain, l.total.Load()*price, l.total.Load())
	}
	settled := 0
	for _, c := range l.calls {
		used := s.authorizationUsed(t, c.from, c.nonce)
		switch {
		case used:
			settled++
			if c.final != 200 {
				t.Errorf("authorization %s of %s was charged, and its call ended %d after %d attempts", c.nonce.Hex(), c.from.Hex(), c.final, c.attempts)
			}
		case c.final == 200:
			t.Errorf("authorization %s of %s was answered 200 (by %s) and never charged", c.nonce.Hex(), c.from.Hex(), c.servedBy)
		}
	}
	mined := s.relayerTransactions(t, startBlock+1) // fails on a reverted one
	t.Logf("sent %d calls, %d answered 200 on the first attempt, %d errors first (retried with the same payment), "+
		"%d answered 200 in the end, %d ended in an error; %d authorizations settled on chain by %d relayer transactions; 200s by replica: r0 %d, r1 (killed) %d, r2 %d",
		len(l.calls), len(l.calls)-firstErrors, firstErrors, l.total.Load(), finalErrors, settled, len(mined),
		l.ok["r0"].Load(), l.ok["r1"].Load(), l.ok["r2"].Load())
}

// authorizationUsed is the token's authorizationState(from, nonce).
func (s *replicaSet) authorizationUsed(t *testing.T, from common.Address, nonce common.Hash) bool {
	t.Helper()
	data := append(crypto.Keccak256([]byte("authorizationState(address,bytes32)"))[:4], common.LeftPadBytes(from.Bytes(), 32)...)
	data = append(data, nonce.Bytes()...)
	out, err := s.a.Client.CallContract(context.Background(), ethereum.CallMsg{To: &s.a.Network.Asset, Data: data}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return common.BytesToHash(out).Big().Sign() != 0
}

// unfinishedOf lists, by name, the journal's unfinished entries reserved
// by the replica whose process was pid, with their state.
func (s *replicaSet) unfinishedOf(t *testing.T, pid int) map[string]string {
	t.Helper()
	rdb := goredis.NewClient(&goredis.Options{Addr: s.redis})
	defer rdb.Close()
	ctx := context.Background()
	names, err := rdb.SMembers(ctx, "farebox:settle:open").Result()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, n := range names {
		v, err := rdb.Get(ctx, "farebox:settle:e:"+n).Result()
		if err != nil {
			continue // finished and gone since
		}
		if strings.HasSuffix(gjson.Get(v, "owner").String(), ":"+strconv.Itoa(pid)) {
			out[n] = gjson.Get(v, "state").String()
		}
	}
	return out
}

// judgeOrphans waits until the journal holds nothing in flight and checks
// what became of the killed replica's unfinished purchases: each one
// settled on chain is Confirmed, the others are released (gone). The
// survivors' logs say how many they adopted: no more than the killed
// replica left (none twice, and no survivor's own, not even one still
// queued for its relayer past adopt_after: a survivor beats), and no
// survivor logged a confirmation another follower had journaled first.
func (s *replicaSet) judgeOrphans(t *testing.T, orphans map[string]string) {
	t.Helper()
	rdb := goredis.NewClient(&goredis.Options{Addr: s.redis})
	defer rdb.Close()
	ctx := context.Background()
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(200 * time.Millisecond) {
		n, err := rdb.SCard(ctx, "farebox:settle:open").Result()
		if err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			break
		}
		if time.Now().After(deadline) {
			open, _ := rdb.SMembers(ctx, "farebox:settle:open").Result()
			t.Fatalf("a minute after the load %d purchases are still in flight: %v", n, open)
		}
	}
	byState := map[string]int{}
	for name, was := range orphans {
		v, err := rdb.Get(ctx, "farebox:settle:e:"+name).Result()
		now := "released"
		if err == nil {
			now = gjson.Get(v, "state").String()
		}
		if now != "confirmed" && now != "released" {
			t.Errorf("the killed replica's purchase %s (%s at the kill) ended %s", name, was, now)
		}
		byState[was+"->"+now]++
	}
	adopted := s.adopted()
	for i, logs := range s.logs {
		for _, line := range strings.Split(logs.String(), "\n") {
			if i != 1 && strings.Contains(line, `"level":"ERROR"`) {
				t.Logf("replica %d: %s", i, line)
			}
			if i != 1 && strings.Contains(line, "settle: journaling a confirmed transfer") {
				t.Errorf("replica %d followed a purchase another replica confirmed: %s", i, line)
			}
		}
	}
	if len(orphans) > 0 && adopted == 0 {
		t.Errorf("the killed replica left %d purchases in flight and no survivor says it adopted any", len(orphans))
	}
	if adopted > int64(len(orphans)) {
		t.Errorf("the survivors adopted %d times the %d purchases the killed replica left: some more than once", adopted, len(orphans))
	}
	t.Logf("the killed replica left %d purchases unfinished (%v); the survivors adopted %d", len(orphans), byState, adopted)
}

// adopted is how many purchases the replicas' logs say they adopted.
func (s *replicaSet) adopted() int64 {
	n := int64(0)
	for _, logs := range s.logs {
		for _, line := range strings.Split(logs.String(), "\n") {
			if gjson.Get(line, "msg").String() == "adopted purchases of a replica that stopped" {
				n += gjson.Get(line, "entries").Int()
			}
		}
	}
	return n
}

// setMining sets anvil's block interval in seconds (0: no blocks).
func (s *replicaSet) setMining(t *testing.T, seconds int) {
	t.Helper()
	if err := s.a.Client.Client().CallContext(context.Background(), nil, "evm_setIntervalMining", seconds); err != nil {
		t.Fatal(err)
	}
}
