package settle_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/sha256"
	storebolt "github.com/farebox/farebox/store/bolt"
	"io"
	"log/slog"
	"math/big"
	"sort"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/farebox/farebox/internal/testkit/chaintest"
	"github.com/farebox/farebox/x402"
	"github.com/farebox/farebox/x402/evm"
	"github.com/farebox/farebox/x402/payer"
	"github.com/farebox/farebox/x402/settle"
)

// BenchmarkPaidPath is the gateway's paid path without HTTP and model, on
// anvil mining every 2 s over JSON-RPC: the eth_call simulation, Begin
// (debts, the bbolt write-ahead entry, the hold with its balance read) and
// Settle with confirm broadcast, as farebox serve runs them. serial is one
// call at a time (the latency a paid call adds: p50/p99 are reported);
// parallel is 256 callers (settlements per second until all are mined).
// Every payer's balance delta is checked on chain, and every receipt's
// transaction must be mined with success (how many blocks after the
// answer's head is reported). Profile it with
//
//	go test -run '^$' -bench PaidPath -benchtime 400x -cpuprofile cpu.prof ./x402/settle/
func BenchmarkPaidPath(b *testing.B) {
	ctx := context.Background()
	a, err := chaintest.Start(ctx, chaintest.GasLimit(150_000_000))
	if err != nil {
		b.Fatal(err)
	}
	defer a.Stop()
	payers := make([]*ecdsa.PrivateKey, 8)
	for i := range payers {
		payers[i], _ = crypto.GenerateKey()
		if err := a.Fund(ctx, crypto.PubkeyToAddress(payers[i].PublicKey), 1e12); err != nil {
			b.Fatal(err)
		}
	}
	if err := a.Client.Client().CallContext(ctx, nil, "evm_setIntervalMining", 2); err != nil {
		b.Fatal(err)
	}
	for _, mode := range []struct {
		name    string
		callers int
	}{{"serial", 1}, {"parallel", 256}} {
		b.Run(mode.name, func(b *testing.B) { runPaidPath(b, a, payers, mode.callers) })
	}
}

