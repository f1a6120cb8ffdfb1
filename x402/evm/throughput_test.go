package evm_test

import (
	"context"
	"crypto/ecdsa"
	"math/big"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/farebox/farebox/internal/testkit/chaintest"
	"github.com/farebox/farebox/x402"
	"github.com/farebox/farebox/x402/evm"
)

// BenchmarkSettlementThroughput settles b.N payments from 256 payers to one pay_to on
// anvil mining every 2 s with Base's 150M gas limit, from 512 concurrent
// callers, one transfer per transaction (single) and batched through
// Multicall3 (batched). It reports settlements per second until the last
// one is mined and gas per settlement, and checks every payer's balance
// delta on chain. Run it with a fixed count, e.g.
//
//	go test -run '^$' -bench SettlementThroughput -benchtime 5000x ./x402/evm/
func BenchmarkSettlementThroughput(b *testing.B) {
	ctx := context.Background()
	a, err := chaintest.Start(ctx, chaintest.BlockTime(2*time.Second), chaintest.GasLimit(150_000_000))
	if err != nil {
		b.Fatal(err)
	}
	defer a.Stop()
	f := anvilFixture("anvil-2s-150M", a)
	payers := fundPayers(b, f, 256)
	for _, mode := range []struct {
		name     string
		maxBatch int
	}{{"batched", 500}, {"single", 1}} {
		b.Run(mode.name, func(b *testing.B) {
			key, err := a.NewRelayer(ctx)
			if err != nil {
				b.Fatal(err)
			}
			s, err := evm.NewSettler(ctx, a.Client, key)
			if err != nil {
				b.Fatal(err)
			}
			s.MaxBatch = mode.maxBatch
			settleMany(b, f, s, payers)
		})
	}
}

// fundPayers mints each of n fresh payers enough for any run, with mining
// switched to automine meanwhile so funding takes no block times.
func fundPayers(b *testing.B, f *fixture, n int) []*ecdsa.PrivateKey {
	ctx := context.Background()
	rpc := f.anvil.Client.Client()
	if err := rpc.CallContext(ctx, nil, "evm_setAutomine", true); err != nil {
		b.Fatal(err)
	}
	keys := make([]*ecdsa.PrivateKey, n)
	for i := range keys {
		keys[i], _ = crypto.GenerateKey()
		if err := f.fund(ctx, crypto.PubkeyToAddress(keys[i].PublicKey), 1e12); err != nil {
			b.Fatal(err)
		}
	}
	if err := rpc.CallContext(ctx, nil, "evm_setIntervalMining", 2); err != nil {
		b.Fatal(err)
	}
	return keys
}

