package evm_test

import (
	"context"
	"math/big"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/farebox/farebox/x402"
	"github.com/farebox/farebox/x402/evm"
	"github.com/farebox/farebox/x402/settle"
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

// TestTheEngineBooksTheGasOfARevertedSettlement: a transfer front-run
// after its simulation reverts on chain; the settlement engine confirms
// the purchase (the rival's transaction paid it) and the event that ends
// it carries the fee of the relayer's reverted transaction, exactly what
// the relayer's balance lost.
func TestTheEngineBooksTheGasOfARevertedSettlement(t *testing.T) {
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
		s.PollInterval = 20 * time.Millisecond
		// A first transfer measures the token's gas, so the next one is
		// simulated and journaled before it is sent (where OnSimulated runs).
		warm, warmReq := f.pay(1)
		if rc, err := s.Settle(ctx, warm, warmReq); err != nil || !rc.Success {
			t.Fatalf("warm-up: %+v %v", rc, err)
		}
		rivalKey, err := f.newRelayer(ctx)
		if err != nil {
			t.Fatal(err)
		}
		rival, err := evm.NewTransactor(ctx, f.backend, rivalKey)
		if err != nil {
			t.Fatal(err)
		}
		victim, req := f.pay(3)
		var once sync.Once
		s.OnSimulated(func(int) error {
			var err error
			once.Do(func() {
				asset := f.net.Asset
				_, err = rival.Send(ctx, &asset, directTransfer(victim), nil)
			})
			return err
		})
		reg, err := x402.NewRegistry(f.net)
		if err != nil {
			t.Fatal(err)
		}
		events := make(chan settle.Event, 64)
		e, err := settle.NewEngine(settle.Config{Settler: s, Journal: settle.NewMemoryJournal(100), Networks: reg,
			Confirm: settle.ConfirmBroadcast, OnEvent: func(ev settle.Event) { events <- ev }})
		if err != nil {
			t.Fatal(err)
		}
		defer e.Close()
		relayer := crypto.PubkeyToAddress(key.PublicKey)
		before, err := f.backend.BalanceAt(ctx, relayer, nil)
		if err != nil {
			t.Fatal(err)
		}
		pu, err := e.Begin(ctx, settle.Purchase{Payment: victim, Requirement: req, Model: "m"})
		if err != nil {
			t.Fatal(err)
		}
		rc, err := pu.Settle(ctx)
		if err != nil || !rc.Success {
			t.Fatalf("broadcast: %+v %v", rc, err)
		}
		var end settle.Event
		for end.Entry == nil {
			select {
			case ev := <-events:
				switch ev.Kind {
				case settle.EventConfirmed, settle.EventFailed, settle.EventReleased:
					end = ev
				}
			case <-ctx.Done():
				t.Fatal("the purchase did not end")
			}
		}
		r, err := f.backend.TransactionReceipt(ctx, common.HexToHash(rc.Transaction))
		if err != nil || r.Status != types.ReceiptStatusFailed {
			t.Fatalf("the relayer's transaction %s: %+v %v, want it reverted", rc.Transaction, r, err)
		}
		after, err := f.backend.BalanceAt(ctx, relayer, nil)
		if err != nil {
			t.Fatal(err)
		}
		spent := new(big.Int).Sub(before, after)
		if end.Kind != settle.EventConfirmed || end.Gas == nil || end.Gas.Cmp(spent) != 0 {
			t.Errorf("the purchase ended %s with gas %v, want confirmed (the rival paid) with the %s wei the relayer lost",
				end.Kind, end.Gas, spent)
		}
	})
}
