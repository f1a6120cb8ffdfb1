package main

import (
	"context"
	"fmt"
	"io"
	"math/big"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/farebox/farebox/internal/testkit/chaintest"
	"github.com/farebox/farebox/internal/testkit/redistest"
	"github.com/farebox/farebox/x402"
	"github.com/farebox/farebox/x402/payer"
	"github.com/tidwall/gjson"
)

// replicaAdminToken opens the replicas' admin API.
const replicaAdminToken = "replicas-admin-token-0123456789"

// price is the paced model's price in USDC atomic units ("0.001").
const price = 1_000

// replicaSet is three `farebox serve` processes sharing one Redis (journal
// and in-flight holds) and one anvil mining every 2 s, each settling with
// its own relayer key: one key in three processes would have three nonce
// trackers racing for the same nonces (replaced or refused transactions).
type replicaSet struct {
	a        *chaintest.Anvil
	payTo    common.Address
	replicas []*crashRig
	relayers []common.Address
	logs     []*syncBuffer
	redis    string // the shared Redis, host:port
}

func newReplicaSet(t *testing.T, n int) *replicaSet {
	t.Helper()
	return newReplicaSetWith(t, n, "warn", "")
}

// newReplicaSetWith is newReplicaSet logging at logLevel, with payments
// lines (indented two spaces, newline-terminated) added to each config.
func newReplicaSetWith(t *testing.T, n int, logLevel, payments string) *replicaSet {
	t.Helper()
	redisAddr := redistest.Start(t)
	a := chaintest.StartAnvil(t, chaintest.BlockTime(2*time.Second))
	payToKey, _ := crypto.GenerateKey()
	s := &replicaSet{a: a, payTo: crypto.PubkeyToAddress(payToKey.PublicKey), redis: redisAddr}
	dir := t.TempDir()
	for i := range n {
		relayer, err := a.NewRelayer(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr := ln.Addr().String()
		ln.Close()
		r := &crashRig{a: a, base: "http://" + addr + "/v1", payTo: s.payTo,
			env:    []string{"REPLICA_RELAYER_KEY=" + hexutil.Encode(crypto.FromECDSA(relayer)), "REPLICA_ADMIN_TOKEN=" + replicaAdminToken},
			config: filepath.Join(dir, fmt.Sprintf("replica%d.yaml", i))}
		// The first replica names Redis with the older payments.redis_url,
		// the others with store: both keys reach the same data.
		url := fmt.Sprintf("%q", "redis://"+redisAddr+"/0")
		storeKey, redisURL := "store: "+url+"\n", ""
		if i == 0 {
			storeKey, redisURL = "", "  redis_url: "+url+"\n"
		}
		yaml := fmt.Sprintf(`addr: %s
log_level: %s
%sadmin: {token_env: REPLICA_ADMIN_TOKEN}
payments:
  pay_to: %q
  networks: ["eip155:84532"]
  settler: chain
%s%s  chain:
    rpc_url: %q
    relayer_key_env: REPLICA_RELAYER_KEY
  custom_networks:
    - {caip2: "eip155:84532", v1_name: base-sepolia, chain_id: 84532, asset: %q, name: USDC, version: "2"}
models:
  - {name: paced, upstream: scripted, price: "0.001", pace: 100ms}
`, addr, logLevel, storeKey, s.payTo.Hex(), payments, redisURL, a.RPCURL, a.Network.Asset.Hex())
		if err := os.WriteFile(r.config, []byte(yaml), 0o600); err != nil {
			t.Fatal(err)
		}
		s.replicas = append(s.replicas, r)
		s.relayers = append(s.relayers, crypto.PubkeyToAddress(relayer.PublicKey))
		s.logs = append(s.logs, &syncBuffer{})
	}
	t.Cleanup(func() {
		for i, r := range s.replicas {
			r.kill()
			if t.Failed() {
				t.Logf("replica %d (relayer %s) logs:\n%s", i, s.relayers[i].Hex(), s.logs[i].String())
			}
		}
	})
	s.start(t)
	return s
}

// start launches every replica before waiting for any, so they boot in
// parallel.
func (s *replicaSet) start(t *testing.T) {
	t.Helper()
	for i, r := range s.replicas {
		r.proc = exec.Command(os.Args[0], "serve", "--config", r.config)
		r.proc.Env = append(append(os.Environ(), "FAREBOX_TEST_AS_MAIN=1"), r.env...)
		r.proc.Stdout, r.proc.Stderr = s.logs[i], s.logs[i]
		if err := r.proc.Start(); err != nil {
			t.Fatal(err)
		}
		r.crashed = make(chan struct{})
		go func(r *crashRig) { r.proc.Wait(); close(r.crashed) }(r)
	}
	for i, r := range s.replicas {
		health := strings.TrimSuffix(r.base, "/v1") + "/healthz"
		for deadline := time.Now().Add(time.Minute); ; time.Sleep(20 * time.Millisecond) {
			if res, err := http.Get(health); err == nil {
				res.Body.Close()
				break
			}
			select {
			case <-r.crashed:
				t.Fatalf("replica %d exited", i)
			default:
			}
			if time.Now().After(deadline) {
				t.Fatalf("replica %d never answered /healthz", i)
			}
		}
	}
}

// answer is one HTTP exchange with a replica.
type answer struct {
	replica int
	status  int
	body    string
	receipt string // PAYMENT-RESPONSE header, "" when absent
}

// burst sends every (replica, header) pair at once, released together.
func (s *replicaSet) burst(t *testing.T, body string, sends []int, headers [][2]string) []answer {
	t.Helper()
	out := make([]answer, len(sends))
	errs := make([]error, len(sends))
	release := make(chan struct{})
	var wg sync.WaitGroup
	for i, replica := range sends {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-release
			res, err := s.replicas[replica].post(context.Background(), body, headers[i][0], headers[i][1])
			if err != nil {
				errs[i] = err
				return
			}
			b, err := io.ReadAll(res.Body)
			res.Body.Close()
			out[i] = answer{replica, res.StatusCode, string(b), res.Header.Get(x402.HeaderPaymentResponse)}
			errs[i] = err
		}()
	}
	close(release)
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("request %d to replica %d: %v", i, sends[i], err)
		}
	}
	return out
}