func settleMany(b *testing.B, f *fixture, s *evm.Settler, payers []*ecdsa.PrivateKey) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	const price = 1000
	n := b.N
	pays := make([]*x402.Payment, n)
	reqs := make([]*x402.Requirement, n)
	// One merchant, as a gateway's pay_to: its balance slot is written by
	// every transfer, new payers' balances and nonces are not.
	payToKey, _ := crypto.GenerateKey()
	payTo := crypto.PubkeyToAddress(payToKey.PublicKey)
	for i := range n {
		key := payers[i%len(payers)]
		pays[i], reqs[i] = f.authorize(crypto.PubkeyToAddress(key.PublicKey), price, func(d [32]byte) []byte { return sign(d, key) })
		pays[i].Authorization.To, reqs[i].PayTo = payTo, payTo
		f.resign(pays[i], key)
	}
	before := make([]*big.Int, len(payers))
	for i, key := range payers {
		before[i] = f.balance(b, crypto.PubkeyToAddress(key.PublicKey))
	}
	hashes := make([]common.Hash, n)
	first, err := f.backend.HeaderByNumber(ctx, nil)
	if err != nil {
		b.Fatal(err)
	}
	var next atomic.Int64
	var failed atomic.Int64
	var wg sync.WaitGroup
	b.ResetTimer()
	start := time.Now()
	var awaits sync.WaitGroup
	for range 512 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				rc, err := s.Broadcast(ctx, pays[i], reqs[i], nil)
				if err != nil || !rc.Success {
					failed.Add(1)
					b.Errorf("broadcast %d: %+v %v", i, rc, err)
					continue
				}
				hashes[i] = common.HexToHash(rc.Transaction)
				// Confirmation is followed in the background, as the gateway does.
				awaits.Add(1)
				go func() {
					defer awaits.Done()
					if err := s.Await(ctx, hashes[i], pays[i]); err != nil {
						failed.Add(1)
						b.Errorf("await %d: %v", i, err)
					}
				}()
			}
		}()
	}
	wg.Wait()
	broadcast := time.Since(start)
	awaits.Wait()
	elapsed := time.Since(start)
	b.StopTimer()
	if failed.Load() > 0 {
		b.Fatalf("%d settlements failed", failed.Load())
	}
	// The chain is the judge: each payer paid price x its settlements.
	for i, key := range payers {
		count := int64(n / len(payers))
		if i < n%len(payers) {
			count++
		}
		got := new(big.Int).Sub(before[i], f.balance(b, crypto.PubkeyToAddress(key.PublicKey)))
		if got.Int64() != count*price {
			b.Fatalf("payer %d paid %s, want %d x %d", i, got, count, price)
		}
	}
	if got := f.balance(b, payTo); got.Int64() != int64(n)*price {
		b.Fatalf("pay_to received %s, want %d x %d", got, n, price)
	}
	// Gas: every transaction the relayer had mined since the start (a fee
	// bump mines another hash than the one broadcast).
	last, err := f.backend.HeaderByNumber(ctx, nil)
	if err != nil {
		b.Fatal(err)
	}
	var gas uint64
	txs := 0
	for num := first.Number.Uint64() + 1; num <= last.Number.Uint64(); num++ {
		blk, err := f.anvil.Client.BlockByNumber(ctx, new(big.Int).SetUint64(num))
		if err != nil {
			b.Fatal(err)
		}
		for _, tx := range blk.Transactions() {
			if from, err := types.Sender(types.LatestSignerForChainID(tx.ChainId()), tx); err != nil || from != s.Relayer() {
				continue
			}
			r, err := f.backend.TransactionReceipt(ctx, tx.Hash())
			if err != nil {
				b.Fatalf("receipt of %s: %v", tx.Hash().Hex(), err)
			}
			gas += r.GasUsed
			txs++
		}
	}
	b.ReportMetric(float64(n)/elapsed.Seconds(), "settlements/s")
	b.ReportMetric(float64(gas)/float64(n), "gas/settlement")
	b.ReportMetric(float64(n)/float64(txs), "settlements/tx")
	b.Logf("%d settlements in %d transactions: all broadcast in %s, all mined in %s (%.0f/s); %+v", n, txs,
		broadcast.Round(time.Millisecond), elapsed.Round(time.Millisecond), float64(n)/elapsed.Seconds(), s.Stats())
}

