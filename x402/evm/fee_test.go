package evm_test

import (
	"context"
	"math/big"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/farebox/farebox/x402/evm"
)

// TestAwaitFeeSharesABatchsFeeAndCallsReportTheirs: the transfers of one
// batch are told shares of its mined fee that differ by at most a wei and
// add up to it exactly; a relayer Call made under a gas label reports
// that label and exactly what the relayer's balance lost to it.
func TestAwaitFeeSharesABatchsFeeAndCallsReportTheirs(t *testing.T) {
	eachChain(t, func(t *testing.T, f *fixture) {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		key, err := f.newRelayer(ctx)
		if err != nil {
			t.Fatal(err)
		}
		s, err := evm.NewSettler(ctx, f.backend, key)
		if err != nil {
			t.Fatal(err)
		}
		var batch []*queued
		for range 5 {
			p, req := f.pay(7)
			batch = append(batch, &queued{p: p, req: req})
		}
		inBatch(t, ctx, f, s, batch)
		tx := batch[0].rc.Transaction
		sum, least, most := new(big.Int), (*big.Int)(nil), (*big.Int)(nil)
		for _, q := range batch {
			if q.err != nil || q.rc.Transaction != tx {
				t.Fatalf("transfer: %+v %v, want all in %s", q.rc, q.err, tx)
			}
			share, err := s.AwaitFee(ctx, common.HexToHash(tx), q.p)
			if err != nil || share == nil || share.Sign() <= 0 {
				t.Fatalf("AwaitFee: %v %v", share, err)
			}
			sum.Add(sum, share)
			if least == nil || share.Cmp(least) < 0 {
				least = share
			}
			if most == nil || share.Cmp(most) > 0 {
				most = share
			}
		}
		r, err := f.backend.TransactionReceipt(ctx, common.HexToHash(tx))
		if err != nil || r.EffectiveGasPrice == nil {
			t.Fatalf("receipt of %s: %+v %v", tx, r, err)
		}
		fee := new(big.Int).Mul(new(big.Int).SetUint64(r.GasUsed), r.EffectiveGasPrice)
		if sum.Cmp(fee) != 0 || new(big.Int).Sub(most, least).Cmp(big.NewInt(1)) > 0 {
			t.Errorf("shares from %s to %s add up to %s, want %s split evenly", least, most, sum, fee)
		}

		// A Call: its fee is what the relayer's balance lost.
		var mu sync.Mutex
		var told []evm.CallGas
		s.OnCallGas(func(g evm.CallGas) { mu.Lock(); told = append(told, g); mu.Unlock() })
		relayer := crypto.PubkeyToAddress(key.PublicKey)
		before, err := f.backend.BalanceAt(ctx, relayer, nil)
		if err != nil {
			t.Fatal(err)
		}
		name := common.FromHex("0x06fdde03") // the token's name(): any call that does not revert
		h, err := s.Call(evm.WithGasLabel(ctx, "a-model"), f.net.Asset, name, nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.AwaitCall(ctx, h); err != nil {
			t.Fatal(err)
		}
		after, err := f.backend.BalanceAt(ctx, relayer, nil)
		if err != nil {
			t.Fatal(err)
		}
		mu.Lock()
		defer mu.Unlock()
		if len(told) != 1 || told[0].Tx != h || told[0].Label != "a-model" || told[0].Reverted ||
			told[0].Wei.Cmp(new(big.Int).Sub(before, after)) != 0 {
			t.Errorf("OnCallGas told %+v, want %s under a-model costing %s", told, h.Hex(), new(big.Int).Sub(before, after))
		}
	})
}