// sentNonces is the relayers' pending nonces summed: how many
// transactions they have sent, mined or not.
func (s *replicaSet) sentNonces(t *testing.T) uint64 {
	t.Helper()
	var n uint64
	for _, r := range s.relayers {
		got, err := s.a.Client.PendingNonceAt(context.Background(), r)
		if err != nil {
			t.Fatal(err)
		}
		n += got
	}
	return n
}

// relayerTransactions reads every block from `from` to the head and
// returns the relayers' transactions mined there, failing on any that
// reverted (gas the operator paid for nothing).
func (s *replicaSet) relayerTransactions(t *testing.T, from uint64) []common.Hash {
	t.Helper()
	ctx := context.Background()
	head, err := s.a.Client.BlockNumber(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var mined []common.Hash
	for n := from; n <= head; n++ {
		block, err := s.a.Client.BlockByNumber(ctx, new(big.Int).SetUint64(n))
		if err != nil {
			t.Fatal(err)
		}
		for _, tx := range block.Transactions() {
			sender, err := types.Sender(types.LatestSignerForChainID(tx.ChainId()), tx)
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range s.relayers {
				if sender != r {
					continue
				}
				rc, err := s.a.Client.TransactionReceipt(ctx, tx.Hash())
				if err != nil {
					t.Fatal(err)
				}
				if rc.Status != types.ReceiptStatusSuccessful {
					t.Errorf("relayer %s's transaction %s reverted in block %d", r.Hex(), tx.Hash().Hex(), n)
				}
				mined = append(mined, tx.Hash())
			}
		}
	}
	return mined
}

// fundedPayer is a fresh payer holding amount USDC atomic units.
func (s *replicaSet) fundedPayer(t *testing.T, amount int64) (*payer.Signer, common.Address) {
	t.Helper()
	key, _ := crypto.GenerateKey()
	from := crypto.PubkeyToAddress(key.PublicKey)
	if err := s.a.Fund(context.Background(), from, amount); err != nil {
		t.Fatal(err)
	}
	return payer.NewSigner(key), from
}

// TestReplicasShareOnePurchase runs three replicas on one Redis and one
// anvil: an authorization sent to all of them at once is charged once and
// every answer served carries that one transaction; a payer funded for one
// call racing 20 authorizations across the replicas is served once.
func TestReplicasShareOnePurchase(t *testing.T) {
	s := newReplicaSet(t, 3)
	offer := s.replicas[0].offer(t)
	ctx := context.Background()

	t.Run("one authorization at every replica", func(t *testing.T) {
		signer, from := s.fundedPayer(t, 10*price)
		name, value, err := signer.PaymentHeader(offer, 2)
		if err != nil {
			t.Fatal(err)
		}
		startBlock, _ := s.a.Client.BlockNumber(ctx)
		sentBefore := s.sentNonces(t)
		payToBefore := s.replicas[0].balance(t, s.payTo).Int64()
		body := `{"model":"paced","input":"one purchase, three replicas"}`
		const perReplica = 4
		var sends []int
		var headers [][2]string
		for i := range 3 * perReplica {
			sends = append(sends, i%3)
			headers = append(headers, [2]string{name, value})
		}
		answers := s.burst(t, body, sends, headers)
		// Once paid, the same authorization and body is served again with the
		// stored receipt: ask each replica once more, after the burst.
		for replica := range s.replicas {
			answers = append(answers, s.burst(t, body, []int{replica}, headers[:1])...)
		}
		var tx string
		served, inProgress := 0, 0
		for i, a := range answers {
			switch {
			case a.status == 200:
				served++
				if !strings.Contains(a.body, "one purchase") {
					t.Errorf("answer %d (replica %d) lacks the output: %s", i, a.replica, a.body)
				}
				rc, err := x402.DecodeReceipt(a.receipt)
				if err != nil || !rc.Success || rc.Transaction == "" {
					t.Fatalf("answer %d (replica %d): receipt %q: %v", i, a.replica, a.receipt, err)
				}
				if tx == "" {
					tx = rc.Transaction
				} else if rc.Transaction != tx {
					t.Errorf("answer %d (replica %d) names transaction %s, another named %s", i, a.replica, rc.Transaction, tx)
				}
			case a.status == 409 && gjson.Get(a.body, "error.code").String() == "payment_in_progress" && i < len(sends):
				inProgress++
				if strings.Contains(a.body, "one purchase") {
					t.Errorf("a refused call carries output: %s", a.body)
				}
			default:
				t.Errorf("answer %d (replica %d): %d %s", i, a.replica, a.status, a.body)
			}
		}
		t.Logf("burst of %d: %d served, %d in progress; then %d replays", len(sends), served-len(s.replicas), inProgress, len(s.replicas))
		if served < len(s.replicas)+1 {
			t.Fatalf("the burst served %d, want at least one", served-len(s.replicas))
		}
		if rc := waitMined(t, s.replicas[0], common.HexToHash(tx)); rc.Status != types.ReceiptStatusSuccessful {
			t.Fatalf("the receipt's transaction %s reverted", tx)
		}
		waitBalance(t, s.replicas[0], from, 10*price-price)
		if got := s.replicas[0].balance(t, s.payTo).Int64() - payToBefore; got != price {
			t.Errorf("pay_to received %d, want exactly one price", got)
		}
		if sent := s.sentNonces(t) - sentBefore; sent != 1 {
			t.Errorf("the relayers sent %d transactions, want exactly one", sent)
		}
		if mined := s.relayerTransactions(t, startBlock+1); len(mined) != 1 || mined[0].Hex() != tx {
			t.Errorf("the relayers' mined transactions %v, want only %s", mined, tx)
		}
	})

	t.Run("a payer racing its balance across replicas", func(t *testing.T) {
		signer, from := s.fundedPayer(t, price)
		startBlock, _ := s.a.Client.BlockNumber(ctx)
		sentBefore := s.sentNonces(t)
		payToBefore := s.replicas[0].balance(t, s.payTo).Int64()
		body := `{"model":"paced","input":"race my balance across replicas"}`
		var sends []int
		var headers [][2]string
		for i := range 20 {
			name, value, err := signer.PaymentHeader(offer, 2)
			if err != nil {
				t.Fatal(err)
			}
			sends = append(sends, i%3)
			headers = append(headers, [2]string{name, value})
		}
		var tx string
		served := 0
		for i, a := range s.burst(t, body, sends, headers) {
			switch {
			case a.status == 200:
				served++
				rc, err := x402.DecodeReceipt(a.receipt)
				if err != nil || !rc.Success {
					t.Fatalf("answer %d (replica %d): receipt %q: %v", i, a.replica, a.receipt, err)
				}
				tx = rc.Transaction
			case a.status == 402 && gjson.Get(a.body, "error.code").String() == x402.ReasonInsufficientFunds:
				if strings.Contains(a.body, "race my balance") {
					t.Errorf("a refused call carries output: %s", a.body)
				}
			default:
				t.Errorf("answer %d (replica %d): %d %s", i, a.replica, a.status, a.body)
			}
		}
		if served != 1 {
			t.Fatalf("served %d of %d, want exactly 1", served, len(sends))
		}
		if rc := waitMined(t, s.replicas[0], common.HexToHash(tx)); rc.Status != types.ReceiptStatusSuccessful {
			t.Fatalf("the receipt's transaction %s reverted", tx)
		}
		waitBalance(t, s.replicas[0], from, 0)
		if got := s.replicas[0].balance(t, s.payTo).Int64() - payToBefore; got != price {
			t.Errorf("pay_to received %d, want exactly one price", got)
		}
		if sent := s.sentNonces(t) - sentBefore; sent != 1 {
			t.Errorf("the relayers sent %d transactions, want exactly one", sent)
		}
		if mined := s.relayerTransactions(t, startBlock+1); len(mined) != 1 || mined[0].Hex() != tx {
			t.Errorf("the relayers' mined transactions %v, want only %s", mined, tx)
		}
	})
}