// BenchmarkTransferGas measures what one transferWithAuthorization of
// Circle's FiatToken v2.2 costs inside a Multicall3 batch on anvil: the
// marginal gas of a transfer (gas of a batch of 2n less that of n, over n)
// for a payer new to the transaction (cold) and one met again in it
// (warm), paying a pay_to that holds USDC already, and for a pay_to new to
// the chain (its balance slot written from zero); and a transfer sent
// alone. It is the floor under BenchmarkSettlementThroughput: 150M gas
// every 2 s over the marginal gas is the most any batching can settle.
//
//	go test -run '^$' -bench TransferGas -benchtime 1x ./x402/evm/
func BenchmarkTransferGas(b *testing.B) {
	f := fixtures[1] // anvil, automine
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	key, err := f.newRelayer(ctx)
	if err != nil {
		b.Fatal(err)
	}
	tr, err := evm.NewTransactor(ctx, f.backend, key)
	if err != nil {
		b.Fatal(err)
	}
	payTo := crypto.PubkeyToAddress(mustKey(b).PublicKey)
	if err := f.fund(ctx, payTo, 1); err != nil {
		b.Fatal(err)
	}
	// transfers signs n transfers from payers fresh keys (each paying
	// n/payers times, consecutively) to `to` (nil: a new pay_to each).
	transfers := func(n, payers int, to *common.Address) [][]byte {
		keys := make([]*ecdsa.PrivateKey, payers)
		for i := range keys {
			keys[i] = mustKey(b)
			if err := f.fund(ctx, crypto.PubkeyToAddress(keys[i].PublicKey), 1e9); err != nil {
				b.Fatal(err)
			}
		}
		out := make([][]byte, n)
		for i := range n {
			k := keys[i*payers/n]
			p, _ := f.authorize(crypto.PubkeyToAddress(k.PublicKey), 1000, func(d [32]byte) []byte { return sign(d, k) })
			if to != nil {
				p.Authorization.To = *to
				f.resign(p, k)
			}
			out[i] = directTransfer(p)
		}
		return out
	}
	send := func(to common.Address, data []byte, want int) uint64 {
		r, err := tr.Send(ctx, &to, data, nil)
		if err != nil {
			b.Fatal(err)
		}
		if got := countAuthorizationUsed(r); got != want {
			b.Fatalf("%d transfers carried out, want %d", got, want)
		}
		return r.GasUsed
	}
	batch := func(datas [][]byte) uint64 {
		return send(evm.Multicall3, tryAggregate(b, f.net.Asset, datas), len(datas))
	}
	const n = 100
	marginal := func(payersPerN int, to *common.Address) (float64, float64) {
		g1 := batch(transfers(n, payersPerN, to))
		g2 := batch(transfers(2*n, 2*payersPerN, to))
		per := float64(g2-g1) / n
		return per, float64(g1) - n*per
	}
	b.ResetTimer()
	for range b.N {
		cold, overhead := marginal(n, &payTo)
		warm, _ := marginal(n/10, &payTo) // each payer 10 times in a row
		newPayTo, _ := marginal(n, nil)
		alone := send(f.net.Asset, transfers(1, 1, &payTo)[0], 1)
		b.ReportMetric(cold, "gas/transfer-cold-payer")
		b.ReportMetric(warm, "gas/transfer-warm-payer")
		b.ReportMetric(newPayTo, "gas/transfer-new-payto")
		b.ReportMetric(overhead, "gas/batch-fixed")
		b.ReportMetric(float64(alone), "gas/transfer-alone")
		b.ReportMetric(150e6/cold/2, "max-settlements/s-cold")
		b.ReportMetric(150e6/warm/2, "max-settlements/s-warm")
		b.Logf("calldata per call in tryAggregate: %d bytes (of which the transfer's own %d)",
			len(tryAggregate(b, f.net.Asset, transfers(2, 2, &payTo)))/2, len(transfers(1, 1, &payTo)[0]))
	}
}

func mustKey(tb testing.TB) *ecdsa.PrivateKey {
	k, err := crypto.GenerateKey()
	if err != nil {
		tb.Fatal(err)
	}
	return k
}

// tryAggregate is Multicall3's tryAggregate(false, calls) of datas to target.
func tryAggregate(tb testing.TB, target common.Address, datas [][]byte) []byte {
	a, err := abi.JSON(strings.NewReader(`[{"type":"function","name":"tryAggregate","stateMutability":"payable",
 "inputs":[{"name":"requireSuccess","type":"bool"},{"name":"calls","type":"tuple[]","components":[
  {"name":"target","type":"address"},{"name":"callData","type":"bytes"}]}],"outputs":[]}]`))
	if err != nil {
		tb.Fatal(err)
	}
	type call struct {
		Target   common.Address
		CallData []byte
	}
	cs := make([]call, len(datas))
	for i, d := range datas {
		cs[i] = call{target, d}
	}
	out, err := a.Pack("tryAggregate", false, cs)
	if err != nil {
		tb.Fatal(err)
	}
	return out
}