func runPaidPath(b *testing.B, a *chaintest.Anvil, payers []*ecdsa.PrivateKey, callers int) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	key, err := a.NewRelayer(ctx)
	if err != nil {
		b.Fatal(err)
	}
	s, err := evm.NewSettler(ctx, a.Client, key)
	if err != nil {
		b.Fatal(err)
	}
	j, err := storebolt.OpenJournal(b.TempDir(), 0)
	if err != nil {
		b.Fatal(err)
	}
	defer j.Close()
	var confirmed atomic.Int64
	allMined := make(chan struct{})
	n := b.N
	reg, err := x402.NewRegistry(a.Network)
	if err != nil {
		b.Fatal(err)
	}
	e, err := settle.NewEngine(settle.Config{Journal: j, Settler: s, Networks: reg,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), OnEvent: func(ev settle.Event) {
			if ev.Kind == settle.EventConfirmed && confirmed.Add(1) == int64(n) {
				close(allMined)
			}
		}})
	if err != nil {
		b.Fatal(err)
	}
	defer e.Close()
	checker := evm.NewChecker(a.Client, true)
	payTo, _ := crypto.GenerateKey()
	req := &x402.Requirement{Scheme: "exact", Network: a.Network, Amount: big.NewInt(1000),
		PayTo: crypto.PubkeyToAddress(payTo.PublicKey), MaxTimeoutSeconds: 3600, Resource: "http://farebox.test/v1/responses"}
	pays := make([]*x402.Payment, n)
	for i := range pays {
		if pays[i], err = payer.NewSigner(payers[i%len(payers)]).Sign(req, 2); err != nil {
			b.Fatal(err)
		}
		if _, err := x402.EncodePayment(pays[i], req); err != nil {
			b.Fatal(err)
		}
	}
	before := make([]*big.Int, len(payers))
	for i, k := range payers {
		if before[i], err = s.BalanceOf(ctx, req, crypto.PubkeyToAddress(k.PublicKey)); err != nil {
			b.Fatal(err)
		}
	}
	lat := make([]time.Duration, n)
	txs := make([]common.Hash, n)
	answeredAt := make([]uint64, n) // the head when the call was answered
	steps := [3][]time.Duration{make([]time.Duration, n), make([]time.Duration, n), make([]time.Duration, n)}
	var next atomic.Int64
	var wg sync.WaitGroup
	b.ResetTimer()
	start := time.Now()
	for range callers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				t0 := time.Now()
				if err := checker.Check(ctx, pays[i], req); err != nil {
					b.Errorf("check %d: %v", i, err)
					return
				}
				t1 := time.Now()
				pu, err := e.Begin(ctx, settle.Purchase{Payment: pays[i], Requirement: req, BodyHash: sha256.Sum256([]byte(strconv.Itoa(i)))})
				if err != nil {
					b.Errorf("begin %d: %v", i, err)
					return
				}
				t2 := time.Now()
				rc, err := pu.Settle(ctx)
				if err != nil || !rc.Success {
					b.Errorf("settle %d: %+v %v", i, rc, err)
					return
				}
				lat[i] = time.Since(t0)
				steps[0][i], steps[1][i], steps[2][i] = t1.Sub(t0), t2.Sub(t1), time.Since(t2)
				txs[i] = common.HexToHash(rc.Transaction)
				if answeredAt[i], err = a.Client.BlockNumber(ctx); err != nil {
					b.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	answered := time.Since(start)
	b.StopTimer()
	if b.Failed() {
		return
	}
	select {
	case <-allMined:
	case <-ctx.Done():
		b.Fatalf("only %d of %d settlements confirmed", confirmed.Load(), n)
	}
	elapsed := time.Since(start)
	for i, k := range payers {
		count := int64(n / len(payers))
		if i < n%len(payers) {
			count++
		}
		now, err := s.BalanceOf(ctx, req, crypto.PubkeyToAddress(k.PublicKey))
		if err != nil {
			b.Fatal(err)
		}
		if got := new(big.Int).Sub(before[i], now); got.Int64() != count*1000 {
			b.Fatalf("payer %d paid %s, want %d x 1000", i, got, count)
		}
	}
	// Every receipt's transaction is mined with success; count how many
	// blocks after the answer's head each took.
	late, worst := 0, uint64(0)
	for i := range n {
		r, err := a.Client.TransactionReceipt(ctx, txs[i])
		if err != nil || r.Status != types.ReceiptStatusSuccessful {
			b.Fatalf("the receipt of call %d names %s: %+v, %v; want it mined with success", i, txs[i].Hex(), r, err)
		}
		blocks := r.BlockNumber.Uint64() - answeredAt[i]
		worst = max(worst, blocks)
		if blocks > 2 {
			late++
		}
	}
	b.ReportMetric(float64(worst), "max-blocks-to-mine")
	b.ReportMetric(float64(late), "mined-after-2-blocks")
	p50 := func(d []time.Duration) float64 {
		sort.Slice(d, func(x, y int) bool { return d[x] < d[y] })
		return float64(d[len(d)/2].Microseconds()) / 1000
	}
	for k, name := range []string{"check", "begin", "settle"} {
		b.ReportMetric(p50(steps[k]), name+"-p50-ms")
	}
	b.ReportMetric(p50(lat), "p50-ms")
	b.ReportMetric(float64(lat[n*99/100].Microseconds())/1000, "p99-ms")
	b.ReportMetric(float64(n)/elapsed.Seconds(), "mined/s")
	b.ReportMetric(float64(n)/answered.Seconds(), "answered/s")
	st := s.Stats()
	b.ReportMetric(float64(st.Transfers)/float64(max(st.Transactions, 1)), "transfers/tx")
}
